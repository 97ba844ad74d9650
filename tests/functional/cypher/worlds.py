"""Both deployment shapes holding the same graphs, for `query` answered by both backends.

- embedded: SQLite relational store + the SQLite graph store;
- production: PostgreSQL + Neo4j (a full write stages every graph under a physical key).

Each holds three projects built by the real ingester from the fixture repositories: `mine`
(tests/fixtures/ingest/pyproj, made a git checkout so it has Contributor nodes and MODIFIED edges
with properties), `also_mine` (the Go fixture, with IMPLEMENTS edges), and `marker` (the Java
fixture plus nodes, a relationship type and an edge property spelled with MARKER), which the
token under test cannot see. `ask()` calls the real tool handler with the world's own stores
(tests/stores.py): a SQLite pair in the test's directory, or a fresh PostgreSQL database and the
test Neo4j server.
"""

from __future__ import annotations

import os
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from tests.stores import embedded_stores, production_stores

from rhumbline.contract import INVOCATION_CONTRACT
from rhumbline.stores.graph.model import Edge, GraphBatch, Node

FIXTURES = Path(__file__).parents[2] / "fixtures" / "ingest"
MARKER = f"zqmarker{uuid.uuid4().hex[:8]}"


@dataclass
class World:
    shape: str
    mine: str
    also_mine: str
    marker: str
    ask: Callable[..., dict]


def _checkout(tmp: Path) -> Path:
    """The pyproj fixture as a git checkout with one fixed commit (deterministic history)."""
    import shutil

    root = tmp / "pyproj"
    shutil.copytree(FIXTURES / "pyproj", root)
    env = {
        **os.environ, "GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com",
        "GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.com",
        "GIT_AUTHOR_DATE": "2024-01-02T03:04:05Z", "GIT_COMMITTER_DATE": "2024-01-02T03:04:05Z",
    }  # fmt: skip
    for command in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-q", "-m", "one"]):
        subprocess.run(command, cwd=root, env=env, check=True, capture_output=True)
    return root


def graphs(tmp: Path, names: tuple[str, str, str]) -> dict[str, GraphBatch]:
    from rhumbline.ingest.build import build_graph

    mine, also_mine, marker = names
    built = {
        mine: build_graph(_checkout(tmp), mine, history=True),
        also_mine: build_graph(FIXTURES / "go", also_mine, history=False),
        marker: build_graph(FIXTURES / "java", marker, history=False),
    }
    batches = {name: GraphBatch(nodes=list(b.nodes), edges=list(b.edges), clear=True) for name, b in built.items()}
    secret = Node(
        f"function:{MARKER}.py:{MARKER}", "Function", MARKER, f"{MARKER}.{MARKER}", f"{MARKER}.py", 1, 2,
        "python", f"def {MARKER}()", f"The {MARKER} docstring.",
    )  # fmt: skip
    target = batches[marker].nodes[0].id
    batches[marker].nodes.append(secret)
    batches[marker].edges.append(
        Edge(secret.id, target, "SECRET_LINK", "EXTRACTED", 1.0, f"{MARKER} link", properties={"zz_" + MARKER: MARKER})
    )
    return batches


def project_names() -> tuple[str, str, str]:
    """Slugs unique to a test run (the Neo4j database is shared), the same on both shapes."""
    suffix = uuid.uuid4().hex[:8]
    return f"acme{suffix}/shop", f"acme{suffix}/go", f"rival{suffix}/{MARKER}"


@contextmanager
def world(shape: str, tmp: Path, request: pytest.FixtureRequest, names: tuple[str, str, str]) -> Iterator[World]:
    from rhumbline.runtime.handler import handle
    from rhumbline.stores.relational import projects
    from rhumbline.stores.relational.session import session_scope

    if shape == "embedded":
        opening = embedded_stores(tmp / shape)
    else:
        from tests.pg_database import fresh_database_url

        url, drop = fresh_database_url(request.getfixturevalue("postgres_url"), f"rhumbline_cypher_{uuid.uuid4().hex[:8]}")
        request.addfinalizer(drop)
        opening = production_stores(url, request.getfixturevalue("neo4j_server"))
    with opening as stores:
        with session_scope(stores.relational()) as session:
            for name in names:
                projects.get_or_create(session, name)
        graph = stores.graph()
        for name, batch in graphs(tmp / shape, names).items():
            graph.apply(name, batch)

        def ask(cypher: str, params: dict | None = None, *, projects=names[:2], scopes=("read", "cypher"), **extra: Any) -> dict:
            arguments = {"cypher": cypher, "params": params or {}, "limit": 1000, **extra}
            return handle(
                "query",
                {
                    "contract": INVOCATION_CONTRACT,
                    "tool": "query",
                    "arguments": arguments,
                    "caller": {"principal": "tester", "token_id": "tk_test", "projects": list(projects), "scopes": list(scopes)},
                    "request_id": f"req-{uuid.uuid4().hex[:8]}",
                    "deadline_ms": int((time.time() + 30) * 1000),
                },
                stores,
            )

        try:
            yield World(shape, names[0], names[1], names[2], ask)
        finally:
            for name in names:
                graph.delete_project(name)
