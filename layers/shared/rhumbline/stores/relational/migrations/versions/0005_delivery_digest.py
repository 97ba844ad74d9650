"""webhook_deliveries.payload_sha256: a signed body replayed under a new X-GitHub-Delivery is a duplicate.

Revision ID: 0005_delivery_digest
Revises: 0004_annotations
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_delivery_digest"
down_revision: str | None = "0004_annotations"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("webhook_deliveries") as table:
        table.add_column(sa.Column("payload_sha256", sa.String(64), nullable=True))
    op.create_index(
        "ux_webhook_deliveries_payload_sha256", "webhook_deliveries", ["payload_sha256"], unique=True
    )


def downgrade() -> None:
    op.drop_index("ux_webhook_deliveries_payload_sha256", table_name="webhook_deliveries")
    with op.batch_alter_table("webhook_deliveries") as table:
        table.drop_column("payload_sha256")
