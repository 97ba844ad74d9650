"""graph_versions.holder_process: the machine and process that hold a running version's lease.

Revision ID: 0010_lease_process
Revises: 0009_contributor_emails
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_lease_process"
down_revision: str | None = "0009_contributor_emails"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("graph_versions") as table:
        table.add_column(sa.Column("holder_process", sa.String(120), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("graph_versions") as table:
        table.drop_column("holder_process")
