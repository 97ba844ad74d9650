"""Usage: each call counted in its day's rollup as its audit row is written, and reports on them.

A call is **billable** when its outcome is `ok`: the tool ran and answered. Refusals (scope,
project, rate limit, quota, revoked token), invalid requests and errors (the tool's or ours:
timeouts, unavailable stores, crashed functions) are counted but not billable.

`record_call` writes a call's audit row and adds it to `usage_daily` (an atomic INSERT ... ON
CONFLICT DO UPDATE, exact under any concurrency): on PostgreSQL as one statement (a data-modifying
CTE, one round trip), on SQLite as two in the caller's transaction. Either way both commit together
or not at all. (A token's quota is not billing: it counts every admitted call, limits.py.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy import Connection, Select, bindparam, func, insert, select
from sqlalchemy.dialects import postgresql, sqlite

from rhumbline.stores.relational import audit
from rhumbline.stores.relational.schema.core import AuditEntry
from rhumbline.stores.relational.schema.metering import UsageDaily

USAGE = UsageDaily.__table__
KEY = ("day", "token_id", "principal", "project", "tool")
COUNTS = ("calls", "billable", "denied", "invalid", "errors", "duration_us", "result_bytes")
# The audit outcome each call adds one to (besides `calls`).
OUTCOME_COUNTS = {"ok": "billable", "denied": "denied", "invalid": "invalid", "error": "errors"}
MAX_ROWS = 1000

# The statements of one call share one set of parameters, all named `call_*`. The rollup's project
# is '' where the audit row's is NULL.
_AUDIT_ROW = insert(AuditEntry.__table__).values({name: bindparam(f"call_{name}") for name in audit.COLUMNS})
_ROLLUP_PARAMETER = {name: f"call_{name}" for name in (*KEY, *COUNTS)} | {"project": "call_usage_project"}


def _upsert(dialect_insert: Any) -> Any:
    statement = dialect_insert(USAGE).values({name: bindparam(_ROLLUP_PARAMETER[name]) for name in (*KEY, *COUNTS)})
    return statement.on_conflict_do_update(
        index_elements=list(KEY), set_={name: USAGE.c[name] + statement.excluded[name] for name in COUNTS}
    )


UPSERT_SQLITE = _upsert(sqlite.insert)
# The audit row rides along as a CTE: PostgreSQL runs every data-modifying CTE of a statement, read
# or not.
WRITE_CALL_POSTGRES = _upsert(postgresql.insert).add_cte(_AUDIT_ROW.cte("audit_row"))


def call_values(row: dict[str, Any]) -> dict[str, Any]:
    """The parameters of `record_call`: an audit row (audit.row) with its rollup increments."""
    outcome = str(row["outcome"])
    values = {name: 0 for name in COUNTS}
    values.update(
        {
            **row,
            "day": row["at"].date(),
            "usage_project": row["project"] or "",
            "calls": 1,
            OUTCOME_COUNTS[outcome]: 1,
            "duration_us": round(float(row["latency_ms"]) * 1000),
        }
    )
    return {f"call_{name}": value for name, value in values.items()}


def record_call(connection: Connection, values: dict[str, Any]) -> None:
    """Write one call (call_values) in the connection's transaction."""
    if connection.dialect.name == "postgresql":
        connection.execute(WRITE_CALL_POSTGRES, values)
        return
    connection.execute(_AUDIT_ROW, values)
    connection.execute(UPSERT_SQLITE, values)


# ---------------------------------------------------------------- reports


@dataclass(frozen=True)
class Filters:
    """Days are UTC and inclusive. `projects`: the only projects to report (None: all)."""

    since: date
    until: date
    principal: str | None = None
    project: str | None = None
    tool: str | None = None
    token_id: str | None = None
    projects: Sequence[str] | None = None


def _grouped(filters: Filters, by: Sequence[str]) -> Select[Any]:
    columns = [USAGE.c[dimension] for dimension in by]
    sums = [func.sum(USAGE.c[name]).label(name) for name in COUNTS]
    query = select(*columns, *sums).where(USAGE.c.day >= filters.since, USAGE.c.day <= filters.until)
    for dimension in ("principal", "project", "tool", "token_id"):
        wanted = getattr(filters, dimension)
        if wanted is not None:
            query = query.where(USAGE.c[dimension] == wanted)
    if filters.projects is not None:
        query = query.where(USAGE.c.project.in_(list(filters.projects)))
    return query.group_by(*columns)


def report(
    connection: Connection, filters: Filters, by: Sequence[str], *, limit: int = MAX_ROWS, offset: int = 0
) -> tuple[list[dict[str, Any]], int, dict[str, int]]:
    """(rows, total, totals): one row per value of the `by` key columns, ordered by them, at most
    `limit` (capped at MAX_ROWS) from `offset`; how many rows there are in all; and the sums over
    every row."""
    if not by or len(set(by)) != len(by) or any(dimension not in KEY for dimension in by):
        raise ValueError(f"by must name distinct columns among {', '.join(KEY)}")
    grouped = _grouped(filters, by).subquery()
    total = connection.execute(select(func.count()).select_from(grouped)).scalar_one()
    totals_row = connection.execute(select(*(func.coalesce(func.sum(grouped.c[n]), 0) for n in COUNTS))).one()
    page = connection.execute(
        select(grouped).order_by(*(grouped.c[dimension] for dimension in by))
        .limit(max(1, min(limit, MAX_ROWS))).offset(max(0, offset))
    )  # fmt: skip
    rows = [{**row._mapping, **{name: int(row._mapping[name]) for name in COUNTS}} for row in page]
    return rows, int(total), {name: int(value) for name, value in zip(COUNTS, totals_row)}


def calls_run_this_month(connection: Connection, now: datetime) -> int:
    """Calls that ran (every outcome but a refusal) in `now`'s UTC month, over the whole deployment."""
    first = now.date().replace(day=1)
    ran = func.coalesce(func.sum(USAGE.c.calls - USAGE.c.denied), 0)
    return int(connection.execute(select(ran).where(USAGE.c.day >= first)).scalar_one())
