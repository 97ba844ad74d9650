"""An OIDC subject's meter on both databases (limits.admit_subject): made on first use by the
admission statement itself, atomic under concurrent first callers, under the limits it is given
(the deployment's defaults), and counting tool calls but not the other MCP requests."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import Engine, select

from rhumbline.stores.relational import limits
from rhumbline.stores.relational.oneshot import OneShot
from rhumbline.stores.relational.schema.metering import SubjectMeter

AT = datetime(2026, 11, 10, 12, tzinfo=timezone.utc)
CALLERS = 8


@pytest.fixture
def one(engines: tuple[Engine, Engine]) -> OneShot:
    return OneShot(engines[1])


def meter_row(one: OneShot, subject: str) -> tuple[object, ...] | None:
    table = SubjectMeter.__table__
    rows = one.rows(select(table.c.bucket_level, table.c.quota_month, table.c.quota_used).where(table.c.id == subject), {})
    return rows[0] if rows else None


def first_calls_at_once(one: OneShot, subject: str, defaults: limits.Limits) -> list[limits.Verdict]:
    start = threading.Barrier(CALLERS)
    verdicts: list[limits.Verdict] = []

    def caller() -> None:
        start.wait()
        verdicts.append(limits.admit_subject(one.rows, subject, AT, defaults))

    threads = [threading.Thread(target=caller) for _ in range(CALLERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(verdicts) == CALLERS
    return verdicts


@pytest.mark.parametrize("burst", [1, 3])
def test_concurrent_first_callers_get_exactly_the_default_burst(one: OneShot, burst: int) -> None:
    subject = f"oidc_burst{burst:06d}"
    verdicts = first_calls_at_once(one, subject, limits.Limits(rate_per_minute=60, rate_burst=burst))
    assert sum(v.admitted for v in verdicts) == burst
    assert {(v.reason, tuple(v.limit.items())) for v in verdicts if not v.admitted} == {
        ("rate_limited", (("rate_per_minute", 60), ("burst", burst)))
    }
    assert meter_row(one, subject)[1:] == (202611, burst)


def test_concurrent_first_callers_get_exactly_the_default_quota(one: OneShot) -> None:
    verdicts = first_calls_at_once(one, "oidc_quota00003", limits.Limits(monthly_quota=3))
    assert sum(v.admitted for v in verdicts) == 3
    assert {v.reason for v in verdicts if not v.admitted} == {"quota_exceeded"}


def test_the_bucket_refills_and_the_quota_resets(one: OneShot) -> None:
    defaults = limits.Limits(rate_per_minute=30, rate_burst=2, monthly_quota=4)
    subject = "oidc_refill0000"
    assert [limits.admit_subject(one.rows, subject, AT, defaults).admitted for _ in range(3)] == [True, True, False]
    waiting = limits.admit_subject(one.rows, subject, AT + timedelta(seconds=1), defaults)
    assert (waiting.admitted, waiting.reason, waiting.retry_after_s) == (False, "rate_limited", 1.0)
    assert limits.admit_subject(one.rows, subject, AT + timedelta(seconds=2), defaults).admitted
    assert limits.admit_subject(one.rows, subject, AT + timedelta(seconds=4), defaults).admitted
    refused = limits.admit_subject(one.rows, subject, AT + timedelta(seconds=6), defaults)
    assert (refused.admitted, refused.reason, refused.limit) == (False, "quota_exceeded", {"monthly_quota": 4})
    assert limits.admit_subject(one.rows, subject, datetime(2026, 12, 1, tzinfo=timezone.utc), defaults).admitted
    assert meter_row(one, subject)[1:] == (202612, 1)


def test_other_requests_take_from_the_bucket_but_do_not_count(one: OneShot) -> None:
    defaults = limits.Limits(rate_per_minute=60, rate_burst=2, monthly_quota=1)
    subject = "oidc_handshake0"
    assert limits.admit_subject(one.rows, subject, AT, defaults, counted=False).admitted
    assert meter_row(one, subject)[1:] == (202611, 0)
    assert limits.admit_subject(one.rows, subject, AT, defaults).admitted
    assert not limits.admit_subject(one.rows, subject, AT + timedelta(minutes=1), defaults, counted=False).admitted
    assert meter_row(one, subject)[1:] == (202611, 1)


def test_the_limits_are_the_ones_given_not_the_ones_at_first_use(one: OneShot) -> None:
    # The deployment's defaults are read from its settings on every call: a change applies at once.
    subject = "oidc_changed000"
    assert limits.admit_subject(one.rows, subject, AT, limits.Limits(monthly_quota=1)).admitted
    assert not limits.admit_subject(one.rows, subject, AT, limits.Limits(monthly_quota=1)).admitted
    assert limits.admit_subject(one.rows, subject, AT, limits.Limits(monthly_quota=2)).admitted
