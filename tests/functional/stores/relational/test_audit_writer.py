"""The per-call audit writer: the row it stores is the row Core's insert stores, committed on return."""

from __future__ import annotations

import sqlite3
import threading
import uuid
from typing import Any

import pytest
from sqlalchemy import Engine, select

from rhumbline.stores.relational import audit
from rhumbline.stores.relational.audit_writer import AuditWriter
from rhumbline.stores.relational.engine import create_engine_from_url
from rhumbline.stores.relational.schema.core import AuditEntry
from rhumbline.stores.relational.session import session_scope

COMPARED = ("request_id", "principal", "token_id", "tool", "project", "arguments_summary", "outcome", "error_code", "latency_ms", "result_bytes")


def _fields(principal: str, **overrides: Any) -> dict[str, Any]:
    return {
        "request_id": "req-1",
        "principal": principal,
        "token_id": "tk_abcdefghijklmnopq",  # 19 characters: clipped to the column's 16
        "tool": "get_node",
        "project": "acme/shop",
        "arguments_summary": '{"node_id":"file:shop.py","edge_limit":1}',
        "outcome": "ok",
        "error_code": None,
        "latency_ms": 1.25,
        "result_bytes": 1517,
    } | overrides


def _rows(engine: Engine, principal: str) -> list[AuditEntry]:
    with session_scope(engine) as session:
        rows = audit.recent(session, principal=principal)
        session.expunge_all()
    return list(reversed(rows))


@pytest.mark.parametrize(
    "overrides",
    [{}, {"project": None, "outcome": "denied", "error_code": "forbidden", "result_bytes": 0}, {"tool": "t" * 300}],
)
def test_the_row_is_the_one_core_stores(engine: Engine, overrides: dict[str, Any]) -> None:
    principal = f"writer-{uuid.uuid4().hex[:8]}"
    with engine.begin() as connection:
        audit.record(connection, **_fields(principal, **overrides))
    AuditWriter(engine).write(**_fields(principal, **overrides))
    core, written = _rows(engine, principal)
    assert [getattr(written, name) for name in COMPARED] == [getattr(core, name) for name in COMPARED]
    assert written.token_id == "tk_abcdefghijklm" and len(written.tool) <= 100
    # The timestamp reads back as Core's does: an aware UTC datetime, in order.
    assert written.at.tzinfo is not None and written.at.utcoffset().total_seconds() == 0
    assert type(written.at) is type(core.at) and written.at >= core.at


def test_an_unknown_outcome_is_refused_before_writing(engine: Engine) -> None:
    principal = f"writer-{uuid.uuid4().hex[:8]}"
    with pytest.raises(ValueError, match="outcome must be one of ok, denied, error, invalid, not 'maybe'"):
        AuditWriter(engine).write(**_fields(principal, outcome="maybe"))
    assert _rows(engine, principal) == []


def test_the_row_is_committed_when_write_returns(engine: Engine) -> None:
    """Seen at once by another connection: nothing is left in an open transaction."""
    principal = f"writer-{uuid.uuid4().hex[:8]}"
    writer = AuditWriter(engine)
    for number in range(3):
        writer.write(**_fields(principal, request_id=f"req-{number}"))
        with engine.connect() as other:
            seen = other.execute(select(AuditEntry.request_id).where(AuditEntry.principal == principal)).scalars().all()
        assert sorted(seen) == [f"req-{n}" for n in range(number + 1)]


@pytest.mark.parametrize("released_after", [None, 0.1])
def test_sqlite_waits_for_the_write_lock_within_the_busy_timeout(tmp_path: Any, released_after: float | None) -> None:
    """The statement takes the write lock as BEGIN IMMEDIATE did: once the holder lets go within
    the engine's timeout, or it fails with the driver's 'database is locked'."""
    from rhumbline.stores.relational.migrate import upgrade

    path = tmp_path / "audit.sqlite3"
    engine = create_engine_from_url(f"sqlite:///{path}", timeout=0.3 if released_after is None else 5.0)
    upgrade(engine)
    writer = AuditWriter(engine)
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    release = threading.Timer(released_after or 0, lambda: holder.execute("COMMIT"))
    try:
        if released_after is None:
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                writer.write(**_fields("locked"))
            holder.execute("ROLLBACK")
            assert _rows(engine, "locked") == []
        else:
            release.start()
            writer.write(**_fields("waited"))
            release.join()
            assert [row.principal for row in _rows(engine, "waited")] == ["waited"]
    finally:
        release.cancel()
        if holder.in_transaction:
            holder.execute("ROLLBACK")
        holder.close()
        engine.dispose()
