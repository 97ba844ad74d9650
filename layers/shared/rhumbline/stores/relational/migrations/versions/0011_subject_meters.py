"""subject_meters: the rate bucket and monthly count of each OIDC subject, metered like a token.

Revision ID: 0011_subject_meters
Revises: 0010_lease_process
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011_subject_meters"
down_revision: str | None = "0010_lease_process"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "subject_meters",
        sa.Column("id", sa.String(16), nullable=False),
        sa.Column("bucket_level", sa.Float(), nullable=True),
        sa.Column("bucket_at", sa.Float(), nullable=True),
        sa.Column("quota_month", sa.Integer(), nullable=True),
        sa.Column("quota_used", sa.Integer(), nullable=False, server_default="0"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_subject_meters")),
    )


def downgrade() -> None:
    op.drop_table("subject_meters")
