"""Usage rollups on both databases: written with the audit row, exact under concurrent writers,
reported by any key with filters, paging and exact totals, and kept when the audit log is pruned."""

from __future__ import annotations

import threading
import time
import uuid
from datetime import date, datetime, timedelta, timezone
from typing import Any

import pytest
from sqlalchemy import Engine, func, select

from rhumbline.stores.relational import audit, usage
from rhumbline.stores.relational.schema.core import AuditEntry
from rhumbline.stores.relational.schema.metering import UsageDaily

DAY = datetime(2026, 11, 3, 12, 0, tzinfo=timezone.utc)


def call(principal: str, *, at: datetime = DAY, tool: str = "search", project: str | None = "acme/shop", outcome: str = "ok",
         latency_ms: float = 1.5, result_bytes: int = 100, token_id: str = "tk_usage00001") -> dict[str, Any]:  # fmt: skip
    row = audit.row(
        at=at, request_id=uuid.uuid4().hex, principal=principal, token_id=token_id, tool=tool, project=project,
        arguments_summary="{}", outcome=outcome, error_code=None if outcome == "ok" else "x", latency_ms=latency_ms,
        result_bytes=result_bytes,
    )  # fmt: skip
    return usage.call_values(row)


def write(engine: Engine, *values: dict[str, Any]) -> None:
    with engine.begin() as connection:
        for one in values:
            usage.record_call(connection, one)


def rollups(engine: Engine, principal: str) -> list[Any]:
    with engine.connect() as connection:
        return list(connection.execute(select(UsageDaily.__table__).where(UsageDaily.principal == principal)))


def audited(engine: Engine, principal: str) -> int:
    with engine.connect() as connection:
        return connection.execute(select(func.count()).where(AuditEntry.principal == principal)).scalar_one()


def test_a_call_is_its_audit_row_and_its_rollup_or_neither(engine: Engine) -> None:
    principal = f"u-{uuid.uuid4().hex[:8]}"
    write(engine, call(principal), call(principal, outcome="denied", result_bytes=0, latency_ms=0.25), call(principal, project=None))
    assert audited(engine, principal) == 3
    rows = {row.project: row for row in rollups(engine, principal)}
    shop, none = rows["acme/shop"], rows[""]
    assert (shop.calls, shop.billable, shop.denied, shop.invalid, shop.errors) == (2, 1, 1, 0, 0)
    assert (shop.duration_us, shop.result_bytes, shop.day) == (1750, 100, DAY.date())
    assert (none.calls, none.billable) == (1, 1)

    with pytest.raises(RuntimeError), engine.begin() as connection:
        usage.record_call(connection, call(principal))
        raise RuntimeError("the transaction fails after the call was written")
    assert audited(engine, principal) == 3
    assert sum(row.calls for row in rollups(engine, principal)) == 3


def test_concurrent_writers_lose_no_count(engine: Engine) -> None:
    principal = f"u-{uuid.uuid4().hex[:8]}"
    writers, each = 8, 25
    start = threading.Barrier(writers)

    def writer(number: int) -> None:
        start.wait()
        for index in range(each):
            outcome = ("ok", "denied", "invalid", "error")[(number + index) % 4]
            write(engine, call(principal, outcome=outcome, latency_ms=0.001 * (index + 1), result_bytes=index))

    threads = [threading.Thread(target=writer, args=(number,)) for number in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    [row] = rollups(engine, principal)
    assert row.calls == writers * each == audited(engine, principal)
    assert (row.billable, row.denied, row.invalid, row.errors) == (50, 50, 50, 50)
    assert row.duration_us == writers * sum(range(1, each + 1))
    assert row.result_bytes == writers * sum(range(each))


def test_reports_group_filter_page_and_total(engine: Engine) -> None:
    principal, other = f"u-{uuid.uuid4().hex[:8]}", f"v-{uuid.uuid4().hex[:8]}"
    days = [DAY + timedelta(days=offset) for offset in range(3)]
    write(
        engine,
        *(call(principal, at=day, tool=tool) for day in days for tool in ("search", "get_node")),
        call(principal, at=days[0], project="acme/other", outcome="error"),
        call(other, at=days[1]),
    )
    window = usage.Filters(since=days[0].date(), until=days[2].date(), principal=principal)
    with engine.connect() as connection:
        rows, total, totals = usage.report(connection, window, ["day"])
        assert [(row["day"], row["calls"]) for row in rows] == [(days[0].date(), 3), (days[1].date(), 2), (days[2].date(), 2)]
        assert (total, totals["calls"], totals["billable"], totals["errors"]) == (3, 7, 6, 1)

        page, total, totals = usage.report(connection, window, ["tool", "day"], limit=2, offset=3)
        assert total == 6 and totals["calls"] == 7
        assert [(row["tool"], row["day"]) for row in page] == [("search", days[0].date()), ("search", days[1].date())]

        only = usage.Filters(since=days[1].date(), until=days[1].date(), tool="get_node")
        rows, total, _ = usage.report(connection, only, ["principal"])
        assert [(row["principal"], row["calls"]) for row in rows if row["principal"] in (principal, other)] == [(principal, 1)]

        hidden = usage.Filters(since=days[0].date(), until=days[2].date(), principal=principal, projects=["acme/other"])
        rows, total, totals = usage.report(connection, hidden, ["project"])
        assert ([row["project"] for row in rows], totals["calls"]) == (["acme/other"], 1)

        with pytest.raises(ValueError, match="by must name distinct columns"):
            usage.report(connection, window, ["day", "day"])
        with pytest.raises(ValueError, match="by must name distinct columns"):
            usage.report(connection, window, ["arguments_summary"])


def test_prune_deletes_old_audit_rows_in_batches_and_keeps_the_rollups(engine: Engine) -> None:
    principal = f"u-{uuid.uuid4().hex[:8]}"
    old = datetime(2020, 1, 1, tzinfo=timezone.utc)
    write(engine, *(call(principal, at=old + timedelta(minutes=n)) for n in range(7)), call(principal, at=DAY))
    cutoff = old + timedelta(days=1)
    # A deadline already passed: one batch, then it stops and says it is not done.
    deleted, done = audit.prune(engine, before=cutoff, deadline=time.monotonic() - 1, batch=3)
    assert (deleted, done) == (3, False)
    deleted, done = audit.prune(engine, before=cutoff, deadline=time.monotonic() + 30, batch=3)
    assert (deleted, done) == (4, True)
    assert audited(engine, principal) == 1
    assert sum(row.calls for row in rollups(engine, principal)) == 8
    assert {row.day for row in rollups(engine, principal)} == {date(2020, 1, 1), DAY.date()}
