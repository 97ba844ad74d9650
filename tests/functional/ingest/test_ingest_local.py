"""ingest_local end to end: real SQLite stores, version bookkeeping, failure atomicity."""

from __future__ import annotations

import gc
import shutil
import subprocess
from pathlib import Path

import pytest
from sqlalchemy import Engine

from rhumbline.ingest.discover import git as ingest_git
from rhumbline.ingest import build, pipeline
from rhumbline.stores.graph.sqlite.store import SqliteGraphStore
from rhumbline.stores.relational import versions
from rhumbline.stores.relational.session import session_scope

PROJECT = "acme/shop"


def _ingest(root: Path, store: SqliteGraphStore, engine: Engine, **options):
    return pipeline.ingest_local(root, PROJECT, store=store, engine=engine, **options)


def test_summary_matches_what_the_store_holds(pyproj: Path, graph_store: SqliteGraphStore, engine: Engine):
    progress: list[tuple[int, int]] = []
    summary = _ingest(pyproj, graph_store, engine, progress=lambda done, total: progress.append((done, total)))
    counts = graph_store.counts(PROJECT)
    assert (summary.version, summary.commit) == (1, None)
    # README.md is a Document (the knowledge layer): one node and its DEFINES edge. 8 Import nodes
    # and 1 Decorator node, with their 9 CONTAINS, 15 RESOLVES_TO and 1 APPLIES_TO edges.
    assert (summary.node_count, summary.edge_count) == (counts.nodes, counts.edges) == (51, 89)
    assert summary.nodes_by_kind == counts.nodes_by_kind
    assert summary.edges_by_relation == counts.edges_by_relation
    assert progress[-1] == (12, 12)  # every listed file, the skipped binary too
    with session_scope(engine) as session:
        version = versions.latest(session, PROJECT)
        assert (version.version, version.status) == (1, "completed")
        assert (version.node_count, version.edge_count) == (51, 89)
        assert version.stats["unresolved_calls"] == summary.unresolved_calls == 3
        assert version.stats["skipped"] == {"binary": 1}
    node = graph_store.get_node(PROJECT, "method:shop/models.py:Product.save")
    assert node is not None and node.qualified_name == "shop.models.Product.save"


def test_a_second_ingest_is_version_two_with_the_same_graph(
    pyproj: Path, graph_store: SqliteGraphStore, engine: Engine
):
    first = _ingest(pyproj, graph_store, engine)
    second = _ingest(pyproj, graph_store, engine, clear=True)
    assert (first.version, second.version) == (1, 2)
    assert (second.node_count, second.edge_count) == (first.node_count, first.edge_count)
    assert graph_store.counts(PROJECT).nodes == first.node_count


def test_a_failed_ingest_leaves_the_previous_graph_and_records_the_error(
    pyproj: Path, graph_store: SqliteGraphStore, engine: Engine, monkeypatch: pytest.MonkeyPatch
):
    first = _ingest(pyproj, graph_store, engine)
    before = graph_store.counts(PROJECT)
    (pyproj / "shop" / "extra.py").write_text("def more():\n    return 1\n")  # the new graph differs
    real_structure = build.build_structure

    # Not a per-file step (one file's failure is reported and the rest built: test_ingest_robust.py):
    # the tree's structure, without which no graph is written.
    def failing_structure(project, sources, edges):
        real_structure(project, sources, edges)
        raise RuntimeError("injected structure failure")

    monkeypatch.setattr(build, "build_structure", failing_structure)
    with pytest.raises(RuntimeError, match="injected structure failure"):
        _ingest(pyproj, graph_store, engine)
    assert gc.isenabled()  # the collector paused for phase 2 runs again
    assert graph_store.counts(PROJECT) == before
    assert graph_store.get_node(PROJECT, "function:shop/extra.py:more") is None
    with session_scope(engine) as session:
        listed = versions.list_for(session, PROJECT)
        assert [(v.version, v.status) for v in listed] == [(2, "failed"), (1, "completed")]
        assert listed[0].error == "RuntimeError: injected structure failure"
        assert versions.latest(session, PROJECT, status="completed").node_count == first.node_count


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_git_checkout_records_its_head_commit(pyproj: Path, graph_store: SqliteGraphStore, engine: Engine):
    git = ["git", "-C", str(pyproj), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "fixture"], check=True)
    head = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
    summary = _ingest(pyproj, graph_store, engine)
    assert summary.commit == head
    with session_scope(engine) as session:
        assert versions.latest(session, PROJECT).commit_sha == head


def test_the_collector_is_paused_during_an_ingest_and_the_heap_left_as_it_was(
    pyproj: Path, graph_store: SqliteGraphStore, engine: Engine
):
    """An ingest pauses the cyclic collector (its objects live until it ends) and neither freezes
    nor thaws the heap: that is the container's init (heap.py)."""
    enabled_while_reading: list[bool] = []
    frozen = gc.get_freeze_count()
    for _ in range(2):  # a first ingest and the incremental path
        _ingest(pyproj, graph_store, engine, progress=lambda done, total: enabled_while_reading.append(gc.isenabled()))
        assert gc.isenabled()
        assert gc.get_freeze_count() == frozen
    assert enabled_while_reading and not any(enabled_while_reading)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_an_ingest_asks_git_once_whether_it_describes_the_root(
    pyproj: Path, graph_store: SqliteGraphStore, engine: Engine, monkeypatch: pytest.MonkeyPatch
):
    git = ["git", "-C", str(pyproj), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "fixture"], check=True)
    asked: list[tuple[str, ...]] = []
    real_run = ingest_git.run_git

    def spy(root: Path, *args: str) -> bytes | None:
        asked.append(args)
        return real_run(root, *args)

    monkeypatch.setattr(ingest_git, "run_git", spy)
    summary = _ingest(pyproj, graph_store, engine)
    # Its commit, the walk and the history all depend on the answer; each is asked once.
    assert asked.count(("rev-parse", "--is-inside-work-tree")) == 1
    assert summary.commit is not None and summary.nodes_by_kind.get("Contributor") == 1
    assert ingest_git.speaks_for(pyproj)  # outside an ingest: asked again, not remembered
    assert asked.count(("rev-parse", "--is-inside-work-tree")) == 2


def test_a_root_that_is_not_a_directory_is_refused_before_any_version(
    tmp_path: Path, graph_store: SqliteGraphStore, engine: Engine
):
    with pytest.raises(NotADirectoryError):
        _ingest(tmp_path / "missing", graph_store, engine)
    with session_scope(engine) as session:
        assert versions.latest(session, PROJECT) is None
