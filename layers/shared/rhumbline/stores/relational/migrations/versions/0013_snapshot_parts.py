"""graph_snapshot_parts: a graph version's snapshot bytes in bounded parts, so no single value
or statement carries a whole snapshot (graph_snapshots.blob stays for rows written before).

Revision ID: 0013_snapshot_parts
Revises: 0012_sources
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013_snapshot_parts"
down_revision: str | None = "0012_sources"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "graph_snapshot_parts",
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["version_id"],
            ["graph_snapshots.version_id"],
            name=op.f("fk_graph_snapshot_parts_version_id_graph_snapshots"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("version_id", "seq", name=op.f("pk_graph_snapshot_parts")),
    )


def downgrade() -> None:
    op.drop_table("graph_snapshot_parts")
