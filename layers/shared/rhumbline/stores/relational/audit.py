"""The audit log: one row per tool call, with a redacted, bounded summary of its arguments."""

from __future__ import annotations

import json
import re
from typing import Any

import time
from datetime import datetime

from sqlalchemy import Connection, Engine, delete, insert, select
from sqlalchemy.orm import Session

from rhumbline.stores.relational.schema.base import utcnow
from rhumbline.stores.relational.schema.core import AUDIT_OUTCOMES, AuditEntry

MAX_RECENT = 1000
SUMMARY_LIMIT = 500
STRING_LIMIT = 80
LIST_LIMIT = 20
DEPTH_LIMIT = 4
REDACTED = "[redacted]"
_SECRET_KEY = re.compile(r"token|password|secret|authorization", re.IGNORECASE)
COLUMNS = (
    "at", "request_id", "principal", "token_id", "tool", "project", "arguments_summary", "outcome", "error_code",
    "latency_ms", "result_bytes",
)  # fmt: skip
# A Core insert, not an ORM object: the row is written on every tool call's path, where the unit
# of work (identity map, flush, events) would be overhead for a single INSERT.
INSERT_ROW = insert(AuditEntry.__table__)


def record(executor: Session | Connection, *, at: datetime | None = None, **fields: Any) -> None:
    """Insert one audit row (`row`'s fields), stamped `at` (default now), in the executor's
    transaction. Raises ValueError for an unknown outcome."""
    executor.execute(INSERT_ROW, row(at=at or utcnow(), **fields))


def row(
    *,
    at: datetime,
    request_id: str,
    principal: str,
    token_id: str,
    tool: str,
    project: str | None,
    arguments_summary: str,
    outcome: str,
    error_code: str | None,
    latency_ms: float,
    result_bytes: int,
) -> dict[str, object]:
    """An audit row's values, checked and clipped. Raises ValueError for an unknown outcome."""
    if outcome not in AUDIT_OUTCOMES:
        raise ValueError(f"outcome must be one of {', '.join(AUDIT_OUTCOMES)}, not {outcome!r}")
    # Clipped to the column sizes: PostgreSQL rejects an over-long value, and a failed audit write
    # must not fail the call it records.
    return {
        "at": at,
        "request_id": request_id[:100],
        "principal": principal[:200],
        "token_id": token_id[:16],
        "tool": tool[:100],
        "project": project[:201] if project is not None else None,
        "arguments_summary": arguments_summary[:SUMMARY_LIMIT],
        "outcome": outcome,
        "error_code": error_code[:100] if error_code is not None else None,
        "latency_ms": float(latency_ms),
        "result_bytes": int(result_bytes),
    }


def recent(session: Session, *, limit: int = 100, principal: str | None = None) -> list[AuditEntry]:
    """Newest first; `limit` is capped at MAX_RECENT."""
    query = select(AuditEntry).order_by(AuditEntry.at.desc(), AuditEntry.id.desc())
    if principal is not None:
        query = query.where(AuditEntry.principal == principal)
    return list(session.scalars(query.limit(max(1, min(limit, MAX_RECENT)))))


PRUNE_BATCH = 5000


def prune(engine: Engine, *, before: datetime, deadline: float, batch: int = PRUNE_BATCH) -> tuple[int, bool]:
    """Delete audit rows older than `before`, oldest first, `batch` rows per transaction (short
    locks, bounded undo), until none is left or time.monotonic() passes `deadline`. Returns (rows
    deleted, whether none is left). The usage rollups are kept."""
    table = AuditEntry.__table__
    oldest = select(table.c.id).where(table.c.at < before).order_by(table.c.id).limit(batch)
    deleted = 0
    while True:
        with engine.begin() as connection:
            count = connection.execute(delete(table).where(table.c.id.in_(oldest.scalar_subquery()))).rowcount
        deleted += count
        if count < batch:
            return deleted, True
        if time.monotonic() >= deadline:
            return deleted, False


def summarize_arguments(arguments: dict[str, Any]) -> str:
    """Compact JSON of the arguments for the audit log.

    Values under keys that look like credentials are replaced, long strings and lists are cut
    (saying how much was cut), and the result is at most SUMMARY_LIMIT characters.
    """
    text = json.dumps(_shrink(arguments, 0), separators=(",", ":"), ensure_ascii=False, default=str)
    if len(text) > SUMMARY_LIMIT:
        text = text[: SUMMARY_LIMIT - 1] + "…"
    return text


def _shrink(value: Any, depth: int) -> Any:
    if isinstance(value, str):
        if len(value) > STRING_LIMIT:
            return f"{value[:STRING_LIMIT]}…(+{len(value) - STRING_LIMIT} chars)"
        return value
    if isinstance(value, dict):
        if depth >= DEPTH_LIMIT:
            return f"{{…{len(value)} keys}}"
        return {
            str(key): REDACTED if _SECRET_KEY.search(str(key)) else _shrink(item, depth + 1)
            for key, item in value.items()
        }
    if isinstance(value, (list, tuple)):
        if depth >= DEPTH_LIMIT:
            return f"[…{len(value)} items]"
        items = [_shrink(item, depth + 1) for item in value[:LIST_LIMIT]]
        if len(value) > LIST_LIMIT:
            items.append(f"…(+{len(value) - LIST_LIMIT} items)")
        return items
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return _shrink(str(value), depth)
