"""version_files (each graph version's manifest of stored files) and source_blobs (their contents,
shared between versions by digest).

Revision ID: 0012_sources
Revises: 0011_subject_meters
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012_sources"
down_revision: str | None = "0011_subject_meters"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "version_files",
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("path", sa.String(1024), nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["version_id"],
            ["graph_versions.id"],
            name=op.f("fk_version_files_version_id_graph_versions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("version_id", "path", name=op.f("pk_version_files")),
    )
    op.create_index("ix_version_files_digest", "version_files", ["digest"])
    op.create_table(
        "source_blobs",
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("content", sa.LargeBinary(), nullable=True),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_source_blobs_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("project_id", "digest", name=op.f("pk_source_blobs")),
    )


def downgrade() -> None:
    op.drop_table("source_blobs")
    op.drop_index("ix_version_files_digest", table_name="version_files")
    op.drop_table("version_files")
