"""contributor_emails: commit e-mail addresses GitHub tied to a login (push events' commit authors).

Revision ID: 0009_contributor_emails
Revises: 0008_ingest_lease
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009_contributor_emails"
down_revision: str | None = "0008_ingest_lease"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "contributor_emails",
        sa.Column("project_id", sa.Integer(), sa.ForeignKey("projects.id", ondelete="CASCADE"), nullable=False),
        sa.Column("email", sa.String(320), nullable=False),
        sa.Column("login", sa.String(100), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("project_id", "email"),
    )


def downgrade() -> None:
    op.drop_table("contributor_emails")
