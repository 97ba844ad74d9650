"""The partial path of an incremental ingest (rhumbline/ingest/partial.py), on both graph backends.

Each case edits a tree, re-ingests it, checks which phase-2 path ran, and then checks the one
invariant that matters: the graph (every node, edge and attribute) and the summary's figures equal
a clearing rebuild of the same tree.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from sqlalchemy import Engine
from tests.functional.ingest.graph_dump import dump
from tests.functional.ingest.sample_app import LIBRARY

from rhumbline.ingest import pipeline
from rhumbline.ingest.snapshots.diff import diff_versions
from rhumbline.stores.graph.protocol import GraphStore

INIT = "from pkg.b import Base, helper\n"
A_PY = """\
from pkg import Base, helper
from pkg.b import mover


class Child(Base):
    def run(self, thing):
        helper()
        mover()
        thing.frobnicate()
        return self.base_method()
"""
B_PY = LIBRARY
README = "# App\n\nSee `helper` and `Base.base_method`.\n"
FIGURES = ("node_count", "edge_count", "nodes_by_kind", "edges_by_relation", "unresolved_calls")
CHILD_RUN = "method:pkg/a.py:Child.run"


@pytest.fixture
def app(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    for relative, text in {"pkg/__init__.py": INIT, "pkg/a.py": A_PY, "pkg/b.py": B_PY,
                           "README.md": README, "notes.txt": "first\n"}.items():  # fmt: skip
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    return root


def reingest_equals_rebuild(root: Path, store: GraphStore, engine: Engine, project: str):
    """Re-ingest incrementally, then rebuild from scratch: both graphs and figures must agree."""
    incremental = pipeline.ingest_local(root, project, store=store, engine=engine)
    graph = dump(store, project)
    rebuilt = pipeline.ingest_local(root, project, store=store, engine=engine, clear=True)
    assert dump(store, project) == graph
    for name in FIGURES:
        assert getattr(incremental, name) == getattr(rebuilt, name), name
    # The versions' snapshots agree too: an exact diff of the two is empty.
    counts = diff_versions(engine, project, incremental.version, rebuilt.version).counts
    assert (counts.nodes_added, counts.nodes_removed, counts.nodes_changed) == (0, 0, 0)
    assert (counts.edges_added, counts.edges_removed, counts.edges_changed) == (0, 0, 0)
    return incremental, graph


def edit(root: Path, relative: str, old: str, new: str) -> None:
    path = root / relative
    text = path.read_text()
    assert old in text, (relative, old)
    path.write_text(text.replace(old, new, 1))


def test_a_body_only_edit_takes_the_partial_path_and_keeps_incoming_edges(
    app: Path, store: GraphStore, engine: Engine, unique_project: str
) -> None:
    pipeline.ingest_local(app, unique_project, store=store, engine=engine)
    _, before = dump(store, unique_project)
    # helper's body grows by two lines: everything below it in b.py moves.
    edit(app, "pkg/b.py", "def helper():\n    return 1\n", "def helper():\n    x = 1\n    y = 2\n    return x + y\n")

    summary, (nodes, edges) = reingest_equals_rebuild(app, store, engine, unique_project)

    assert (summary.changes.phase2, summary.changes.partial_refused) == ("partial", None)
    assert summary.changes.files_parsed == 1 and summary.changes.nodes_changed > 0
    assert nodes["function:pkg/b.py:mover"][4:6] == (12, 13)  # moved down two lines
    # Incoming edges from the unchanged a.py survive unchanged.
    for target in ("function:pkg/b.py:helper", "function:pkg/b.py:mover", "method:pkg/b.py:Base.base_method"):
        assert edges[(CHILD_RUN, "CALLS", target)] == before[(CHILD_RUN, "CALLS", target)]
    assert before.keys() == edges.keys()
    diff = diff_versions(engine, unique_project, 1, 2)
    assert {c.id for c in diff.nodes_changed} >= {"function:pkg/b.py:helper", "function:pkg/b.py:mover"}
    assert diff.counts.edges_added == diff.counts.edges_removed == 0


def test_a_file_without_an_extractor_takes_the_partial_path(
    app: Path, store: GraphStore, engine: Engine, unique_project: str
) -> None:
    pipeline.ingest_local(app, unique_project, store=store, engine=engine)
    (app / "notes.txt").write_text("first\nsecond\nthird\n")
    summary, (nodes, _) = reingest_equals_rebuild(app, store, engine, unique_project)
    assert summary.changes.phase2 == "partial"
    assert nodes["file:notes.txt"][5] == 3  # end_line
    again = pipeline.ingest_local(app, unique_project, store=store, engine=engine)
    assert (again.changes.phase2, again.changes.partial_refused) == ("skipped", None)


INTERFACE_EDITS = {
    "added function": ("pkg/b.py", "def mover():", "def extra():\n    return 0\n\n\ndef mover():"),
    "removed function": ("pkg/b.py", "def mover():\n    return 2\n", ""),
    "renamed function": ("pkg/b.py", "def helper():", "def helper2():"),
    "changed base class": ("pkg/a.py", "class Child(Base):", "class Child(object):"),
    "changed re-export": ("pkg/__init__.py", "Base, helper", "Base"),
    "method name appears": ("pkg/b.py", "    def base_method(self):",
                            "    def frobnicate(self):\n        return 0\n\n    def base_method(self):"),
}


@pytest.mark.parametrize("case", sorted(INTERFACE_EDITS))
def test_an_interface_edit_takes_the_full_path_and_equals_a_rebuild(
    case: str, app: Path, store: GraphStore, engine: Engine, unique_project: str
) -> None:
    pipeline.ingest_local(app, unique_project, store=store, engine=engine)
    relative, old, new = INTERFACE_EDITS[case]
    edit(app, relative, old, new)

    summary, (_, edges) = reingest_equals_rebuild(app, store, engine, unique_project)

    assert summary.changes.phase2 == "full"
    assert summary.changes.partial_refused == f"the interface of {relative} changed"
    called = {t for (s, r, t) in edges if s == CHILD_RUN and r == "CALLS"}
    if case == "method name appears":
        # a.py did not change, yet its `thing.frobnicate()` now resolves by method name.
        assert "method:pkg/b.py:Base.frobnicate" in called
    if case == "removed function":
        assert "function:pkg/b.py:mover" not in called


def test_a_method_name_that_disappears_drops_the_by_name_call(
    app: Path, store: GraphStore, engine: Engine, unique_project: str
) -> None:
    edit(app, "pkg/b.py", "def helper():", "class Other:\n    def frobnicate(self):\n        return 0\n\n\ndef helper():")
    pipeline.ingest_local(app, unique_project, store=store, engine=engine)
    assert (CHILD_RUN, "CALLS", "method:pkg/b.py:Other.frobnicate") in dump(store, unique_project)[1]
    edit(app, "pkg/b.py", "def frobnicate(self):", "def defrobnicate(self):")
    summary, (_, edges) = reingest_equals_rebuild(app, store, engine, unique_project)
    assert summary.changes.phase2 == "full"
    assert (CHILD_RUN, "CALLS", "method:pkg/b.py:Other.frobnicate") not in edges


@pytest.mark.parametrize("change", ["added", "removed", "renamed"])
def test_added_removed_and_renamed_files_take_the_full_path(
    change: str, app: Path, store: GraphStore, engine: Engine, unique_project: str
) -> None:
    pipeline.ingest_local(app, unique_project, store=store, engine=engine)
    if change == "added":
        (app / "pkg" / "c.py").write_text("from pkg.b import helper\n\n\ndef c():\n    return helper()\n")
    elif change == "removed":
        (app / "pkg" / "b.py").unlink()
    else:
        (app / "pkg" / "b.py").rename(app / "pkg" / "bee.py")

    summary, (nodes, _) = reingest_equals_rebuild(app, store, engine, unique_project)

    assert summary.changes.phase2 == "full"
    assert summary.changes.partial_refused == "files were added, removed or renamed"
    assert ("file:pkg/bee.py" in nodes) == (change == "renamed")


def test_a_document_linking_to_a_line_of_the_changed_file_takes_the_full_path(
    app: Path, store: GraphStore, engine: Engine, unique_project: str
) -> None:
    (app / "README.md").write_text(README + "\nThe [mover](pkg/b.py#L10).\n")
    pipeline.ingest_local(app, unique_project, store=store, engine=engine)
    assert ("document:README.md", "DOCUMENTS", "function:pkg/b.py:mover") in dump(store, unique_project)[1]
    edit(app, "pkg/b.py", "def helper():\n    return 1\n", "def helper():\n    x = 1\n    return x\n")

    summary, (_, edges) = reingest_equals_rebuild(app, store, engine, unique_project)

    assert summary.changes.phase2 == "full"
    assert summary.changes.partial_refused == "README.md links to a line of a changed file"
    # Line 10 is now inside helper's neighbour... whatever spans it, the rebuild agrees (above).
    assert ("document:README.md", "DOCUMENTS", "function:pkg/b.py:mover") not in edges


def test_an_absolute_line_link_from_docs_counts_the_file_it_resolves_to(
    app: Path, store: GraphStore, engine: Engine, unique_project: str
) -> None:
    # An absolute link in docs/ starts at docs/: the file whose lines it depends on is docs/code/b.py.
    (app / "docs" / "code").mkdir(parents=True)
    (app / "docs" / "code" / "b.py").write_text(B_PY)
    (app / "docs" / "guide.md").write_text("# Guide\n\nThe [mover](/code/b.py#L10).\n")
    pipeline.ingest_local(app, unique_project, store=store, engine=engine)
    assert ("document:docs/guide.md", "DOCUMENTS", "function:docs/code/b.py:mover") in dump(store, unique_project)[1]
    edit(app, "docs/code/b.py", "def helper():\n    return 1\n", "def helper():\n    x = 1\n    return x\n")

    summary, _ = reingest_equals_rebuild(app, store, engine, unique_project)

    assert summary.changes.phase2 == "full"
    assert summary.changes.partial_refused == "docs/guide.md links to a line of a changed file"


def test_a_chain_of_partial_ingests_stays_exact(
    app: Path, store: GraphStore, engine: Engine, unique_project: str
) -> None:
    pipeline.ingest_local(app, unique_project, store=store, engine=engine)
    for n in range(3):
        edit(app, "pkg/b.py", "    return 2\n", f"    value = {n}\n    return 2\n")
        summary = pipeline.ingest_local(app, unique_project, store=store, engine=engine)
        assert summary.changes.phase2 == "partial"
    reingest_equals_rebuild(app, store, engine, unique_project)
    first_to_last = diff_versions(engine, unique_project, 1, 4)
    assert [c.id for c in first_to_last.nodes_changed] == ["file:pkg/b.py", "function:pkg/b.py:mover", "module:pkg.b"]


def git(root: Path, *args: str, author: tuple[str, str] = ("Ann", "ann@example.com")) -> None:
    env = {**os.environ, "HOME": str(root.parent), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": author[0], "GIT_AUTHOR_EMAIL": author[1],
           "GIT_COMMITTER_NAME": "CI", "GIT_COMMITTER_EMAIL": "ci@example.com"}  # fmt: skip
    subprocess.run(["git", "-C", str(root), *args], check=True, env=env, capture_output=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_new_commits_take_the_partial_path_with_the_history_swapped(
    app: Path, store: GraphStore, engine: Engine, unique_project: str
) -> None:
    git(app, "init", "-q")
    git(app, "add", ".")
    git(app, "commit", "-qm", "one")
    pipeline.ingest_local(app, unique_project, store=store, engine=engine)
    # Bob edits a body: b.py's code partition is rebuilt, and the history records move (Bob is
    # new, b.py's MODIFIED edges change, the repository's COMMITTED_TO edges too).
    edit(app, "pkg/b.py", "    return 2\n", "    value = 2\n    return value\n")
    git(app, "commit", "-qam", "two", author=("Bob", "bob@example.com"))

    summary, (nodes, edges) = reingest_equals_rebuild(app, store, engine, unique_project)

    assert (summary.changes.phase2, summary.changes.partial_refused) == ("partial", None)
    assert "contributor:bob@example.com" in nodes
    assert edges[("contributor:bob@example.com", "MODIFIED", "file:pkg/b.py")][-1]["commits"] == 1

    # Only history: Ann commits notes.txt (no extractor) and a.py's partition keeps its records.
    (app / "notes.txt").write_text("changed\n")
    git(app, "commit", "-qam", "three")
    summary, (_, edges) = reingest_equals_rebuild(app, store, engine, unique_project)
    assert summary.changes.phase2 == "partial"
    assert edges[("contributor:ann@example.com", "COMMITTED_TO", "repository:")][-1]["commits"] == 2


def test_a_revert_to_cached_bytes_still_resolves_the_reverted_file(
    app: Path, store: GraphStore, engine: Engine, unique_project: str
) -> None:
    (app / "pkg" / "twin.py").write_text(A_PY)  # keeps a.py's first bytes in the facts cache
    pipeline.ingest_local(app, unique_project, store=store, engine=engine)
    _, first = dump(store, unique_project)
    edit(app, "pkg/a.py", "        helper()\n", "        helper()\n        helper()\n")
    pipeline.ingest_local(app, unique_project, store=store, engine=engine)
    (app / "pkg" / "a.py").write_text(A_PY)  # back to bytes whose facts are cached: nothing parsed

    summary, (_, edges) = reingest_equals_rebuild(app, store, engine, unique_project)

    assert (summary.changes.phase2, summary.changes.files_parsed) == ("partial", 0)
    assert edges == first  # a.py's calls, read from the cache, resolved again
