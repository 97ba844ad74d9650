"""Incremental, versioned ingest end to end, on the SQLite and the Neo4j graph stores.

The key invariant: after any change, an incremental re-ingest leaves exactly the graph a
from-scratch ingest of the new tree gives (every node and edge, every attribute), and no edge
from an unchanged file is lost.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from sqlalchemy import Engine, update

from rhumbline.ingest import pipeline
from rhumbline.ingest.snapshots import changes as graph_changes
from rhumbline.ingest.snapshots import storage
from rhumbline.ingest.snapshots.diff import VersionNotDiffable, diff_versions
from rhumbline.ingest.snapshots.records import Snapshot
from rhumbline.stores.graph.model import Edge, GraphBatch
from rhumbline.stores.graph.protocol import GraphConflict, GraphStore
from rhumbline.stores.relational import versions
from rhumbline.stores.relational.schema.ingest import GraphSnapshot
from rhumbline.stores.relational.session import session_scope
from tests.functional.ingest.graph_dump import dump
from tests.functional.ingest.sample_app import LIBRARY

A_PY = """\
from pkg.b import Base, doomed, future, helper, mover
from pkg import b


class Child(Base):
    def run(self):
        helper()
        mover()
        doomed()
        future()
        return b.helper()
"""
B_V1 = LIBRARY + """

def doomed():
    return 3
"""
# helper's body changes, mover moves down, doomed goes, future appears (a.py's call to it was
# unresolved until now).
B_V2 = """\
class Base:
    def base_method(self):
        return 1


def helper():
    return 1 + 1


# mover moved down


def mover():
    return 2


def future():
    return 4
"""
C_PY = """\
from pkg.a import Child


def make():
    return Child().run()
"""
README = """\
# App

See [mover's file](pkg/b.py#L10) and `Base.base_method`, `doomed`, `future`.
"""

RUN = "method:pkg/a.py:Child.run"


def write_app(root: Path, b_source: str = B_V1) -> Path:
    files = {
        "pkg/__init__.py": "",
        "pkg/a.py": A_PY,
        "pkg/b.py": b_source,
        "pkg/c.py": C_PY,
        "README.md": README,
    }
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.fixture
def app(tmp_path: Path) -> Path:
    return write_app(tmp_path / "app")


def ingest(root: Path, store: GraphStore, engine: Engine, project: str, **options):
    return pipeline.ingest_local(root, project, store=store, engine=engine, **options)


def calls_from_run(edges: dict) -> set[str]:
    return {target for (source, relation, target) in edges if source == RUN and relation == "CALLS"}


def test_incremental_equals_a_full_rebuild_and_keeps_incoming_edges(
    app: Path, store: GraphStore, engine: Engine, unique_project: str
) -> None:
    first = ingest(app, store, engine, unique_project)
    nodes_v1, edges_v1 = dump(store, unique_project)
    assert first.changes.mode == "full" and first.changes.files_parsed == 5
    assert calls_from_run(edges_v1) == {
        "function:pkg/b.py:helper", "function:pkg/b.py:mover", "function:pkg/b.py:doomed",
    }  # fmt: skip
    (app / "pkg" / "b.py").write_text(B_V2)

    second = ingest(app, store, engine, unique_project)

    changes = second.changes
    assert (changes.mode, changes.base_version) == ("incremental", 1)
    assert (changes.files_parsed, changes.files_reused) == (1, 4)
    nodes_v2, edges_v2 = dump(store, unique_project)
    # Incoming edges from the unchanged a.py: kept, gone with their target, or gained.
    assert calls_from_run(edges_v2) == {
        "function:pkg/b.py:helper", "function:pkg/b.py:mover", "function:pkg/b.py:future",
    }  # fmt: skip
    assert edges_v2[(RUN, "CALLS", "function:pkg/b.py:mover")] == edges_v1[(RUN, "CALLS", "function:pkg/b.py:mover")]
    assert nodes_v1["function:pkg/b.py:mover"][4:6] == (10, 11)
    assert nodes_v2["function:pkg/b.py:mover"][4:6] == (13, 14)  # moved with its function
    assert ("class:pkg/a.py:Child", "INHERITS", "class:pkg/b.py:Base") in edges_v2
    assert ("function:pkg/c.py:make", "CALLS", "class:pkg/a.py:Child") in edges_v2
    assert "function:pkg/b.py:doomed" not in nodes_v2
    # The README's mentions follow the code too.
    assert ("document:README.md", "DOCUMENTS", "function:pkg/b.py:future") in edges_v2
    assert ("document:README.md", "DOCUMENTS", "function:pkg/b.py:doomed") not in edges_v2
    assert (changes.nodes_added, changes.nodes_removed) == (1, 1)
    assert (changes.edges_added, changes.edges_removed) == (len(edges_v2.keys() - edges_v1.keys()), len(edges_v1.keys() - edges_v2.keys()))

    rebuilt = ingest(app, store, engine, unique_project, clear=True)

    assert rebuilt.changes.mode == "full" and rebuilt.changes.files_parsed == 5
    assert dump(store, unique_project) == (nodes_v2, edges_v2)
    assert (rebuilt.node_count, rebuilt.edge_count) == (len(nodes_v2), len(edges_v2))
    assert store.graph_version(unique_project) == 3


def test_a_no_change_reingest_writes_nothing_and_keeps_the_same_snapshot(
    app: Path, store: GraphStore, engine: Engine, unique_project: str
) -> None:
    ingest(app, store, engine, unique_project)
    before = dump(store, unique_project)

    again = ingest(app, store, engine, unique_project)

    changes = again.changes
    assert (changes.mode, changes.files_parsed, changes.files_reused) == ("unchanged", 0, 5)
    counted = (changes.nodes_added, changes.nodes_changed, changes.nodes_removed,
               changes.edges_added, changes.edges_changed, changes.edges_removed)  # fmt: skip
    assert counted == (0, 0, 0, 0, 0, 0)
    assert dump(store, unique_project) == before
    assert store.graph_version(unique_project) == 2
    # The same chunks, byte for byte (only the files' stat stamps are refreshed).
    first, second = (storage.load_partitioned(engine, unique_project, v) for v in (1, 2))
    assert second.chunks == first.chunks and second.read_ns > first.read_ns
    empty = diff_versions(engine, unique_project)
    assert (empty.from_version, empty.to_version, empty.counts.nodes_added, empty.counts.edges_removed) == (1, 2, 0, 0)


def test_diff_of_two_versions_is_exact(app: Path, store: GraphStore, engine: Engine, unique_project: str) -> None:
    ingest(app, store, engine, unique_project)
    nodes_v1, edges_v1 = dump(store, unique_project)
    (app / "pkg" / "b.py").write_text(B_V2)
    ingest(app, store, engine, unique_project)
    nodes_v2, edges_v2 = dump(store, unique_project)

    diff = diff_versions(engine, unique_project)  # the last two: 1 → 2

    assert (diff.from_version, diff.to_version) == (1, 2)
    assert [n.id for n in diff.nodes_added] == ["function:pkg/b.py:future"]
    assert [(n.id, n.start_line, n.end_line) for n in diff.nodes_removed] == [("function:pkg/b.py:doomed", 14, 15)]
    changed = {c.id: set(c.changes) for c in diff.nodes_changed}
    assert changed == {
        "file:pkg/b.py": {"end_line", "content_hash"},
        "module:pkg.b": {"end_line", "content_hash"},
        "function:pkg/b.py:helper": {"content_hash"},
        "function:pkg/b.py:mover": {"start_line", "end_line"},
    }
    mover = next(c for c in diff.nodes_changed if c.id == "function:pkg/b.py:mover")
    assert {name: (c.before, c.after) for name, c in mover.changes.items()} == {
        "start_line": (10, 13), "end_line": (11, 14),
    }  # fmt: skip
    assert {(e.source, e.relation, e.target) for e in diff.edges_added} == edges_v2.keys() - edges_v1.keys()
    assert {(e.source, e.relation, e.target) for e in diff.edges_removed} == edges_v1.keys() - edges_v2.keys()
    assert {(e.source, e.relation, e.target) for e in diff.edges_changed} == {
        k for k in edges_v1.keys() & edges_v2.keys() if edges_v1[k] != edges_v2[k]
    }
    assert (diff.counts.nodes_before, diff.counts.nodes_after) == (len(nodes_v1), len(nodes_v2))
    assert (diff.counts.edges_before, diff.counts.edges_after) == (len(edges_v1), len(edges_v2))
    assert diff_versions(engine, unique_project, 2, 1).counts.nodes_added == 1  # backwards too
    with pytest.raises(VersionNotDiffable):
        diff_versions(engine, unique_project, 1, 9)


def test_a_failure_inside_the_write_leaves_the_previous_version_intact(
    app: Path, store: GraphStore, engine: Engine, unique_project: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ingest(app, store, engine, unique_project)
    before = dump(store, unique_project)
    blob = storage.load_blob(engine, unique_project, 1)
    (app / "pkg" / "b.py").write_text(B_V2)
    real_batch = graph_changes.GraphChanges.batch

    def poisoned(self, **stamp):
        # Removals and node upserts run first; this edge fails its check mid-transaction.
        batch = real_batch(self, **stamp)
        bad = Edge("x", "y", "not a relation", "EXTRACTED", 1.0, "injected failure")
        return dataclasses.replace(batch, edges=[*batch.edges, bad])

    monkeypatch.setattr(graph_changes.GraphChanges, "batch", poisoned)
    with pytest.raises(ValueError, match="relation"):
        ingest(app, store, engine, unique_project)

    assert dump(store, unique_project) == before
    assert store.graph_version(unique_project) == 1
    assert storage.load_blob(engine, unique_project, 1) == blob
    assert storage.load_blob(engine, unique_project, 2) is None
    with session_scope(engine) as session:
        listed = versions.list_for(session, unique_project)
        assert [(v.version, v.status) for v in listed] == [(2, "failed"), (1, "completed")]
        assert "relation" in listed[0].error
    monkeypatch.undo()
    recovered = ingest(app, store, engine, unique_project)
    assert (recovered.version, recovered.changes.mode, recovered.changes.base_version) == (3, "incremental", 1)
    assert diff_versions(engine, unique_project).from_version == 1


def test_a_stamp_moved_by_someone_else_refuses_the_write(
    app: Path, store: GraphStore, engine: Engine, unique_project: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ingest(app, store, engine, unique_project)
    before = dump(store, unique_project)
    (app / "pkg" / "b.py").write_text(B_V2)
    real_save = storage.save

    def racing_save(*args, **kwargs):
        # Another writer lands between this ingest's diff and its write.
        store.apply(unique_project, GraphBatch(version=41))
        return real_save(*args, **kwargs)

    monkeypatch.setattr(storage, "save", racing_save)
    with pytest.raises(GraphConflict, match="version 41"):
        ingest(app, store, engine, unique_project)
    monkeypatch.undo()
    assert dump(store, unique_project) == before
    with session_scope(engine) as session:
        assert versions.latest(session, unique_project).status == "failed"
    # The stamp names a version without a snapshot: the next ingest rewrites the whole graph.
    full = ingest(app, store, engine, unique_project)
    assert (full.changes.mode, full.changes.base_version) == ("full", 41)
    assert store.graph_version(unique_project) == 3
    assert calls_from_run(dump(store, unique_project)[1]) == {
        "function:pkg/b.py:helper", "function:pkg/b.py:mover", "function:pkg/b.py:future",
    }  # fmt: skip


def test_a_snapshot_that_cannot_be_stored_fails_a_first_ingest_before_the_write(
    app: Path, store: GraphStore, engine: Engine, unique_project: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing_save(*args, **kwargs):
        raise RuntimeError("injected snapshot failure")

    monkeypatch.setattr(storage, "save", failing_save)
    with pytest.raises(RuntimeError, match="injected snapshot failure"):
        ingest(app, store, engine, unique_project)
    monkeypatch.undo()
    assert store.graph_version(unique_project) is None
    assert store.counts(unique_project).nodes == 0
    with session_scope(engine) as session:
        assert [(v.version, v.status) for v in versions.list_for(session, unique_project)] == [(1, "failed")]
    summary = ingest(app, store, engine, unique_project)
    assert (summary.version, summary.changes.mode) == (2, "full")
    assert storage.load(engine, unique_project, 2) is not None


def test_a_snapshot_of_an_older_format_counts_as_none(
    app: Path, store: GraphStore, engine: Engine, unique_project: str
) -> None:
    ingest(app, store, engine, unique_project)
    with session_scope(engine) as session:
        session.execute(update(GraphSnapshot).values(format=2))
    assert storage.load_stored(engine, unique_project, 1) is None
    with pytest.raises(VersionNotDiffable):
        diff_versions(engine, unique_project, 1, 1)
    rewritten = ingest(app, store, engine, unique_project)
    assert (rewritten.changes.mode, rewritten.changes.base_version) == ("full", 1)
    assert dump(store, unique_project)[0] and storage.versions_with_snapshots(engine, unique_project) == [2]


def test_retention_prunes_old_versions_and_their_snapshots(
    app: Path, store: GraphStore, engine: Engine, unique_project: str
) -> None:
    for _ in range(4):
        last = ingest(app, store, engine, unique_project, retention=2)
    assert last.changes.pruned_versions == 1
    assert storage.versions_with_snapshots(engine, unique_project) == [4, 3]
    with pytest.raises(VersionNotDiffable):
        diff_versions(engine, unique_project, 1, 4)


KILLED_INGEST = """
import sys, time
from pathlib import Path
from rhumbline.ingest.pipeline import ingest_local
from rhumbline.stores.graph.sqlite.store import SqliteGraphStore
from rhumbline.stores.relational.engine import create_engine_from_url

root, graph, database, project, flag = sys.argv[1:6]
real = SqliteGraphStore._write_edges

def stalled(self, *args):
    real(self, *args)  # nodes and edges written, transaction still open
    Path(flag).write_text("writing")
    time.sleep(60)

SqliteGraphStore._write_edges = stalled
ingest_local(Path(root), project, store=SqliteGraphStore(graph), engine=create_engine_from_url(database))
"""


def test_a_killed_ingest_leaves_the_previous_version_queryable(
    app: Path, engine: Engine, tmp_path: Path, unique_project: str
) -> None:
    from rhumbline.stores.graph.sqlite.store import SqliteGraphStore

    graph = tmp_path / "killed.sqlite3"
    store = SqliteGraphStore(graph)
    store.ensure_schema()
    ingest(app, store, engine, unique_project)
    before = dump(store, unique_project)
    (app / "pkg" / "b.py").write_text(B_V2)
    flag = tmp_path / "flag"
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_INGEST, str(app), str(graph), str(engine.url), unique_project, str(flag)],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    try:
        deadline = time.monotonic() + 60
        while not flag.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert flag.exists(), "the child never reached the write"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()

    assert dump(store, unique_project) == before
    assert store.graph_version(unique_project) == 1
    with session_scope(engine) as session:
        assert [(v.version, v.status) for v in versions.list_for(session, unique_project)] == [
            (2, "running"), (1, "completed"),
        ]  # fmt: skip
    assert storage.versions_with_snapshots(engine, unique_project) == [1]
    # The killed ingest ran on this machine: its lease is released at once, its version failed.
    resumed = ingest(app, store, engine, unique_project)
    assert (resumed.version, resumed.changes.base_version) == (3, 1)
    with session_scope(engine) as session:
        killed = versions.list_for(session, unique_project)[1]
        assert (killed.version, killed.status) == (2, "failed") and killed.error.startswith("abandoned: its ingest")
    after = dump(store, unique_project)
    ingest(app, store, engine, unique_project, clear=True)
    assert dump(store, unique_project) == after
    store.close()


def test_snapshots_equal_the_stored_graph(app: Path, store: GraphStore, engine: Engine, unique_project: str) -> None:
    ingest(app, store, engine, unique_project)
    (app / "pkg" / "b.py").write_text(B_V2)
    ingest(app, store, engine, unique_project)
    nodes, edges = dump(store, unique_project)
    stored = storage.load(engine, unique_project, 2)
    assert set(stored.nodes) == set(nodes) and set(stored.edges) == set(edges)
    assert isinstance(stored, Snapshot)


def test_write_app_files_are_what_the_tests_describe() -> None:
    assert textwrap.dedent(B_V1).splitlines()[9] == "def mover():"
    assert B_V2.splitlines()[12] == "def mover():"
