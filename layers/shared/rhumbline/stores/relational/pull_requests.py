"""Pull requests of a project and the files they touched.

GitHub does not deliver webhooks in order: every write from an event carries the PR's own
`updated_at`, and a delivery older than what is stored changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from rhumbline.stores.relational.schema.base import checked, utcnow
from rhumbline.stores.relational.schema.reviews import PR_STATES, PrState, PullRequest, PullRequestFile
from rhumbline.stores.relational.session import added

MAX_FILES_PER_PR = 3000  # GitHub's own cap on a PR's listed files
MAX_PATH_LENGTH = 1024
TITLE_LIMIT = 1024


@dataclass(frozen=True)
class PullRequestFacts:
    """What a GitHub event says about a PR, validated by the webhook layer."""

    number: int
    title: str | None
    author: str | None
    state: str  # open | closed | merged
    base_ref: str | None
    head_ref: str | None
    head_sha: str | None
    opened_at: datetime | None
    merged_at: datetime | None
    closed_at: datetime | None
    updated_at: datetime


def get(session: Session, project_id: int, number: int) -> PullRequest | None:
    return session.scalar(
        select(PullRequest).where(PullRequest.project_id == project_id, PullRequest.number == number)
    )


def ensure(session: Session, project_id: int, number: int) -> PullRequest:
    """The PR row, created as "state unknown" when no GitHub event has told us about it yet."""
    if number < 1:
        raise ValueError(f"PR number must be positive, not {number}")
    existing = get(session, project_id, number)
    if existing is not None:
        return existing
    created = PullRequest(project_id=project_id, number=number, updated_at=utcnow())
    return created if added(session, created) else _must_get(session, project_id, number)


def _must_get(session: Session, project_id: int, number: int) -> PullRequest:
    row = get(session, project_id, number)
    if row is None:  # only after an insert failed for another reason than the race
        raise RuntimeError(f"PR #{number} could not be inserted nor found")
    return row


def upsert(session: Session, project_id: int, facts: PullRequestFacts) -> tuple[PullRequest, bool]:
    """Insert or update a PR from an event. Returns the row and whether the facts were applied
    (False: the stored row is newer than this delivery)."""
    state = checked("PR state", facts.state, PR_STATES)
    row = get(session, project_id, facts.number)
    if row is None:
        row = _apply(PullRequest(project_id=project_id, number=facts.number), facts, state)
        if added(session, row):
            return row, True
        row = _must_get(session, project_id, facts.number)
    # A row with no state came from a review alone: its updated_at is our clock, not GitHub's.
    if row.state is not None and row.updated_at > facts.updated_at:
        return row, False
    _apply(row, facts, state)
    session.flush()
    return row, True


def _apply(row: PullRequest, facts: PullRequestFacts, reported: PrState) -> PullRequest:
    # Merged is final on GitHub: a stale "closed" or "open" must not undo it.
    state = "merged" if row.state == "merged" else reported
    row.title = facts.title[:TITLE_LIMIT] if facts.title is not None else row.title
    row.author = facts.author or row.author
    row.state = state
    row.base_ref = facts.base_ref or row.base_ref
    row.head_ref = facts.head_ref or row.head_ref
    row.head_sha = facts.head_sha or row.head_sha
    row.opened_at = facts.opened_at or row.opened_at
    row.merged_at = facts.merged_at or row.merged_at
    row.closed_at = facts.closed_at if state != "open" else None
    if state == "merged" and row.closed_at is None:
        row.closed_at = row.merged_at
    row.updated_at = facts.updated_at
    return row


def set_files(session: Session, row: PullRequest, paths: Sequence[str]) -> list[str]:
    """Replace the PR's touched files; returns the stored (deduplicated, sorted) paths."""
    cleaned = sorted({path.strip() for path in paths if path and path.strip()})
    if len(cleaned) > MAX_FILES_PER_PR:
        raise ValueError(f"a PR may list at most {MAX_FILES_PER_PR} files, not {len(cleaned)}")
    too_long = [path for path in cleaned if len(path) > MAX_PATH_LENGTH]
    if too_long:
        raise ValueError(f"file path longer than {MAX_PATH_LENGTH} characters: {too_long[0][:80]}…")
    session.execute(delete(PullRequestFile).where(PullRequestFile.pull_request_id == row.id))
    session.add_all(
        PullRequestFile(pull_request_id=row.id, project_id=row.project_id, path=path) for path in cleaned
    )
    row.files_known = True
    session.flush()
    return cleaned


def files_of(session: Session, pull_request_id: int) -> list[str]:
    query = select(PullRequestFile.path).where(PullRequestFile.pull_request_id == pull_request_id)
    return list(session.scalars(query.order_by(PullRequestFile.path).limit(MAX_FILES_PER_PR)))


def files_by_pr(session: Session, project_id: int) -> dict[int, list[str]]:
    """Every recorded file of every PR of a project, by PR row id (one query)."""
    query = (
        select(PullRequestFile.pull_request_id, PullRequestFile.path)
        .where(PullRequestFile.project_id == project_id)
        .order_by(PullRequestFile.pull_request_id, PullRequestFile.path)
    )
    found: dict[int, list[str]] = {}
    for pr_id, path in session.execute(query):
        found.setdefault(pr_id, []).append(path)
    return found


def count_by_state(session: Session, project_id: int) -> dict[str | None, int]:
    """PR counts per state (None: known only from a review)."""
    query = (
        select(PullRequest.state, func.count())
        .where(PullRequest.project_id == project_id)
        .group_by(PullRequest.state)
    )
    return {state: count for state, count in session.execute(query)}


def count_open_with_files(session: Session, project_id: int) -> int:
    """Open PRs whose touched files are recorded (so they are linked to files in the graph)."""
    query = select(func.count()).select_from(PullRequest).where(
        PullRequest.project_id == project_id, PullRequest.state == "open", PullRequest.files_known.is_(True)
    )
    return int(session.scalar(query) or 0)


def author_activity(session: Session, project_id: int) -> list[tuple[str, int, datetime]]:
    """(author, PRs authored, latest PR update) for every author of the project's PRs."""
    query = (
        select(PullRequest.author, func.count(), func.max(PullRequest.updated_at))
        .where(PullRequest.project_id == project_id, PullRequest.author.is_not(None))
        .group_by(PullRequest.author)
    )
    return [(author, int(count), latest) for author, count, latest in session.execute(query)]


def author_files(session: Session, project_id: int) -> list[tuple[str, str]]:
    """Distinct (author, path) pairs: which files each author's PRs touched."""
    query = (
        select(PullRequest.author, PullRequestFile.path)
        .join(PullRequestFile, PullRequestFile.pull_request_id == PullRequest.id)
        .where(PullRequest.project_id == project_id, PullRequest.author.is_not(None))
        .distinct()
    )
    return [(author, path) for author, path in session.execute(query)]


def merge_intervals(session: Session, project_id: int) -> list[tuple[datetime, datetime]]:
    """(opened_at, merged_at) of every merged PR with both timestamps."""
    query = select(PullRequest.opened_at, PullRequest.merged_at).where(
        PullRequest.project_id == project_id,
        PullRequest.state == "merged",
        PullRequest.opened_at.is_not(None),
        PullRequest.merged_at.is_not(None),
    )
    return [(opened, merged) for opened, merged in session.execute(query)]


def all_of(session: Session, project_id: int, *, limit: int) -> list[PullRequest]:
    """PRs of a project, newest number first (for re-projecting the graph)."""
    query = select(PullRequest).where(PullRequest.project_id == project_id).order_by(PullRequest.number.desc())
    return list(session.scalars(query.limit(limit)))
