"""Contributor statistics: PRs from the relational store merged with git history from the graph.

One row per person. Identities merge on the lower-cased GitHub login: a PR author `Alice`, a
graph node `contributor:alice` and a noreply address `123+alice@users.noreply.github.com` are one
contributor; so is a plain address in git history that a push event showed GitHub tying to that
login (contributor_emails). Any other address stays its own row: nothing proves whose it is.

Ranked by activity = pr_count + commit_count, then the most recently active, then login.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy.orm import Session

from rhumbline.reviews.contributor_graph import GraphHistory
from rhumbline.stores.relational import pull_requests


@dataclass
class ContributorRow:
    login: str
    pr_count: int = 0
    commit_count: int | None = None
    files: set[str] = field(default_factory=set)
    last_active: datetime | None = None

    def seen(self, moment: datetime | None) -> None:
        if moment is not None and (self.last_active is None or moment > self.last_active):
            self.last_active = moment


def from_pull_requests(session: Session, project_id: int) -> dict[str, ContributorRow]:
    rows: dict[str, ContributorRow] = {}
    for author, count, latest in pull_requests.author_activity(session, project_id):
        row = rows.setdefault(author.lower(), ContributorRow(login=author))
        row.pr_count += count
        row.seen(latest)
    for author, path in pull_requests.author_files(session, project_id):
        rows[author.lower()].files.add(path)
    return rows


def merge_history(
    rows: dict[str, ContributorRow], history: GraphHistory | None, logins: Mapping[str, str] | None = None
) -> None:
    """Add commit counts and files from git history. Without history (graph down, or no history
    ingested) commit_count stays None for everyone: unknown, not zero. `logins`: commit addresses
    (lower-cased) GitHub tied to a login (contributor_emails): such an address's history is that
    login's."""
    if history is None or not history.has_history:
        return
    for known in rows.values():
        known.commit_count = 0
    for contributor in history.contributors:
        login = (logins or {}).get(contributor.key)
        key, display = (login.lower(), login) if login else (contributor.key, contributor.display)
        row = rows.get(key)
        if row is None:
            if not contributor.files and not contributor.commit_count:
                continue  # a node with no history (e.g. written for a PR author): nothing to add
            row = rows[key] = ContributorRow(login=display, commit_count=0)
        row.commit_count = (row.commit_count or 0) + contributor.commit_count
        row.files.update(contributor.files)
        row.seen(contributor.last_at)


def ranked(rows: dict[str, ContributorRow]) -> list[ContributorRow]:
    def key(row: ContributorRow) -> tuple[int, float, str]:
        activity = row.pr_count + (row.commit_count or 0)
        recency = row.last_active.timestamp() if row.last_active else float("-inf")
        return (-activity, -recency, row.login.lower())

    return sorted(rows.values(), key=key)
