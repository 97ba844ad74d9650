"""A clearing write's snapshot encoded by a forked child (ingest/snapshot_ahead.py): the bytes
the ingest encoded in-process before, a soft fall-back, and the failure rules of storing it after
the write."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine

from rhumbline import forked
from rhumbline.ingest import snapshot_ahead, snapshots
from rhumbline.ingest.build import build_graph
from rhumbline.ingest.partitioned import Partitioned
from rhumbline.ingest.pipeline import ingest_local
from rhumbline.ingest.snapshots import Snapshot
from rhumbline.stores.graph.sqlite.store import SqliteGraphStore
from rhumbline.stores.relational import versions
from rhumbline.stores.relational.session import session_scope

PROJECT = "acme/snapshot-ahead"
INPUTS = {
    "files": {"a.py": ("python", "h", 3, None)}, "unresolved": {"a.py": 1}, "context": ("c", "h"),
    "read_ns": 7,
}  # fmt: skip


def test_the_child_encodes_what_this_process_would(pyproj: Path) -> None:
    built = build_graph(pyproj, PROJECT, history=False)
    child = snapshot_ahead.start(PROJECT, built.nodes, built.edges, INPUTS)
    assert child is not None

    (blob, node_count, edge_count), ahead = snapshot_ahead.result(child, built.nodes, built.edges, INPUTS)

    snapshot = Snapshot.of(built.nodes, built.edges)  # what the pipeline encoded before the write
    assert blob == Partitioned.of(snapshot.nodes, snapshot.edges, **INPUTS).encode()
    assert (node_count, edge_count) == (len(snapshot.nodes), len(snapshot.edges)) != (0, 0)
    assert ahead is not None and ahead.result() is not None  # the scores, computed next


def test_a_child_that_fails_leaves_the_encoding_to_this_process(pyproj: Path) -> None:
    built = build_graph(pyproj, PROJECT, history=False)

    def dies(*_args: object) -> None:
        raise SystemExit(3)

    child = forked.start(dies, (), seconds=5.0, expected=tuple, what="the snapshot")
    assert child is not None
    found, ahead = snapshot_ahead.result(child, built.nodes, built.edges, INPUTS)
    assert found == snapshot_ahead.encode(built.nodes, built.edges, INPUTS) and ahead is None


def test_without_a_child_the_ingest_stores_the_same_snapshot(
    pyproj: Path, graph_store: SqliteGraphStore, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    ingest_local(pyproj, PROJECT, store=graph_store, engine=engine, history=False)
    with_child = snapshots.load(engine, PROJECT, 1)
    monkeypatch.setattr(forked, "room_for", lambda copies: False)  # no fork at all
    ingest_local(pyproj, PROJECT, store=graph_store, engine=engine, history=False, clear=True)
    assert snapshots.load(engine, PROJECT, 2) == with_child
    assert with_child is not None and with_child.nodes


def test_a_snapshot_not_stored_after_the_write_fails_the_version_and_the_next_ingest_clears(
    pyproj: Path, graph_store: SqliteGraphStore, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_save = snapshots.save

    def failing_save(*args: object, **kwargs: object) -> int:
        raise RuntimeError("injected snapshot failure")

    monkeypatch.setattr(snapshots, "save", failing_save)
    with pytest.raises(RuntimeError, match="injected snapshot failure"):
        ingest_local(pyproj, PROJECT, store=graph_store, engine=engine, history=False)
    # The write happened: the store is at version 1, which has no snapshot to diff against.
    assert graph_store.graph_version(PROJECT) == 1
    assert snapshots.load_blob(engine, PROJECT, 1) is None
    with session_scope(engine) as session:
        assert [(v.version, v.status) for v in versions.list_for(session, PROJECT)] == [(1, "failed")]

    monkeypatch.setattr(snapshots, "save", real_save)
    summary = ingest_local(pyproj, PROJECT, store=graph_store, engine=engine, history=False)
    # Version 1 has no snapshot: nothing to diff against, a clearing write again.
    assert (summary.version, summary.changes.mode, summary.changes.nodes_removed) == (2, "full", 0)
    assert graph_store.counts(PROJECT).nodes == summary.node_count > 0
    assert snapshots.load(engine, PROJECT, 2) is not None


def _two_then_dies(big: int) -> object:
    yield ("first", "x" * big)  # larger than a pipe holds: written by the child's thread
    yield ("second",)
    raise SystemExit(3)


def test_a_child_sends_its_values_in_turn_and_a_failure_after_them_is_soft() -> None:
    child = forked.start(_two_then_dies, (1 << 20,), seconds=5.0, expected=tuple, what="values")
    assert child is not None
    first = child.take(tuple)
    assert first is not None and first[0] == "first" and len(first[1]) == 1 << 20
    assert child.result() == ("second",)


def test_a_missing_early_value_stops_the_child_and_its_result_is_none() -> None:
    child = forked.start(_two_then_dies, (10,), seconds=5.0, expected=tuple, what="values")
    assert child is not None
    assert child.take(dict) is None  # something else came: the child is stopped
    assert child.result() is None
