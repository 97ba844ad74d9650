"""Initial schema: projects, api_tokens, audit_log, graph_versions.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Names are wrapped in op.f(): they are final, not inputs to the metadata's naming convention.
# Spelled out rather than imported from models: a migration must keep meaning what it meant when
# it was written, whatever the models become.
JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
AUTO_BIGINT = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TIMESTAMP = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "projects",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("slug", sa.String(201), nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_projects")),
        sa.UniqueConstraint("slug", name=op.f("uq_projects_slug")),
    )
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.String(16), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("principal", sa.String(200), nullable=False),
        sa.Column("projects", JSON, nullable=False),
        sa.Column("scopes", JSON, nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("expires_at", TIMESTAMP, nullable=True),
        sa.Column("revoked_at", TIMESTAMP, nullable=True),
        sa.Column("last_used_at", TIMESTAMP, nullable=True),
        sa.Column("description", sa.String(500), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_tokens")),
    )
    op.create_index(op.f("ix_api_tokens_token_hash"), "api_tokens", ["token_hash"], unique=True)
    op.create_table(
        "audit_log",
        sa.Column("id", AUTO_BIGINT, autoincrement=True, nullable=False),
        sa.Column("at", TIMESTAMP, nullable=False),
        sa.Column("request_id", sa.String(100), nullable=False),
        sa.Column("principal", sa.String(200), nullable=False),
        sa.Column("token_id", sa.String(16), nullable=False),
        sa.Column("tool", sa.String(100), nullable=False),
        sa.Column("project", sa.String(201), nullable=True),
        sa.Column("arguments_summary", sa.Text(), nullable=False),
        sa.Column("outcome", sa.String(10), nullable=False),
        sa.Column("error_code", sa.String(100), nullable=True),
        sa.Column("latency_ms", sa.Float(), nullable=False),
        sa.Column("result_bytes", sa.Integer(), nullable=False),
        sa.CheckConstraint("outcome IN ('ok', 'denied', 'error', 'invalid')", name=op.f("ck_audit_log_outcome")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_log")),
    )
    op.create_index(op.f("ix_audit_log_at"), "audit_log", ["at"])
    op.create_index(op.f("ix_audit_log_principal_at"), "audit_log", ["principal", "at"])
    op.create_index(op.f("ix_audit_log_project_at"), "audit_log", ["project", "at"])
    op.create_table(
        "graph_versions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("project_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("commit_sha", sa.String(64), nullable=True),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("started_at", TIMESTAMP, nullable=False),
        sa.Column("finished_at", TIMESTAMP, nullable=True),
        sa.Column("node_count", sa.Integer(), server_default="0", nullable=False),
        sa.Column("edge_count", sa.Integer(), server_default="0", nullable=False),
        sa.Column("stats", JSON, nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.CheckConstraint(
            "status IN ('running', 'completed', 'failed')", name=op.f("ck_graph_versions_status")
        ),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_graph_versions_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_graph_versions")),
        sa.UniqueConstraint("project_id", "version", name=op.f("uq_graph_versions_project_id_version")),
    )
    op.create_index(
        op.f("ix_graph_versions_project_id_status_version"),
        "graph_versions",
        ["project_id", "status", "version"],
    )


def downgrade() -> None:
    op.drop_table("graph_versions")
    op.drop_table("audit_log")
    op.drop_table("api_tokens")
    op.drop_table("projects")
