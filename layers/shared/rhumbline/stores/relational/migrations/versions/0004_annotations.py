"""Graph-exploration tables: annotations (add_annotation) and graph_centrality (blast_radius).

Revision ID: 0004_annotations
Revises: 0003_snapshots
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0004_annotations"
down_revision: str | None = "0003_snapshots"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Spelled out rather than imported from models (see 0001).
JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
AUTO_BIGINT = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TIMESTAMP = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "annotations",
        sa.Column("id", AUTO_BIGINT, autoincrement=True, nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("node_id", sa.String(2000), nullable=False),
        sa.Column("node_kind", sa.String(100), nullable=False),
        sa.Column("node_label", sa.String(1000), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("tags", JSON, nullable=False),
        sa.Column("author", sa.String(200), nullable=False),
        sa.Column("token_id", sa.String(16), nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_annotations_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_annotations")),
    )
    op.create_index("ix_annotations_project_id_node_id", "annotations", ["project_id", "node_id"])
    op.create_table(
        "graph_centrality",
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("graph_key", sa.String(100), nullable=False),
        sa.Column("computed_at", TIMESTAMP, nullable=False),
        sa.Column("node_count", sa.Integer(), nullable=False),
        sa.Column("edge_count", sa.Integer(), nullable=False),
        sa.Column("sources", sa.Integer(), nullable=False),
        sa.Column("exact", sa.Boolean(), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=False),
        sa.Column("scores", JSON, nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_graph_centrality_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("project_id", "graph_key", name=op.f("pk_graph_centrality")),
    )


def downgrade() -> None:
    op.drop_table("graph_centrality")
    op.drop_index("ix_annotations_project_id_node_id", table_name="annotations")
    op.drop_table("annotations")
