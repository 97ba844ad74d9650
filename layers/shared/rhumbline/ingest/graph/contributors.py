"""Contributors from git history (discover/git.py read_history): who modified which file, how
often, and when last. Only files of the graph count.

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

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rhumbline.ingest.facts import SourceFile
from rhumbline.ingest.graph.edges import EdgeSet
from rhumbline.ingest.graph.ids import file_id
from rhumbline.stores.graph.model import Node

# (author name, email, ISO-8601 author date, paths it touched), newest first: discover/git.py Commit
Commit = tuple[str, str, str, Sequence[str]]


@dataclass
class _Tally:
    commits: int
    last_at: str  # ISO-8601, the newest commit's author date


REPOSITORY_ID = "repository:"


def contributor_id(email: str) -> str:
    return f"contributor:{email.strip().lower()}"


def build_contributors(history: Iterable[Commit], sources: Sequence[SourceFile], edges: EdgeSet) -> list[Node]:
    """Contributor nodes, MODIFIED and COMMITTED_TO edges from the commits of a git log."""
    files = {source.path for source in sources}
    names: dict[str, str] = {}  # email → name of the newest commit
    tallies: dict[tuple[str, str], _Tally] = {}  # (email, path) → tally
    # Distinct commits per author: summing the per-file counts would count a commit that touched
    # n files n times. Review tools read this exact figure from the COMMITTED_TO edge.
    totals: dict[str, _Tally] = {}  # email → tally
    for name, email, when, paths in history:
        email = email.lower()
        if not email:
            continue
        names.setdefault(email, name or email)  # newest first: the first name seen is current
        touched = False
        for path in paths:
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
