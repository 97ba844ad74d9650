"""Review data: pull_requests, pull_request_files, reviews, webhook_deliveries.

Revision ID: 0002_reviews
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002_reviews"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Spelled out rather than imported from models (see 0001).
AUTO_BIGINT = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TIMESTAMP = sa.DateTime(timezone=True)


def _project_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["project_id"], ["projects.id"], name=op.f(f"fk_{table}_project_id_projects"), ondelete="CASCADE"
    )


def upgrade() -> None:
    op.create_table(
        "pull_requests",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("title", sa.String(1024), nullable=True),
        sa.Column("author", sa.String(100), nullable=True),
        sa.Column("state", sa.String(10), nullable=True),
        sa.Column("base_ref", sa.Text(), nullable=True),
        sa.Column("head_ref", sa.Text(), nullable=True),
        sa.Column("head_sha", sa.String(64), nullable=True),
        sa.Column("opened_at", TIMESTAMP, nullable=True),
        sa.Column("merged_at", TIMESTAMP, nullable=True),
        sa.Column("closed_at", TIMESTAMP, nullable=True),
        sa.Column("updated_at", TIMESTAMP, nullable=False),
        sa.Column("files_known", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.CheckConstraint("state IN ('open', 'closed', 'merged')", name=op.f("ck_pull_requests_state")),
        sa.CheckConstraint("number > 0", name=op.f("ck_pull_requests_number_positive")),
        _project_fk("pull_requests"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_pull_requests")),
        sa.UniqueConstraint("project_id", "number", name=op.f("uq_pull_requests_project_id_number")),
    )
    op.create_index(op.f("ix_pull_requests_project_id_state"), "pull_requests", ["project_id", "state"])
    op.create_index(op.f("ix_pull_requests_project_id_author"), "pull_requests", ["project_id", "author"])

    op.create_table(
        "pull_request_files",
        sa.Column("pull_request_id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("path", sa.String(1024), nullable=False),
        sa.ForeignKeyConstraint(
            ["pull_request_id"],
            ["pull_requests.id"],
            name=op.f("fk_pull_request_files_pull_request_id_pull_requests"),
            ondelete="CASCADE",
        ),
        _project_fk("pull_request_files"),
        sa.PrimaryKeyConstraint("pull_request_id", "path", name=op.f("pk_pull_request_files")),
    )
    op.create_index(
        op.f("ix_pull_request_files_project_id_path"), "pull_request_files", ["project_id", "path"]
    )

    op.create_table(
        "reviews",
        sa.Column("id", AUTO_BIGINT, autoincrement=True, nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("pr_number", sa.Integer(), nullable=False),
        sa.Column("reviewer", sa.String(200), nullable=False),
        sa.Column("verdict", sa.String(20), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("head_sha", sa.String(64), nullable=True),
        sa.Column("github_review_id", sa.BigInteger(), nullable=True),
        sa.Column("source", sa.String(10), nullable=False),
        sa.Column("is_bot", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("submitted_at", TIMESTAMP, nullable=True),
        sa.Column("updated_at", TIMESTAMP, nullable=False),
        sa.Column("dismissed_at", TIMESTAMP, nullable=True),
        sa.CheckConstraint(
            "verdict IN ('APPROVED', 'CHANGES_REQUESTED', 'COMMENT', 'UNKNOWN')", name=op.f("ck_reviews_verdict")
        ),
        sa.CheckConstraint(
            "status IN ('pending', 'processing', 'completed', 'failed')", name=op.f("ck_reviews_status")
        ),
        sa.CheckConstraint("source IN ('github', 'api')", name=op.f("ck_reviews_source")),
        sa.CheckConstraint("pr_number > 0", name=op.f("ck_reviews_pr_number_positive")),
        _project_fk("reviews"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_reviews")),
        sa.UniqueConstraint("project_id", "github_review_id", name=op.f("uq_reviews_project_id_github_review_id")),
    )
    op.create_index(op.f("ix_reviews_project_id_created_at"), "reviews", ["project_id", "created_at"])
    op.create_index(op.f("ix_reviews_project_id_pr_number"), "reviews", ["project_id", "pr_number"])

    op.create_table(
        "webhook_deliveries",
        sa.Column("delivery_id", sa.String(100), nullable=False),
        sa.Column("event", sa.String(64), nullable=False),
        sa.Column("action", sa.String(64), nullable=True),
        sa.Column("repository", sa.String(201), nullable=True),
        sa.Column("received_at", TIMESTAMP, nullable=False),
        sa.Column("outcome", sa.String(20), nullable=False),
        sa.Column("detail", sa.Text(), nullable=True),
        sa.CheckConstraint(
            "outcome IN ('processed', 'ignored', 'reingest_invoked', 'reingest_recorded')",
            name=op.f("ck_webhook_deliveries_outcome"),
        ),
        sa.PrimaryKeyConstraint("delivery_id", name=op.f("pk_webhook_deliveries")),
    )
    op.create_index(op.f("ix_webhook_deliveries_received_at"), "webhook_deliveries", ["received_at"])


def downgrade() -> None:
    op.drop_table("webhook_deliveries")
    op.drop_table("reviews")
    op.drop_table("pull_request_files")
    op.drop_table("pull_requests")
