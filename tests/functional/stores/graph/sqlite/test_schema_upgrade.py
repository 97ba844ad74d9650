"""SQLite: a graph written by the previous schema (version 2, before the body field) is upgraded in
place when opened: its nodes stay searchable, and a node written afterwards is found by its body."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from rhumbline.stores.graph.model import GraphBatch
from rhumbline.stores.graph.sqlite import sql
from rhumbline.stores.graph.sqlite.store import SqliteGraphStore
from tests.functional.stores.graph.graph_samples import node


def _as_version_2(path: Path) -> None:
    """The file as version 2 left it: no body column, no body index, its triggers gone."""
    conn = sqlite3.connect(path)
    for (trigger,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'body_fts%'"):
        conn.execute(f"DROP TRIGGER {trigger}")
    conn.execute("DROP TABLE body_fts")
    conn.execute("ALTER TABLE nodes DROP COLUMN body_terms")
    conn.execute("PRAGMA user_version = 2")
    conn.commit()
    conn.close()


def test_a_version_2_graph_is_upgraded_in_place(tmp_path: Path) -> None:
    path = tmp_path / "graph.sqlite3"
    old = SqliteGraphStore(path)
    old.ensure_schema()
    kept = node("Function", "pkg.pool.acquire_connection", "pkg/pool.py")
    old.apply("p", GraphBatch(nodes=[kept], edges=[], clear=True, version=1))
    old.close()
    _as_version_2(path)

    store = SqliteGraphStore(path)
    store.ensure_schema()

    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone() == (sql.SCHEMA_VERSION,)
    conn.close()
    assert [hit.node.id for hit in store.search(["p"], "acquire_connection")[0]] == [kept.id]
    bodied = replace(node("Function", "pkg.pool.release", "pkg/pool.py"), body="marmalade reservoir")
    store.apply("p", GraphBatch(nodes=[kept, bodied], edges=[], clear=True, version=2))
    assert [hit.node.id for hit in store.search(["p"], "marmalade")[0]] == [bodied.id]
    store.close()


def test_an_unknown_version_is_refused_with_the_remedy(tmp_path: Path) -> None:
    path = tmp_path / "graph.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 1")
    conn.close()
    with pytest.raises(RuntimeError, match="graph schema version 1; .*delete the file and re-ingest"):
        SqliteGraphStore(path).ensure_schema()
