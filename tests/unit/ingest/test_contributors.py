"""Contributor nodes and MODIFIED edges from a git repository made here, with fixed authors and
dates."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from rhumbline.ingest.build import build_graph
from rhumbline.ingest.graph.contributors import contributor_id

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(root: Path, *args: str, author: tuple[str, str] | None = None, date: str | None = None) -> None:
    env = {
        **os.environ,
        "HOME": str(root.parent),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_COMMITTER_NAME": "CI",
        "GIT_COMMITTER_EMAIL": "ci@example.com",
    }
    if author is not None:
        env.update(GIT_AUTHOR_NAME=author[0], GIT_AUTHOR_EMAIL=author[1])
    if date is not None:
        env.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    subprocess.run(["git", "-C", str(root), *args], check=True, env=env, capture_output=True)


def commit(root: Path, files: dict[str, str | None], author: tuple[str, str], date: str) -> None:
    for relative, text in files.items():
        path = root / relative
        if text is None:
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", f"change by {author[0]}", author=author, date=date)


ANN = ("Ann", "Ann@Example.com")
ANN_RENAMED = ("Ann Lee", "ann@example.com")
BOB = ("Bob", "bob@example.com")
CAROL = ("Carol", "carol@example.com")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    commit(root, {"a.py": "A = 1\n", "b.py": "B = 1\n"}, ANN, "2026-01-01T10:00:00+00:00")
    commit(root, {"a.py": "A = 2\n", "c.py": "C = 1\n"}, BOB, "2026-02-01T11:30:00+02:00")
    git(root, "checkout", "-q", "-b", "side")
    commit(root, {"docs/notes.md": "# Notes\n"}, ANN_RENAMED, "2026-03-01T09:00:00+00:00")
    git(root, "checkout", "-q", "main")
    commit(root, {"a.py": "A = 3\n", "c.py": None}, ANN_RENAMED, "2026-03-02T09:00:00+00:00")
    git(root, "merge", "-q", "--no-ff", "side", "-m", "merge", author=CAROL, date="2026-03-03T09:00:00+00:00")
    return root


def test_contributors_and_their_modified_edges_are_exact(repo: Path):
    built = build_graph(repo, "acme/repo")

    people = {n.id: (n.name, n.qualified_name) for n in built.nodes if n.kind == "Contributor"}
    # The newest name wins; emails are lowercased; Carol only merged (merges are excluded).
    assert people == {
        "contributor:ann@example.com": ("Ann Lee", "ann@example.com"),
        "contributor:bob@example.com": ("Bob", "bob@example.com"),
    }
    modified = {
        (e.source, e.target): (e.confidence, e.file, e.line, e.properties)
        for e in built.edges
        if e.relation == "MODIFIED"
    }
    ann, bob = contributor_id("Ann@Example.com"), contributor_id("bob@example.com")
    # c.py was deleted: not in the graph, so no edge to it.
    assert modified == {
        (ann, "file:a.py"): ("EXTRACTED", "a.py", None, {"commits": 2, "last_at": "2026-03-02T09:00:00+00:00"}),
        (ann, "file:b.py"): ("EXTRACTED", "b.py", None, {"commits": 1, "last_at": "2026-01-01T10:00:00+00:00"}),
        (ann, "file:docs/notes.md"): (
            "EXTRACTED", "docs/notes.md", None, {"commits": 1, "last_at": "2026-03-01T09:00:00+00:00"}
        ),
        (bob, "file:a.py"): ("EXTRACTED", "a.py", None, {"commits": 1, "last_at": "2026-02-01T11:30:00+02:00"}),
    }
    # Distinct commits per author, for review tools: Ann's per-file counts sum to 4, but she made 3
    # commits touching graph files (the first touched a.py and b.py at once).
    totals = {
        e.source: (e.target, e.confidence, e.properties, e.explanation)
        for e in built.edges
        if e.relation == "COMMITTED_TO"
    }
    assert totals == {
        ann: (
            "repository:", "EXTRACTED", {"commits": 3, "last_at": "2026-03-02T09:00:00+00:00"},
            "Ann Lee <ann@example.com> made 3 commits touching ingested files (git log, merges excluded),"
            " the last on 2026-03-02",
        ),
        bob: (
            "repository:", "EXTRACTED", {"commits": 1, "last_at": "2026-02-01T11:30:00+02:00"},
            "Bob <bob@example.com> made 1 commit touching ingested files (git log, merges excluded),"
            " the last on 2026-02-01",
        ),
    }  # fmt: skip
    explanation = next(e.explanation for e in built.edges if e.source == ann and e.target == "file:a.py")
    assert explanation == (
        "Ann Lee <ann@example.com> modified a.py in 2 commits (git log, merges excluded), the last on 2026-03-02"
    )


def test_a_root_inside_a_repository_counts_its_own_paths(repo: Path):
    commit(repo, {"sub/x.py": "X = 1\n"}, BOB, "2026-04-01T10:00:00+00:00")
    built = build_graph(repo / "sub", "acme/sub")
    assert {(e.source, e.target) for e in built.edges if e.relation == "MODIFIED"} == {
        ("contributor:bob@example.com", "file:x.py")
    }


def test_no_history_without_git_or_when_disabled(repo: Path, tmp_path: Path):
    assert not [n for n in build_graph(repo, "acme/repo", history=False).nodes if n.kind == "Contributor"]
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.py").write_text("A = 1\n")
    assert not [n for n in build_graph(plain, "acme/plain").nodes if n.kind == "Contributor"]
