"""graph_versions.holder and .lease_expires_at, and at most one running version per project:
the ingest lease (one ingest per project at a time; an ingest that stops renewing it is dead).

Revision ID: 0008_ingest_lease
Revises: 0007_metering
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008_ingest_lease"
down_revision: str | None = "0007_metering"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

RUNNING = sa.text("status = 'running'")


def upgrade() -> None:
    with op.batch_alter_table("graph_versions") as table:
        table.add_column(sa.Column("holder", sa.String(300), nullable=True))
        table.add_column(sa.Column("lease_expires_at", sa.DateTime(timezone=True), nullable=True))
    # Versions left running by ingests that died before this revision: nobody renews them.
    op.execute(
        "UPDATE graph_versions SET status = 'failed', error = 'interrupted: the ingest stopped before it finished' "
        "WHERE status = 'running'"
    )
    op.create_index(
        "ux_graph_versions_one_running", "graph_versions", ["project_id"], unique=True,
        sqlite_where=RUNNING, postgresql_where=RUNNING,
    )  # fmt: skip


def downgrade() -> None:
    op.drop_index("ux_graph_versions_one_running", table_name="graph_versions")
    with op.batch_alter_table("graph_versions") as table:
        table.drop_column("lease_expires_at")
        table.drop_column("holder")
