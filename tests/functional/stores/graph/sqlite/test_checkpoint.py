"""SQLite: a clearing write's WAL is checkpointed after its COMMIT, on another thread
(sqlite/checkpoint.py), not inside it; readers see the new version at once either way."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from rhumbline.stores.graph.model import GraphBatch
from rhumbline.stores.graph.sqlite.store import SqliteGraphStore
from tests.functional.stores.graph.graph_samples import edge, node

NODES = [node("Function", f"pkg.mod{i % 20}.f{i}", f"pkg/mod{i % 20}.py") for i in range(3_000)]
EDGES = [edge(NODES[i].id, NODES[i + 1].id) for i in range(len(NODES) - 1)]


class _NoCheckpoint:
    def start(self) -> None:
        pass

    def wait(self, timeout: float | None = None) -> bool:
        return True


def test_a_clearing_write_commits_without_checkpointing_then_a_thread_checkpoints(tmp_path: Path) -> None:
    path = tmp_path / "graph.sqlite3"
    held = SqliteGraphStore(path)
    held.ensure_schema()
    held._checkpoints = _NoCheckpoint()  # noqa: SLF001 — the COMMIT alone, as the write left it
    # A threshold this write passes (SQLite's default, 1000 pages, is more than it writes).
    held._connection().execute("PRAGMA wal_autocheckpoint = 50")  # noqa: SLF001
    held.apply("p", GraphBatch(nodes=NODES, edges=EDGES, clear=True, version=1))
    size_after_commit = path.stat().st_size
    conn = sqlite3.connect(path)
    # Committed and visible to another connection before any checkpoint ran.
    assert conn.execute("SELECT count(*) FROM nodes WHERE project = 'p'").fetchone() == (len(NODES),)
    busy, logged, copied = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    conn.close()
    assert busy == 0 and logged > 100 and copied == logged  # the COMMIT had left it all in the WAL
    assert path.stat().st_size > size_after_commit
    # The write connection's automatic checkpoint is back to what it was.
    assert held._connection().execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 50  # noqa: SLF001
    held.close()


def test_the_background_checkpoint_copies_the_wal_into_the_file(tmp_path: Path) -> None:
    path = tmp_path / "graph.sqlite3"
    store = SqliteGraphStore(path)
    store.ensure_schema()
    empty = path.stat().st_size
    store.apply("p", GraphBatch(nodes=NODES, edges=EDGES, clear=True, version=1))
    assert store.counts("p").nodes == len(NODES)  # readable at once, checkpointed or not
    assert store._checkpoints.wait(30)  # noqa: SLF001
    # The thread copied the write's pages into the file (the COMMIT left them in the WAL).
    assert path.stat().st_size > empty + 100 * 4096
    store.close()


@pytest.mark.parametrize("clear", [False, True])
def test_a_failed_write_starts_no_checkpoint_and_restores_the_automatic_one(tmp_path: Path, clear: bool) -> None:
    store = SqliteGraphStore(tmp_path / "graph.sqlite3")
    store.ensure_schema()
    started: list[bool] = []
    store._checkpoints.start = lambda: started.append(True)  # type: ignore[method-assign]  # noqa: SLF001
    bad = [*EDGES[:10], edge(NODES[0].id, NODES[1].id, confidence="WRONG")]
    with pytest.raises(ValueError):
        store.apply("p", GraphBatch(nodes=NODES[:20], edges=bad, clear=clear))
    assert started == []
    assert store._connection().execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 1000  # noqa: SLF001
    assert store.counts("p").nodes == 0
    store.apply("p", GraphBatch(nodes=NODES[:20], clear=clear))
    assert started == ([True] if clear else [])
    store.close()


def test_an_incremental_write_keeps_the_automatic_checkpoint(tmp_path: Path) -> None:
    store = SqliteGraphStore(tmp_path / "graph.sqlite3")
    store.ensure_schema()
    traced: list[str] = []
    store._connection().set_trace_callback(traced.append)  # noqa: SLF001
    store.apply("p", GraphBatch(nodes=NODES[:50]))
    assert not [s for s in traced if "wal_autocheckpoint" in s]
    store.close()
