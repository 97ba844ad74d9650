"""Tables of the relational store: projects, API tokens, the audit log and graph versions.

The same models run on SQLite (embedded default) and PostgreSQL (Aurora). Every change here needs
a migration in `migrations/versions/`; a test compares the two and fails on drift.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Explicit constraint names: Alembic can only alter or drop constraints it can name, and SQLite
# batch migrations rebuild tables from these names.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# JSONB on PostgreSQL (indexable, compact); JSON text on SQLite.
PortableJSON = JSON().with_variant(JSONB(), "postgresql")

# SQLite only auto-increments an INTEGER PRIMARY KEY, not BIGINT.
AutoBigInt = BigInteger().with_variant(Integer(), "sqlite")

AUDIT_OUTCOMES = ("ok", "denied", "error", "invalid")
VERSION_STATUSES = ("running", "completed", "failed")


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp that is always a UTC-aware datetime in Python.

    PostgreSQL stores `timestamptz`; SQLite has no time zones, so the UTC wall time is stored and
    the zone re-attached on read. Naive datetimes are refused: their zone is a guess.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value.isoformat()}: pass a timezone-aware datetime")
        value = value.astimezone(timezone.utc)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc)


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(value) for value in values)})"


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Project(Base):
    __tablename__ = "projects"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    slug: Mapped[str] = mapped_column(String(201), unique=True, nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False, default=utcnow)


class ApiToken(Base):
    __tablename__ = "api_tokens"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, index=True, nullable=False)
    principal: Mapped[str] = mapped_column(String(200), nullable=False)
    projects: Mapped[list[str]] = mapped_column(PortableJSON, nullable=False)
    scopes: Mapped[list[str]] = mapped_column(PortableJSON, nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False, default=utcnow)
    expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    description: Mapped[str | None] = mapped_column(String(500), nullable=True)


class AuditEntry(Base):
    __tablename__ = "audit_log"
    __table_args__ = (
        CheckConstraint(_in("outcome", AUDIT_OUTCOMES), name="outcome"),
        Index("ix_audit_log_at", "at"),
        Index("ix_audit_log_principal_at", "principal", "at"),
        Index("ix_audit_log_project_at", "project", "at"),
    )

    id: Mapped[int] = mapped_column(AutoBigInt, primary_key=True, autoincrement=True)
    at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False, default=utcnow)
    request_id: Mapped[str] = mapped_column(String(100), nullable=False)
    principal: Mapped[str] = mapped_column(String(200), nullable=False)
    # No foreign key: the audit trail must outlive deleted tokens and record unknown ones.
    token_id: Mapped[str] = mapped_column(String(16), nullable=False)
    tool: Mapped[str] = mapped_column(String(100), nullable=False)
    project: Mapped[str | None] = mapped_column(String(201), nullable=True)
    arguments_summary: Mapped[str] = mapped_column(Text, nullable=False)
    outcome: Mapped[str] = mapped_column(String(10), nullable=False)
    error_code: Mapped[str | None] = mapped_column(String(100), nullable=True)
    latency_ms: Mapped[float] = mapped_column(Float, nullable=False)
    result_bytes: Mapped[int] = mapped_column(Integer, nullable=False)


class GraphVersion(Base):
    __tablename__ = "graph_versions"
    __table_args__ = (
        UniqueConstraint("project_id", "version"),
        CheckConstraint(_in("status", VERSION_STATUSES), name="status"),
        Index("ix_graph_versions_project_id_status_version", "project_id", "status", "version"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("projects.id", ondelete="CASCADE"), nullable=False
    )
    version: Mapped[int] = mapped_column(Integer, nullable=False)
    commit_sha: Mapped[str | None] = mapped_column(String(64), nullable=True)
    status: Mapped[str] = mapped_column(String(10), nullable=False)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False, default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    node_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
    edge_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
    stats: Mapped[dict[str, Any] | None] = mapped_column(PortableJSON, nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)


# Tables defined in their own modules register on Base.metadata when imported: importing them here
# keeps Base.metadata (the migrations' target and the drift test's reference) complete.
from rhumbline.stores.relational import review_models as _review_models  # noqa: E402,F401
from rhumbline.stores.relational import ingest_models as _ingest_models  # noqa: E402,F401
from rhumbline.stores.relational import exploration_models as _exploration_models  # noqa: E402,F401
