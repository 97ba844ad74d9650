"""api_tokens.toolsets: the toolsets a client of the token gets when it chooses none.

Revision ID: 0006_token_toolsets
Revises: 0005_delivery_digest
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0006_token_toolsets"
down_revision: str | None = "0005_delivery_digest"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("api_tokens") as table:
        table.add_column(sa.Column("toolsets", JSON, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("api_tokens") as table:
        table.drop_column("toolsets")
