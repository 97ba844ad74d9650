"""The few git questions an ingest asks, each bounded by a timeout and never fatal."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import NamedTuple

GIT_TIMEOUT_S = 60.0
# History: one `git log --no-merges` pass over the newest HISTORY_COMMITS commits.
HISTORY_COMMITS = 5_000
HISTORY_TIMEOUT_S = 30.0
_RECORD = "\x1e"
_FIELD = "\x1f"
# speaks_for's answers while `answers_kept` is active: root → answer.
_ANSWERS: ContextVar[dict[str, bool] | None] = ContextVar("rhumbline_git_answers", default=None)


def run_git(root: Path, *args: str) -> bytes | None:
    """stdout of a successful git command; None when git fails, is missing or times out."""
    try:
        result = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout if result.returncode == 0 else None


@contextmanager
def answers_kept() -> Iterator[None]:
    """Within it, speaks_for asks git once per root: an ingest asks three times (its commit, the
    walk, the history), and each answer costs one or two git processes."""
    token = _ANSWERS.set({})
    try:
        yield
    finally:
        _ANSWERS.reset(token)


def speaks_for(root: Path) -> bool:
    """Whether git describes `root`: inside a work tree, and not ignored by it.

    A tree the enclosing repository ignores (an unpacked corpus under an ignored directory) would
    list as empty, and the enclosing HEAD says nothing about its content.
    """
    answers = _ANSWERS.get()
    if answers is None:
        return _speaks_for(root)
    key = str(root)
    if key not in answers:
        answers[key] = _speaks_for(root)
    return answers[key]


def _speaks_for(root: Path) -> bool:
    inside = run_git(root, "rev-parse", "--is-inside-work-tree")
    if inside is None or inside.strip() != b"true":
        return False
    return run_git(root, "check-ignore", "-q", "--", ".") is None


def head_commit(root: Path) -> str | None:
    if not speaks_for(root):
        return None
    head = run_git(root, "rev-parse", "--verify", "-q", "HEAD")  # fails before the first commit
    if head is None:
        return None
    return head.decode("ascii", "replace").strip() or None


def listed_files(root: Path) -> list[str] | None:
    """Tracked plus untracked-but-not-ignored files under `root`, relative to it."""
    output = run_git(root, "ls-files", "-co", "--exclude-standard", "-z")
    if output is None:
        return None
    return [path for path in output.decode("utf-8", "surrogateescape").split("\0") if path]


class Commit(NamedTuple):
    author: str
    email: str
    when: str  # ISO-8601 author date, with the UTC offset as committed
    paths: tuple[str, ...]  # relative to the root, each once


def read_history(root: Path) -> str | None:
    """The git log of the root (None: no git, no history, or a timeout), paths relative to the
    root (`--relative`: a root inside a larger repository works), renames not followed. Read
    before phase 2, so an incremental ingest can tell whether the history changed."""
    if not speaks_for(root):
        return None
    command = [
        "git", "-C", str(root), "-c", "core.quotepath=off", "log", "--no-merges",
        f"--max-count={HISTORY_COMMITS}", "--relative", "--name-only", "--no-renames",
        f"--format={_RECORD}%an{_FIELD}%ae{_FIELD}%aI",
    ]  # fmt: skip
    try:
        result = subprocess.run(command, capture_output=True, timeout=HISTORY_TIMEOUT_S, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if result.returncode != 0:
        return None  # e.g. no commit yet
    return result.stdout.decode("utf-8", "replace")


def commits(log: str | None) -> Iterator[Commit]:
    """The commits of a log read by read_history, newest first."""
    for record in (log or "").split(_RECORD):
        header, _, body = record.partition("\n")
        fields = header.split(_FIELD)
        if len(fields) == 3:
            name, email, when = (value.strip() for value in fields)
            yield Commit(name, email, when, tuple(dict.fromkeys(line.strip() for line in body.splitlines())))
