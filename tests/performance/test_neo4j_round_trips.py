"""Round trips to Neo4j per warm tool call, through the real tool handler on the real server: the
count of Bolt socket writes (the driver writes, then waits for the answer). In AWS each one crosses
the network to the managed database, so a tool that adds one pays it on every call; these budgets
are the counts the tools make today (a change that lowers one should lower its budget).

The physical-key guard (stores/graph/neo4j/keys.py) is part of each statement's text, so it adds
no round trip: the counts below include it. Its server-side cost is timed by
`bench/stores.py --key-guard`; timings of whole calls by `bench/calls.py --neo4j`.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from rhumbline.contract import INVOCATION_CONTRACT
from rhumbline.runtime import resources
from rhumbline.runtime.handler import handle
from rhumbline.stores.graph.model import GraphBatch
from tests.functional.tools.code_context import shop_graph

pytestmark = pytest.mark.neo4j

# (tool, arguments) -> Bolt round trips of one warm call.
BUDGETS: list[tuple[str, dict[str, Any], int]] = [
    ("get_node", {"node_id": shop_graph.CHECKOUT.id}, 1),
    # Two: the probes' counts decide which words select candidates (ranking.weigh), then the candidates.
    ("search", {"query": "checkout"}, 2),
    ("context", {"file": "shop/services.py"}, 1),
    ("function", {"name": "shop.services.checkout", "depth": 2}, 1),
    ("class", {"name": "Product"}, 1),
    ("explain", {"name": "Product.save"}, 1),
    # Its seeds are a search: one more than its walk.
    ("query_graph", {"question": "checkout"}, 15),
    ("trace_path", {"from_node": "shop.services.checkout", "to_node": "shop.base.Model.save"}, 10),
    ("blast_radius", {"node_id": "shop.base.Model.save", "depth": 2}, 13),
    ("query", {"cypher": "RETURN 1 AS one"}, 3),
]


@pytest.fixture(scope="module")
def project(neo4j_server: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home = tmp_path_factory.mktemp("round-trips")
    slug = f"perf/trips{uuid.uuid4().hex[:10]}"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RHUMBLINE_HOME", str(home))
        patch.setenv("RHUMBLINE_MODE", "local")
        patch.setenv("RHUMBLINE_DATABASE_URL", f"sqlite:///{home / 'rhumbline.sqlite3'}")
        patch.setenv("RHUMBLINE_GRAPH_BACKEND", "neo4j")
        patch.setenv("RHUMBLINE_NEO4J_URI", neo4j_server["uri"])
        patch.setenv("RHUMBLINE_NEO4J_USER", neo4j_server["user"])
        patch.setenv("RHUMBLINE_NEO4J_PASSWORD", neo4j_server["password"])
        resources.reset()
        from rhumbline.stores.relational import migrate, projects
        from rhumbline.stores.relational.session import session_scope

        engine = resources.relational_engine()
        migrate.upgrade(engine)
        with session_scope(engine) as session:
            projects.get_or_create(session, slug)
        graph = resources.graph_store()
        graph.apply(slug, GraphBatch(nodes=shop_graph.NODES, edges=shop_graph.EDGES, clear=True))
        try:
            yield slug
        finally:
            graph.delete_project(slug)
            resources.reset()


def call(tool: str, arguments: dict[str, Any], project: str) -> dict[str, Any]:
    outcome = handle(tool, {
        "contract": INVOCATION_CONTRACT, "tool": tool, "arguments": {**arguments, "project": project},
        "caller": {"principal": "perf", "token_id": "tk_perf", "projects": [project], "scopes": ["read", "cypher"]},
        "request_id": "perf", "deadline_ms": int((time.time() + 30) * 1000),
    })  # fmt: skip
    assert outcome["ok"], outcome
    return outcome


@pytest.mark.parametrize(("tool", "arguments", "budget"), BUDGETS, ids=[tool for tool, *_ in BUDGETS])
def test_a_warm_call_stays_within_its_round_trips(
    project: str, bolt_writes: list[bytes], tool: str, arguments: dict[str, Any], budget: int
) -> None:
    for _ in range(2):  # warm: keys resolved, connections pooled, plans cached
        call(tool, arguments, project)
    bolt_writes.clear()
    call(tool, arguments, project)
    assert len(bolt_writes) <= budget, f"{tool}: {len(bolt_writes)} round trips, budget {budget}"
