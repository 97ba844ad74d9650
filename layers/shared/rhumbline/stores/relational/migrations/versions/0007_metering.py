"""Metering: per-token limits and meter state on api_tokens, and the usage_daily rollups.

Revision ID: 0007_metering
Revises: 0006_token_toolsets
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007_metering"
down_revision: str | None = "0006_token_toolsets"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

LIMITS = ("rate_per_minute", "rate_burst", "monthly_quota")


def upgrade() -> None:
    with op.batch_alter_table("api_tokens") as table:
        for limit in LIMITS:
            table.add_column(sa.Column(limit, sa.Integer(), nullable=True))
        table.add_column(sa.Column("bucket_level", sa.Float(), nullable=True))
        table.add_column(sa.Column("bucket_at", sa.Float(), nullable=True))
        table.add_column(sa.Column("quota_month", sa.Integer(), nullable=True))
        table.add_column(sa.Column("quota_used", sa.Integer(), nullable=False, server_default="0"))
        for limit in LIMITS:
            table.create_check_constraint(f"{limit}_positive", f"{limit} > 0")
    op.create_table(
        "usage_daily",
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("token_id", sa.String(16), nullable=False),
        sa.Column("principal", sa.String(200), nullable=False),
        sa.Column("project", sa.String(201), nullable=False),
        sa.Column("tool", sa.String(100), nullable=False),
        sa.Column("calls", sa.Integer(), nullable=False),
        sa.Column("billable", sa.Integer(), nullable=False),
        sa.Column("denied", sa.Integer(), nullable=False),
        sa.Column("invalid", sa.Integer(), nullable=False),
        sa.Column("errors", sa.Integer(), nullable=False),
        sa.Column("duration_us", sa.BigInteger(), nullable=False),
        sa.Column("result_bytes", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("day", "token_id", "principal", "project", "tool", name=op.f("pk_usage_daily")),
    )
    op.create_index("ix_usage_daily_token_id_day", "usage_daily", ["token_id", "day"])


def downgrade() -> None:
    op.drop_index("ix_usage_daily_token_id_day", table_name="usage_daily")
    op.drop_table("usage_daily")
    with op.batch_alter_table("api_tokens") as table:
        for limit in LIMITS:
            table.drop_constraint(f"{limit}_positive", type_="check")
        for column in ("quota_used", "quota_month", "bucket_at", "bucket_level", *reversed(LIMITS)):
            table.drop_column(column)
