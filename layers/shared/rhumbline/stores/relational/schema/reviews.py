"""Tables of the review data: pull requests (and the files they touch), reviews, webhook deliveries,
commit e-mails tied to logins.

Registered on the same `Base.metadata` as the core tables (the schema package imports every module),
so migrations and the models-vs-migrations drift test see them. Migrations: 0002_reviews,
0009_contributor_emails.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal, get_args

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    PrimaryKeyConstraint,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column

from rhumbline.stores.relational.schema.base import AutoBigInt, Base, UTCDateTime, one_of, utcnow

# Each set of values once, as the type of the column and the tuple its CHECK constraint lists.
PrState = Literal["open", "closed", "merged"]
PR_STATES: tuple[PrState, ...] = get_args(PrState)
Verdict = Literal["APPROVED", "CHANGES_REQUESTED", "COMMENT", "UNKNOWN"]
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)
ReviewStatus = Literal["pending", "processing", "completed", "failed"]
REVIEW_STATUSES: tuple[ReviewStatus, ...] = get_args(ReviewStatus)
REVIEW_SOURCES = ("github", "api")
DELIVERY_OUTCOMES = ("processed", "ignored", "reingest_invoked", "reingest_recorded")


class PullRequest(Base):
    """One pull request of a project, as last reported by GitHub (or first seen through a review).

    `state` is NULL when the PR is known only from a review recorded through the API: no GitHub
    event has told us its state yet, and guessing "open" would be a lie.
    """

    __tablename__ = "pull_requests"
    __table_args__ = (
        UniqueConstraint("project_id", "number"),
        CheckConstraint(one_of("state", PR_STATES), name="state"),
        CheckConstraint("number > 0", name="number_positive"),
        Index("ix_pull_requests_project_id_state", "project_id", "state"),
        Index("ix_pull_requests_project_id_author", "project_id", "author"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(Integer, ForeignKey("projects.id", ondelete="CASCADE"), nullable=False)
    number: Mapped[int] = mapped_column(Integer, nullable=False)
    title: Mapped[str | None] = mapped_column(String(1024), nullable=True)
    author: Mapped[str | None] = mapped_column(String(100), nullable=True)
    state: Mapped[PrState | None] = mapped_column(String(10), nullable=True)
    base_ref: Mapped[str | None] = mapped_column(Text, nullable=True)
    head_ref: Mapped[str | None] = mapped_column(Text, nullable=True)
    head_sha: Mapped[str | None] = mapped_column(String(64), nullable=True)
    opened_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    merged_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    # GitHub's `updated_at` of the PR (our clock for API-only rows): a delivery older than this is
    # stale (GitHub does not guarantee delivery order) and must not roll the row back.
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False, default=utcnow)
    # Webhook payloads carry no file list: False until files arrive through record_review.
    files_known: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False, server_default=false())


class PullRequestFile(Base):
    """A path a pull request touched. A child table (not JSON) so "PRs that touched X" is indexed."""

    __tablename__ = "pull_request_files"
    __table_args__ = (
        PrimaryKeyConstraint("pull_request_id", "path"),
        Index("ix_pull_request_files_project_id_path", "project_id", "path"),
    )

    pull_request_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("pull_requests.id", ondelete="CASCADE"), nullable=False
    )
    # Denormalised from the PR so the per-project path index needs no join.
    project_id: Mapped[int] = mapped_column(Integer, ForeignKey("projects.id", ondelete="CASCADE"), nullable=False)
    path: Mapped[str] = mapped_column(String(1024), nullable=False)


class ContributorEmail(Base):
    """A commit e-mail address GitHub tied to an account: a push event's commit author (or
    committer) carries both the address and the `username` GitHub matched it to. Lets git history
    (Contributor nodes keyed by e-mail) merge with PR authors (keyed by login)."""

    __tablename__ = "contributor_emails"
    __table_args__ = (PrimaryKeyConstraint("project_id", "email"),)

    project_id: Mapped[int] = mapped_column(Integer, ForeignKey("projects.id", ondelete="CASCADE"), nullable=False)
    email: Mapped[str] = mapped_column(String(320), nullable=False)  # lower-cased
    login: Mapped[str] = mapped_column(String(100), nullable=False)
    seen_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False, default=utcnow)


class Review(Base):
    """One review of a PR: from GitHub (a pull_request_review event) or the API (record_review)."""

    __tablename__ = "reviews"
    __table_args__ = (
        # NULLs are distinct in both databases: API reviews (no GitHub id) never collide.
        UniqueConstraint("project_id", "github_review_id"),
        CheckConstraint(one_of("verdict", VERDICTS), name="verdict"),
        CheckConstraint(one_of("status", REVIEW_STATUSES), name="status"),
        CheckConstraint(one_of("source", REVIEW_SOURCES), name="source"),
        CheckConstraint("pr_number > 0", name="pr_number_positive"),
        Index("ix_reviews_project_id_created_at", "project_id", "created_at"),
        Index("ix_reviews_project_id_pr_number", "project_id", "pr_number"),
    )

    id: Mapped[int] = mapped_column(AutoBigInt, primary_key=True, autoincrement=True)
    project_id: Mapped[int] = mapped_column(Integer, ForeignKey("projects.id", ondelete="CASCADE"), nullable=False)
    # No foreign key to pull_requests: a review may be recorded before its PR's first event.
    pr_number: Mapped[int] = mapped_column(Integer, nullable=False)
    reviewer: Mapped[str] = mapped_column(String(200), nullable=False)
    verdict: Mapped[Verdict] = mapped_column(String(20), nullable=False)
    summary: Mapped[str] = mapped_column(Text, nullable=False, default="")
    status: Mapped[ReviewStatus] = mapped_column(String(12), nullable=False)
    head_sha: Mapped[str | None] = mapped_column(String(64), nullable=True)
    github_review_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    source: Mapped[str] = mapped_column(String(10), nullable=False)
    is_bot: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False, server_default=false())
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False, default=utcnow)
    submitted_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False, default=utcnow)
    dismissed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)


class WebhookDelivery(Base):
    """One processed GitHub delivery, keyed by X-GitHub-Delivery: a replay finds its row and stops.

    The header is not covered by the signature, so the body's digest is unique too: a captured
    delivery sent again under a new id is a replay as well."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        CheckConstraint(one_of("outcome", DELIVERY_OUTCOMES), name="outcome"),
        Index("ix_webhook_deliveries_received_at", "received_at"),
        Index("ux_webhook_deliveries_payload_sha256", "payload_sha256", unique=True),
    )

    delivery_id: Mapped[str] = mapped_column(String(100), primary_key=True)
    event: Mapped[str] = mapped_column(String(64), nullable=False)
    action: Mapped[str | None] = mapped_column(String(64), nullable=True)
    repository: Mapped[str | None] = mapped_column(String(201), nullable=True)
    received_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False, default=utcnow)
    outcome: Mapped[str] = mapped_column(String(20), nullable=False)
    detail: Mapped[str | None] = mapped_column(Text, nullable=True)
    payload_sha256: Mapped[str | None] = mapped_column(String(64), nullable=True)
