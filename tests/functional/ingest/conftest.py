"""Real stores for ingest tests: a SQLite graph file and a migrated SQLite relational database."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from rhumbline.stores.graph.sqlite_store import SqliteGraphStore
from rhumbline.stores.relational.engine import create_engine_from_url
from rhumbline.stores.relational.migrate import upgrade

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
