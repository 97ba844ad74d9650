"""Real stores for ingest tests: a SQLite graph file and a migrated SQLite relational database, and
`store`: each test on the SQLite and on the Neo4j graph store."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from rhumbline.stores.graph.protocol import GraphStore
from rhumbline.stores.graph.sqlite.store import SqliteGraphStore
from rhumbline.stores.relational.engine import create_engine_from_url
from rhumbline.stores.relational.migrate import upgrade

BACKENDS = ["sqlite", pytest.param("neo4j", marks=pytest.mark.neo4j)]
FIXTURE = Path(__file__).parents[2] / "fixtures" / "ingest" / "pyproj"


@pytest.fixture
def pyproj(tmp_path: Path) -> Path:
    root = tmp_path / "pyproj"
    shutil.copytree(FIXTURE, root)
    return root


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = create_engine_from_url(f"sqlite:///{tmp_path / 'rhumbline.sqlite3'}")
    upgrade(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def graph_store(tmp_path: Path) -> Iterator[SqliteGraphStore]:
    store = SqliteGraphStore(tmp_path / "graph.sqlite3")
    store.ensure_schema()
    yield store
    store.close()


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path, unique_project: str) -> Iterator[GraphStore]:
    if request.param == "sqlite":
        sqlite = SqliteGraphStore(tmp_path / "graph.sqlite3")
        sqlite.ensure_schema()
        yield sqlite
        sqlite.close()
        return
    from rhumbline.stores.graph.neo4j.store import Neo4jGraphStore

    server = request.getfixturevalue("neo4j_server")
    neo4j = Neo4jGraphStore(server["uri"], server["user"], server["password"], timeout=20.0)
    neo4j.ensure_schema()
    yield neo4j
    neo4j.delete_project(unique_project)
    neo4j.close()
