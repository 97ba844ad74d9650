"""Contributors from git history: who modified which file, how often, and when last.

One `git log --no-merges` pass over the newest MAX_COMMITS commits (bounded by a timeout; never
fatal: no git, no history, a timeout → no contributor nodes). Paths are relative to the ingest
root (`--relative`, so a root inside a larger repository works), and only files of the graph count.

- Contributor `contributor:<email, lowercased>`: name = the author name of their newest commit,
  qualified_name = the email.
- Contributor MODIFIED File, EXTRACTED, with Edge.properties {"commits": int, "last_at": ISO-8601
  author date of the newest of those commits (UTC offset as committed)} — the numbers review tools
  read — and the same facts in the explanation for people.
- Contributor COMMITTED_TO the Repository node, with {"commits", "last_at"} over DISTINCT commits
  that touched graph files: the exact commit count review tools report (summing MODIFIED edges
  would count a commit that touched n files n times).
Renames are not followed: a file's history before its last rename counts under its old path,
which is not in the graph.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rhumbline.ingest.edges import EdgeSet
from rhumbline.ingest.facts import SourceFile
from rhumbline.ingest.ids import file_id
from rhumbline.ingest.git import speaks_for
from rhumbline.stores.graph.model import Node

MAX_COMMITS = 5_000
GIT_LOG_TIMEOUT_S = 30.0
_RECORD = "\x1e"
_FIELD = "\x1f"


@dataclass
class _Tally:
    commits: int
    last_at: str  # ISO-8601, the newest commit's author date


REPOSITORY_ID = "repository:"


def contributor_id(email: str) -> str:
    return f"contributor:{email.strip().lower()}"


def read_history(root: Path) -> str | None:
    """The git log this module reads (None: no git, no history, or a timeout). Read before phase 2
    so an incremental ingest can tell whether the history changed (pipeline.py)."""
    if not speaks_for(root):
        return None
    return _git_log(root)


def build_contributors(log: str | None, sources: Sequence[SourceFile], edges: EdgeSet) -> list[Node]:
    """Contributor nodes and MODIFIED edges from a log read by read_history."""
    if not log:
        return []
    files = {source.path for source in sources}
    names: dict[str, str] = {}  # email → name of the newest commit
    tallies: dict[tuple[str, str], _Tally] = {}  # (email, path) → tally
    # Distinct commits per author: summing the per-file counts would count a commit that touched
    # n files n times. Review tools read this exact figure from the COMMITTED_TO edge.
    totals: dict[str, _Tally] = {}  # email → tally
    for record in log.split(_RECORD):
        header, _, body = record.partition("\n")
        fields = header.split(_FIELD)
        if len(fields) != 3:
            continue
        name, email, when = (value.strip() for value in fields)
        email = email.lower()
        if not email:
            continue
        names.setdefault(email, name or email)  # newest first: the first name seen is current
        touched = False
        for path in dict.fromkeys(line.strip() for line in body.splitlines()):
            if path not in files:
                continue
            touched = True
            tally = tallies.get((email, path))
            if tally is None:
                tallies[(email, path)] = _Tally(1, when)
            else:
                tally.commits += 1
        if touched:
            total = totals.get(email)
            if total is None:
                totals[email] = _Tally(1, when)
            else:
                total.commits += 1
    nodes = [
        Node(id=contributor_id(email), kind="Contributor", name=name, qualified_name=email)
        for email, name in sorted(names.items())
        if any(key[0] == email for key in tallies)
    ]
    for (email, path), tally in sorted(tallies.items()):
        commits = "1 commit" if tally.commits == 1 else f"{tally.commits} commits"
        explanation = (
            f"{names[email]} <{email}> modified {path} in {commits} (git log, merges excluded),"
            f" the last on {tally.last_at[:10]}"
        )
        edges.extracted(contributor_id(email), "MODIFIED", file_id(path), explanation, path, None)
        edges.set_properties(
            contributor_id(email), "MODIFIED", file_id(path),
            {"commits": tally.commits, "last_at": tally.last_at},
        )  # fmt: skip
    for email, total in sorted(totals.items()):
        commits = "1 commit" if total.commits == 1 else f"{total.commits} commits"
        explanation = (
            f"{names[email]} <{email}> made {commits} touching ingested files (git log, merges"
            f" excluded), the last on {total.last_at[:10]}"
        )
        edges.extracted(contributor_id(email), "COMMITTED_TO", REPOSITORY_ID, explanation, None, None)
        edges.set_properties(
            contributor_id(email), "COMMITTED_TO", REPOSITORY_ID,
            {"commits": total.commits, "last_at": total.last_at},
        )  # fmt: skip
    return nodes


def _git_log(root: Path) -> str | None:
    command = [
        "git", "-C", str(root), "-c", "core.quotepath=off", "log", "--no-merges",
        f"--max-count={MAX_COMMITS}", "--relative", "--name-only", "--no-renames",
        f"--format={_RECORD}%an{_FIELD}%ae{_FIELD}%aI",
    ]  # fmt: skip
    try:
        result = subprocess.run(command, capture_output=True, timeout=GIT_LOG_TIMEOUT_S, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if result.returncode != 0:
        return None  # e.g. no commit yet
    return result.stdout.decode("utf-8", "replace")
