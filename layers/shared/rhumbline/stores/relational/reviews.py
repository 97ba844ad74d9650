"""Reviews of pull requests: written from GitHub events and from the API, read by the review tools."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import case, func, or_, select, true
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from rhumbline.stores.relational.schema.base import checked, utcnow
from rhumbline.stores.relational.schema.reviews import (
    REVIEW_STATUSES, VERDICTS, PullRequest, Review, ReviewStatus, Verdict,
)

MAX_RECENT = 50
SUMMARY_LIMIT = 65_536  # GitHub's own limit on a review body
IN_PROGRESS = ("pending", "processing")


@dataclass(frozen=True)
class GitHubReview:
    """A review as a pull_request_review event describes it (validated by the webhook layer)."""

    github_review_id: int
    pr_number: int
    reviewer: str
    verdict: Verdict
    summary: str
    head_sha: str | None
    submitted_at: datetime | None
    is_bot: bool


def _check(verdict: str, status: str) -> tuple[Verdict, ReviewStatus]:
    return checked("verdict", verdict, VERDICTS), checked("status", status, REVIEW_STATUSES)


def _clip(summary: str) -> str:
    if len(summary) <= SUMMARY_LIMIT:
        return summary
    return summary[: SUMMARY_LIMIT - 1] + "…"


def upsert_github(session: Session, project_id: int, review: GitHubReview) -> tuple[Review, bool]:
    """Insert or refresh a GitHub review, keyed by its GitHub id (an edited review updates the
    same row). Returns (row, created)."""
    _check(review.verdict, "completed")
    row = _by_github_id(session, project_id, review.github_review_id)
    if row is None:
        now = utcnow()
        candidate = Review(
            project_id=project_id,
            github_review_id=review.github_review_id,
            source="github",
            status="completed",
            # The review's own time orders "recent reviews", not when the delivery arrived.
            created_at=review.submitted_at or now,
            updated_at=now,
        )
        _fill(candidate, review)
        try:
            with session.begin_nested():
                session.add(candidate)
            return candidate, True
        except IntegrityError:  # a concurrent delivery of the same review won
            row = _by_github_id(session, project_id, review.github_review_id)
            if row is None:
                raise
    _fill(row, review)
    row.updated_at = utcnow()
    session.flush()
    return row, False


def _fill(row: Review, review: GitHubReview) -> None:
    row.pr_number = review.pr_number
    row.reviewer = review.reviewer[:200]
    row.verdict = review.verdict
    row.summary = _clip(review.summary)
    row.head_sha = review.head_sha or row.head_sha
    row.submitted_at = review.submitted_at or row.submitted_at
    row.is_bot = review.is_bot


def _by_github_id(session: Session, project_id: int, github_review_id: int) -> Review | None:
    return session.scalar(
        select(Review).where(Review.project_id == project_id, Review.github_review_id == github_review_id)
    )


def dismiss(session: Session, project_id: int, github_review_id: int, at: datetime) -> Review | None:
    """Mark a GitHub review dismissed (it no longer counts as a verdict). None if unknown."""
    row = _by_github_id(session, project_id, github_review_id)
    if row is not None and row.dismissed_at is None:
        row.dismissed_at = at
        row.updated_at = utcnow()
        session.flush()
    return row


def record_api(
    session: Session,
    project_id: int,
    *,
    pr_number: int,
    reviewer: str,
    verdict: str,
    summary: str,
    status: str,
    head_sha: str | None,
    is_bot: bool,
) -> tuple[Review, bool]:
    """Record a review from the API. Returns (row, created).

    A reviewer's run is one row through its workflow: a pending/processing review of the same PR
    and head SHA by the same reviewer is updated in place (pending → processing → completed), and
    an exact repeat of a finished review (a retried CI job) returns the existing row.
    """
    verdict, status = _check(verdict, status)
    summary = _clip(summary)
    now = utcnow()
    if head_sha is not None:
        same_run = session.scalar(
            select(Review)
            .where(
                Review.project_id == project_id,
                Review.pr_number == pr_number,
                Review.reviewer == reviewer,
                Review.head_sha == head_sha,
                Review.source == "api",
                Review.dismissed_at.is_(None),
            )
            .order_by(Review.created_at.desc(), Review.id.desc())
            .limit(1)
        )
        if same_run is not None and same_run.status in IN_PROGRESS:
            same_run.verdict, same_run.summary, same_run.status = verdict, summary, status
            same_run.updated_at = now
            if status not in IN_PROGRESS:
                same_run.submitted_at = now
            session.flush()
            return same_run, False
        if same_run is not None and (same_run.status, same_run.verdict, same_run.summary) == (status, verdict, summary):
            return same_run, False
    row = Review(
        project_id=project_id,
        pr_number=pr_number,
        reviewer=reviewer[:200],
        verdict=verdict,
        summary=summary,
        status=status,
        head_sha=head_sha,
        source="api",
        is_bot=is_bot,
        created_at=now,
        submitted_at=None if status in IN_PROGRESS else now,
        updated_at=now,
    )
    session.add(row)
    session.flush()
    return row, True


def recent(session: Session, project_id: int, *, limit: int) -> tuple[list[Review], int]:
    """Newest first (created_at, then id), and the exact number of the project's reviews."""
    limit = max(1, min(limit, MAX_RECENT))
    page = session.scalars(
        select(Review)
        .where(Review.project_id == project_id)
        .order_by(Review.created_at.desc(), Review.id.desc())
        .limit(limit)
    )
    total = session.scalar(select(func.count()).select_from(Review).where(Review.project_id == project_id))
    return list(page), int(total or 0)


def _verdict_rank() -> tuple[ColumnElement[Any], ...]:
    """The order in which a PR's reviews compete to be *the* verdict (best first)."""
    return (
        Review.is_bot.desc(),
        case((Review.status == "completed", 0), else_=1),
        Review.created_at.desc(),
        Review.id.desc(),
    )


def verdict_of(session: Session, project_id: int, pr_number: int) -> Review | None:
    """The review that is the PR's verdict: not dismissed; the review bot's over anyone's; a
    completed one over one in progress; then the newest. None when the PR has no such review."""
    return session.scalar(
        select(Review)
        .where(Review.project_id == project_id, Review.pr_number == pr_number, Review.dismissed_at.is_(None))
        .order_by(*_verdict_rank())
        .limit(1)
    )


def verdicts_of_prs(
    session: Session, project_id: int, *, skip_states: tuple[str, ...] = ()
) -> dict[int, str]:
    """PR number → verdict of its deciding *completed* review, for every PR of the project that
    has a PR row (whose state is not in `skip_states`) and at least one completed, undismissed
    review (one indexed pass; the ranking is the one `verdict_of` uses)."""
    ranked = (
        select(
            Review.pr_number,
            Review.verdict,
            func.row_number()
            .over(partition_by=Review.pr_number, order_by=(Review.is_bot.desc(), Review.created_at.desc(), Review.id.desc()))
            .label("rank"),
        )
        .join(PullRequest, (PullRequest.project_id == Review.project_id) & (PullRequest.number == Review.pr_number))
        .where(Review.project_id == project_id, Review.status == "completed", Review.dismissed_at.is_(None))
        .where(or_(PullRequest.state.is_(None), PullRequest.state.not_in(skip_states)) if skip_states else true())
        .subquery()
    )
    query = select(ranked.c.pr_number, ranked.c.verdict).where(ranked.c.rank == 1)
    return {number: verdict for number, verdict in session.execute(query)}



def count_open_reviewed(session: Session, project_id: int) -> int:
    """Open PRs with at least one completed, undismissed review: the PRs the reviewer has indexed."""
    query = (
        select(func.count(func.distinct(PullRequest.number)))
        .join(Review, (Review.project_id == PullRequest.project_id) & (Review.pr_number == PullRequest.number))
        .where(
            PullRequest.project_id == project_id, PullRequest.state == "open",
            Review.status == "completed", Review.dismissed_at.is_(None),
        )
    )  # fmt: skip
    return int(session.scalar(query) or 0)
