"""The core tables: projects, API tokens, the audit log and graph versions (migration 0001_initial;
the tokens' toolsets: 0006_token_toolsets; their limits and meter state: 0007_metering)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal, get_args

from sqlalchemy import CheckConstraint, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from rhumbline.stores.relational.schema.base import AutoBigInt, Base, PortableJSON, UTCDateTime, one_of, utcnow

AuditOutcome = Literal["ok", "denied", "error", "invalid"]
AUDIT_OUTCOMES: tuple[AuditOutcome, ...] = get_args(AuditOutcome)
VersionStatus = Literal["running", "completed", "failed"]
VERSION_STATUSES: tuple[VersionStatus, ...] = get_args(VersionStatus)


class Project(Base):
    __tablename__ = "projects"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    slug: Mapped[str] = mapped_column(String(201), unique=True, nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False, default=utcnow)


class ApiToken(Base):
    __tablename__ = "api_tokens"
    __table_args__ = (
        CheckConstraint("rate_per_minute > 0", name="rate_per_minute_positive"),
        CheckConstraint("rate_burst > 0", name="rate_burst_positive"),
        CheckConstraint("monthly_quota > 0", name="monthly_quota_positive"),
    )

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
    # The toolsets a client gets when it chooses none (gateway/toolsets.py); None: all.
    toolsets: Mapped[list[str] | None] = mapped_column(PortableJSON, nullable=True)
    # Limits (NULL: none). The rate limit is a token bucket of `rate_burst` calls (NULL: the rate),
    # refilled at `rate_per_minute`; the quota counts the calls admitted in a calendar month (UTC).
    rate_per_minute: Mapped[int | None] = mapped_column(Integer, nullable=True)
    rate_burst: Mapped[int | None] = mapped_column(Integer, nullable=True)
    monthly_quota: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # Meter state, written by the gateway's admission of each call (stores/relational/limits.py).
    # The bucket's level at `bucket_at` (unix seconds: plain arithmetic on both databases); NULL: full.
    bucket_level: Mapped[float | None] = mapped_column(Float, nullable=True)
    bucket_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    # Tool calls admitted in `quota_month` (year * 100 + month), whatever their outcome.
    quota_month: Mapped[int | None] = mapped_column(Integer, nullable=True)
    quota_used: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")


class AuditEntry(Base):
    __tablename__ = "audit_log"
    __table_args__ = (
        CheckConstraint(one_of("outcome", AUDIT_OUTCOMES), name="outcome"),
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
        CheckConstraint(one_of("status", VERSION_STATUSES), name="status"),
        Index("ix_graph_versions_project_id_status_version", "project_id", "status", "version"),
        # The ingest lease: at most one running version (one ingest) per project (0008_ingest_lease).
        Index(
            "ux_graph_versions_one_running", "project_id", unique=True,
            sqlite_where=text("status = 'running'"), postgresql_where=text("status = 'running'"),
        ),  # fmt: skip
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("projects.id", ondelete="CASCADE"), nullable=False
    )
    version: Mapped[int] = mapped_column(Integer, nullable=False)
    commit_sha: Mapped[str | None] = mapped_column(String(64), nullable=True)
    status: Mapped[VersionStatus] = mapped_column(String(10), nullable=False)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False, default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    node_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
    edge_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
    stats: Mapped[dict[str, Any] | None] = mapped_column(PortableJSON, nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    # Who runs the ingest of a running version, and until when it holds the project's lease (it
    # renews it while it runs; past it, the ingest is taken for dead and its version fails).
    holder: Mapped[str | None] = mapped_column(String(300), nullable=True)
    # The holder as `machine/pid` (stores/relational/versions.py): on that machine, a lease whose
    # process is gone is released at once instead of at its expiry.
    holder_process: Mapped[str | None] = mapped_column(String(120), nullable=True)
    lease_expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
