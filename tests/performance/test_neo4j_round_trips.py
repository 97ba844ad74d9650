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
from dataclasses import dataclass
from typing import Any

import pytest

from rhumbline.contract import INVOCATION_CONTRACT
from rhumbline.config import settings
from rhumbline.runtime.context import Stores
from rhumbline.runtime.handler import handle
from rhumbline.stores.graph.model import GraphBatch
from tests.functional.tools.code_context import shop_graph
from tests.stores import neo4j_settings, opened_stores, sqlite_url

pytestmark = pytest.mark.neo4j

# (tool, arguments) -> Bolt round trips of one warm call.
BUDGETS: list[tuple[str, dict[str, Any], int]] = [
    ("get_node", {"node_id": shop_graph.CHECKOUT.id}, 1),
    # Two: the probes' counts decide which words select candidates (ranking.weigh), then the candidates.
    ("search", {"query": "checkout"}, 2),
    ("context", {"file": "shop/services.py"}, 1),
    # One: the bundle holds their subjects' own CALLS edges too (recursion, which the walks
    # cannot list: they reach each node once).
    ("function", {"name": "shop.services.checkout", "depth": 2}, 1),
    ("class", {"name": "Product"}, 1),
    ("explain", {"name": "Product.save"}, 1),
    # Its seeds are a search: one more than its walk.
    ("query_graph", {"question": "checkout"}, 15),
    ("trace_path", {"from_node": "shop.services.checkout", "to_node": "shop.base.Model.save"}, 10),
    ("blast_radius", {"node_id": "shop.base.Model.save", "depth": 2}, 13),
    ("query", {"cypher": "RETURN 1 AS one"}, 3),
]


@dataclass(frozen=True)
class Project:
    slug: str
    stores: Stores


@pytest.fixture(scope="module")
def project(neo4j_server: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    home = tmp_path_factory.mktemp("round-trips")
    slug = f"perf/trips{uuid.uuid4().hex[:10]}"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RHUMBLINE_HOME", str(home))
        patch.setenv("RHUMBLINE_MODE", "local")
        settings.cache_clear()
        from rhumbline.stores.relational import projects
        from rhumbline.stores.relational.session import session_scope

        with opened_stores(sqlite_url(home), neo4j_settings(neo4j_server)) as stores:
            with session_scope(stores.relational()) as session:
                projects.get_or_create(session, slug)
            graph = stores.graph()
            graph.apply(slug, GraphBatch(nodes=shop_graph.NODES, edges=shop_graph.EDGES, clear=True))
            try:
                yield Project(slug, stores)
            finally:
                graph.delete_project(slug)
                settings.cache_clear()


def call(tool: str, arguments: dict[str, Any], project: Project) -> dict[str, Any]:
    outcome = handle(tool, {
        "contract": INVOCATION_CONTRACT, "tool": tool, "arguments": {**arguments, "project": project.slug},
        "caller": {"principal": "perf", "token_id": "tk_perf", "projects": [project.slug], "scopes": ["read", "cypher"]},
        "request_id": "perf", "deadline_ms": int((time.time() + 30) * 1000),
    }, project.stores)  # fmt: skip
    assert outcome["ok"], outcome
    return outcome


@pytest.mark.parametrize(("tool", "arguments", "budget"), BUDGETS, ids=[tool for tool, *_ in BUDGETS])
def test_a_warm_call_stays_within_its_round_trips(
    project: Project, bolt_writes: list[bytes], tool: str, arguments: dict[str, Any], budget: int
) -> None:
    for _ in range(2):  # warm: keys resolved, connections pooled, plans cached
        call(tool, arguments, project)
    bolt_writes.clear()
    call(tool, arguments, project)
    assert len(bolt_writes) <= budget, f"{tool}: {len(bolt_writes)} round trips, budget {budget}"
