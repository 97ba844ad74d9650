"""Stat-based change detection (stat_index.py): unchanged files are not read again (nor files
skipped for their bytes), changed ones always are, racy ones are until a later ingest vouches for
them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import time_machine
from sqlalchemy import Engine
from time_machine import escape_hatch

from rhumbline.ingest import pipeline
from rhumbline.ingest.snapshots import facts_cache
from rhumbline.ingest.snapshots import inputs_key
from rhumbline.ingest.snapshots import stat_index
from rhumbline.stores.graph.sqlite.store import SqliteGraphStore

FILES = {"pkg/__init__.py": "", "pkg/a.py": "def a():\n    return 1\n", "pkg/b.py": "def b():\n    return 2\n",
         "notes.txt": "hello\n", "pkg/data.bin": "\0\1binary"}  # fmt: skip


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    for relative, text in FILES.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    return root


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths phase 1 reads in this process (a spy on the reader, which still runs)."""
    seen: list[str] = []
    real = facts_cache.read_bytes

    def spy(root: str, path: str):
        seen.append(path)
        return real(root, path)

    monkeypatch.setattr(facts_cache, "read_bytes", spy)
    return seen


@pytest.fixture
def trusted_stamps(monkeypatch: pytest.MonkeyPatch) -> None:
    """Trust even stamps of files written just now (they would be racy, and read, otherwise)."""
    monkeypatch.setattr(stat_index, "RACY_MARGIN_NS", -10**12)


def ingest(tree: Path, graph_store: SqliteGraphStore, engine: Engine, project: str):
    return pipeline.ingest_local(tree, project, store=graph_store, engine=engine, workers=1)


def test_only_files_whose_stamp_changed_are_read(
    tree: Path, graph_store: SqliteGraphStore, engine: Engine, unique_project: str,
    reads: list[str], trusted_stamps: None,
) -> None:  # fmt: skip
    ingest(tree, graph_store, engine, unique_project)
    reads.clear()
    again = ingest(tree, graph_store, engine, unique_project)
    assert reads == [] and again.changes.mode == "unchanged" and again.changes.files_reused == 3
    assert again.skipped == {"binary": 1}  # pkg/data.bin: skipped again, unread

    (tree / "pkg" / "b.py").write_text("def b():\n    return 3\n")
    changed = ingest(tree, graph_store, engine, unique_project)
    assert reads == ["pkg/b.py"]
    assert (changed.changes.files_parsed, changed.changes.phase2) == (1, "partial")


def test_a_rewrite_that_keeps_size_and_mtime_is_still_seen(
    tree: Path, graph_store: SqliteGraphStore, engine: Engine, unique_project: str,
    reads: list[str], trusted_stamps: None,
) -> None:  # fmt: skip
    ingest(tree, graph_store, engine, unique_project)
    path = tree / "pkg" / "a.py"
    before = os.stat(path)
    path.write_text("def a():\n    return 7\n")  # same length
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # what tar or rsync would do
    reads.clear()
    after = ingest(tree, graph_store, engine, unique_project)
    assert reads == ["pkg/a.py"]  # the ctime moved
    assert after.changes.nodes_changed > 0


def test_racy_files_are_read_until_an_ingest_vouches_for_them(
    tree: Path, graph_store: SqliteGraphStore, engine: Engine, unique_project: str, reads: list[str],
    time_machine: time_machine.TimeMachineFixture,
) -> None:  # fmt: skip
    # Racy means written within the margin of the process clock's now: that clock must be the
    # file system's, also when the suite runs with its clock moved (--clock-ahead).
    if escape_hatch.is_travelling():
        time_machine.move_to(escape_hatch.time.time(), tick=True)
    ingest(tree, graph_store, engine, unique_project)  # the files were written just now: racy
    reads.clear()
    ingest(tree, graph_store, engine, unique_project)
    assert sorted(reads) == sorted(FILES)


def test_the_index_trusts_only_old_exact_stamps() -> None:
    now = 10**18
    old = now - stat_index.RACY_MARGIN_NS - 1
    files = {
        "old.py": ("python", "h1", 3, 10, old, old, 7),
        "racy.py": ("python", "h2", 3, 10, old, now, 8),  # changed within the margin
        "unstamped.py": ("python", "h3"),  # its stat failed when it was read
    }
    index = stat_index.StatIndex(files, read_ns=now)
    assert len(index) == 1
    assert index.unchanged("old.py", (10, old, old, 7)) == files["old.py"]
    assert index.unchanged("old.py", (11, old, old, 7)) is None
    assert index.unchanged("old.py", None) is None
    assert index.unchanged("racy.py", (10, old, now, 8)) is None
    assert len(stat_index.StatIndex(files, read_ns=None)) == 0


def test_a_skipped_file_is_read_again_once_its_stamp_changes(
    tree: Path, graph_store: SqliteGraphStore, engine: Engine, unique_project: str,
    reads: list[str], trusted_stamps: None,
) -> None:  # fmt: skip
    first = ingest(tree, graph_store, engine, unique_project)
    assert first.skipped == {"binary": 1} and first.files == 4
    (tree / "pkg" / "data.bin").write_text("now text\n")
    reads.clear()
    after = ingest(tree, graph_store, engine, unique_project)
    assert reads == ["pkg/data.bin"]
    assert after.skipped == {} and after.files == 5


def test_skips_recorded_by_other_ingest_code_are_not_trusted(
    tree: Path, graph_store: SqliteGraphStore, engine: Engine, unique_project: str,
    reads: list[str], trusted_stamps: None, monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    ingest(tree, graph_store, engine, unique_project)
    # Another extractor fingerprint: whether a file is binary might be decided otherwise now.
    monkeypatch.setattr(inputs_key, "extractor_fingerprint", lambda: "another-extractor")
    reads.clear()
    ingest(tree, graph_store, engine, unique_project)
    assert "pkg/data.bin" in reads


def test_only_skips_that_follow_from_the_bytes_are_recorded() -> None:
    stamp = (10, 1, 2, 3)
    assert stat_index.skip_entry("binary", stamp) == ("binary", *stamp)
    assert stat_index.skip_entry("too_large", stamp) == ("too_large", *stamp)
    assert stat_index.skip_entry("unreadable", stamp) is None  # may be readable next time
    assert stat_index.skip_entry("extraction_failed", stamp) is None
    assert stat_index.skip_entry("binary", None) is None
    now = 10**18
    old = now - stat_index.RACY_MARGIN_NS - 1
    skipped = {"a.mo": ("binary", 10, old, old, 7), "b.mo": ("binary", 10, old, now, 8)}
    index = stat_index.StatIndex(skipped, read_ns=now, stamp_at=1)
    assert len(index) == 1 and index.unchanged("a.mo", (10, old, old, 7)) == skipped["a.mo"]
    assert index.unchanged("a.mo", (10, old, old, 9)) is None


def test_a_build_copy_is_read_again_whatever_its_stamp(
    tmp_path: Path, graph_store: SqliteGraphStore, engine: Engine, unique_project: str,
    reads: list[str], trusted_stamps: None,
) -> None:  # fmt: skip
    """Whether a bundle is a build copy depends on its map and its sources, not on its own bytes."""
    files = {
        "package.json": '{"name": "d", "browser": "./dist/d.js"}',
        "lib/index.js": "export function parse(text) { return text; }\n",
        "dist/d.js": "function parse(text) { return text; }\n//# sourceMappingURL=d.js.map\n",
        "dist/d.js.map": '{"version": 3, "sources": ["../lib/index.js"], "mappings": ""}',
    }
    root = tmp_path / "pkg"
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    assert ingest(root, graph_store, engine, unique_project).skipped == {"generated": 2}
    (root / "lib" / "index.js").unlink()
    reads.clear()
    again = ingest(root, graph_store, engine, unique_project)
    assert reads == ["dist/d.js"] and again.skipped == {"generated": 1}  # the map, by its name
    assert graph_store.get_node(unique_project, "function:dist/d.js:parse") is not None
