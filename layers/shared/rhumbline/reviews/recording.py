"""Writing PRs and reviews: the operations the webhook and record_review share.

Each function runs inside the caller's transaction and returns what the graph projection needs,
copied out of the session, so the graph is written only after the relational commit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from rhumbline.reviews.graph_projection import PullRequestSnapshot
from rhumbline.stores.relational import projects, pull_requests, reviews
from rhumbline.stores.relational.schema.core import Project
from rhumbline.stores.relational.pull_requests import PullRequestFacts
from rhumbline.stores.relational.schema.reviews import PullRequest
from rhumbline.stores.relational.reviews import GitHubReview


def find_project(session: Session, slug: str, *, create: bool) -> Project | None:
    """The project for a repository name. GitHub names are case-insensitive: `Acme/Shop` finds a
    project ingested as `acme/shop`. With `create`, an unknown repository becomes a project."""
    exact = projects.get(session, slug)
    if exact is not None:
        return exact
    folded = session.scalar(
        select(Project).where(func.lower(Project.slug) == slug.lower()).order_by(Project.slug).limit(1)
    )
    if folded is not None or not create:
        return folded
    return projects.get_or_create(session, slug)


def snapshot(row: PullRequest, files: Sequence[str] | None) -> PullRequestSnapshot:
    return PullRequestSnapshot(
        number=row.number,
        title=row.title,
        author=row.author,
        state=row.state,
        files=tuple(files) if files is not None else None,
    )


def record_pull_request(
    session: Session, project_id: int, facts: PullRequestFacts
) -> tuple[bool, PullRequestSnapshot]:
    """Upsert a PR from an event. Returns (applied, snapshot); not applied = a stale delivery."""
    row, applied = pull_requests.upsert(session, project_id, facts)
    return applied, snapshot(row, None)


@dataclass(frozen=True)
class RecordedReview:
    review_id: int
    created: bool
    pull_request: PullRequestSnapshot


def record_github_review(
    session: Session,
    project_id: int,
    pr_facts: PullRequestFacts,
    review: GitHubReview,
    *,
    dismissed_at: datetime | None,
) -> RecordedReview:
    """A pull_request_review event: the PR it carries, then the review (dismissed when asked)."""
    pr_row, _ = pull_requests.upsert(session, project_id, pr_facts)
    existing = reviews.dismiss(session, project_id, review.github_review_id, dismissed_at) if dismissed_at else None
    if existing is not None:
        # A dismissal payload says state "dismissed": keep what the review decided before.
        return RecordedReview(existing.id, False, snapshot(pr_row, None))
    row, created = reviews.upsert_github(session, project_id, review)
    if dismissed_at is not None:
        reviews.dismiss(session, project_id, review.github_review_id, dismissed_at)
    return RecordedReview(row.id, created, snapshot(pr_row, None))


def record_api_review(
    session: Session,
    project_id: int,
    *,
    pr_number: int,
    reviewer: str,
    verdict: str,
    summary: str,
    status: str,
    head_sha: str | None,
    files: Sequence[str] | None,
) -> RecordedReview:
    """record_review: the AI reviewer's verdict (flagged as the bot's), and the PR's files if given."""
    pr_row = pull_requests.ensure(session, project_id, pr_number)
    stored_files = pull_requests.set_files(session, pr_row, files) if files is not None else None
    row, created = reviews.record_api(
        session,
        project_id,
        pr_number=pr_number,
        reviewer=reviewer,
        verdict=verdict,
        summary=summary,
        status=status,
        head_sha=head_sha,
        is_bot=True,
    )
    return RecordedReview(row.id, created, snapshot(pr_row, stored_files))
