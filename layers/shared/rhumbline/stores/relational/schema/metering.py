"""Usage rollups (migration 0007_metering) and the meters of callers without a token row (0011_subject_meters).

`usage_daily` holds one row per UTC day, token, principal, project and tool, updated in the same
transaction as each call's audit row (stores/relational/usage.py), so a report reads
O(days x keys) rows and the audit log can be pruned without losing what was billed.

`subject_meters` holds the bucket and the month's count of each OIDC subject (its caller id,
gateway/oidc.py), made on its first metered call; its limits are the deployment's defaults
(stores/relational/limits.py).
"""

from __future__ import annotations

from datetime import date

from sqlalchemy import BigInteger, Date, Float, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from rhumbline.stores.relational.schema.base import Base


class UsageDaily(Base):
    __tablename__ = "usage_daily"
    __table_args__ = (Index("ix_usage_daily_token_id_day", "token_id", "day"),)

    day: Mapped[date] = mapped_column(Date, primary_key=True)
    token_id: Mapped[str] = mapped_column(String(16), primary_key=True)
    principal: Mapped[str] = mapped_column(String(200), primary_key=True)
    # '' for calls that name no project: a key column must not be NULL for the upsert to find it.
    project: Mapped[str] = mapped_column(String(201), primary_key=True)
    tool: Mapped[str] = mapped_column(String(100), primary_key=True)
    # calls = billable + denied + invalid + errors: one count per audit outcome (billable is "ok").
    calls: Mapped[int] = mapped_column(Integer, nullable=False)
    billable: Mapped[int] = mapped_column(Integer, nullable=False)
    denied: Mapped[int] = mapped_column(Integer, nullable=False)
    invalid: Mapped[int] = mapped_column(Integer, nullable=False)
    errors: Mapped[int] = mapped_column(Integer, nullable=False)
    # Sums of the audit rows' latency (integer microseconds: sums stay exact) and result sizes.
    duration_us: Mapped[int] = mapped_column(BigInteger, nullable=False)
    result_bytes: Mapped[int] = mapped_column(BigInteger, nullable=False)


class SubjectMeter(Base):
    __tablename__ = "subject_meters"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    # As on api_tokens: the bucket's level at `bucket_at` (unix seconds; NULL: full), and the calls
    # counted in `quota_month` (year * 100 + month).
    bucket_level: Mapped[float | None] = mapped_column(Float, nullable=True)
    bucket_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    quota_month: Mapped[int | None] = mapped_column(Integer, nullable=True)
    quota_used: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
