"""Incremental, versioned ingestion: ingested_files (phase-1 facts cache), graph_snapshots.

Revision ID: 0003_snapshots
Revises: 0002_reviews
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_snapshots"
down_revision: str | None = "0002_reviews"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "ingested_files",
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("path", sa.String(1024), nullable=False),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("language", sa.String(32), nullable=True),
        sa.Column("fingerprint", sa.String(16), nullable=False),
        sa.Column("facts", sa.LargeBinary(), nullable=True),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_ingested_files_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("project_id", "path", name=op.f("pk_ingested_files")),
    )
    op.create_table(
        "graph_snapshots",
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("format", sa.Integer(), nullable=False),
        sa.Column("node_count", sa.Integer(), nullable=False),
        sa.Column("edge_count", sa.Integer(), nullable=False),
        sa.Column("inputs", sa.String(32), nullable=True),
        sa.Column("blob", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["version_id"],
            ["graph_versions.id"],
            name=op.f("fk_graph_snapshots_version_id_graph_versions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("version_id", name=op.f("pk_graph_snapshots")),
    )


def downgrade() -> None:
    op.drop_table("graph_snapshots")
    op.drop_table("ingested_files")
