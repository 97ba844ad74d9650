"""Every graph-store test runs on both backends: a SQLite file and the real Neo4j server.

On Neo4j, tests share one database and stay apart through unique project slugs, deleted after
each test. Both backends must give identical answers, so the expected values are shared.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from rhumbline.stores.graph.protocol import GraphStore

BACKENDS = ["sqlite", pytest.param("neo4j", marks=pytest.mark.neo4j)]


@pytest.fixture(scope="session")
def neo4j_graph_store(neo4j_server: dict[str, str]) -> Iterator[GraphStore]:
    from rhumbline.stores.graph.neo4j.store import Neo4jGraphStore

    store = Neo4jGraphStore(
        neo4j_server["uri"], neo4j_server["user"], neo4j_server["password"], timeout=10.0
    )
    store.ensure_schema()
    yield store
    store.close()


@pytest.fixture
def project(unique_project: str) -> str:
    return unique_project


@pytest.fixture
def other_project() -> str:
    """A second project that sorts after `project` (ties between projects break on the slug)."""
    return f"test/q{uuid.uuid4().hex[:12]}"


@pytest.fixture(params=BACKENDS)
def graph_store(
    request: pytest.FixtureRequest, tmp_path: Path, project: str, other_project: str
) -> Iterator[GraphStore]:
    if request.param == "sqlite":
        from rhumbline.stores.graph.sqlite.store import SqliteGraphStore

        store = SqliteGraphStore(tmp_path / "graph.sqlite3", timeout=10.0)
        store.ensure_schema()
        yield store
        store.close()
        return
    store = request.getfixturevalue("neo4j_graph_store")
    yield store
    for slug in (project, other_project):
        store.delete_project(slug)
