"""Per-token limits on both databases: admission (which finds the token by the id and hash of the
presented token) is atomic under concurrent callers, the bucket refills at its rate, the quota
resets with the month, and a dead or unknown token is refused before metering."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
import time_machine
from sqlalchemy import Engine, func, select

from rhumbline.stores.relational import limits, tokens
from rhumbline.stores.relational.oneshot import OneShot
from rhumbline.stores.relational.session import session_scope

NOW = datetime(2026, 11, 30, 23, 59, 50, tzinfo=timezone.utc)
CALLERS = 8


@pytest.fixture(autouse=True)
def at_now(time_machine: time_machine.TimeMachineFixture) -> None:
    """Tokens are created, and expire, on the same clock that admission is given."""
    time_machine.move_to(NOW)


@pytest.fixture
def store(engines: tuple[Engine, Engine]) -> tuple[Engine, OneShot]:
    engine, autocommit = engines
    return engine, OneShot(autocommit)


def new_token(engine: Engine, **options: Any) -> tuple[str, str]:
    """The presented form (id, hash) of a new token, as the gateway admits it."""
    with session_scope(engine) as session:
        plaintext, _ = tokens.create(session, principal="limits@example.com", projects=["*"], scopes=["read"], **options)
    presented = tokens.presented(plaintext)
    assert presented is not None
    return presented


def state(engine: Engine, token_id: tuple[str, str]) -> tuple[Any, ...]:
    with session_scope(engine) as session:
        token = tokens.get(session, token_id[0])
        return token.bucket_level, token.bucket_at, token.quota_month, token.quota_used


def admit_at_once(one: OneShot, token_id: tuple[str, str], now: datetime) -> list[limits.Verdict]:
    """CALLERS threads released together, each admitting one call."""
    start = threading.Barrier(CALLERS)
    verdicts: list[limits.Verdict] = []

    def caller() -> None:
        start.wait()
        verdicts.append(limits.admit(one.rows, token_id, now))

    threads = [threading.Thread(target=caller) for _ in range(CALLERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(verdicts) == CALLERS
    return verdicts


@pytest.mark.parametrize("burst", [1, 5])
def test_concurrent_callers_get_exactly_the_burst(store: tuple[Engine, OneShot], burst: int) -> None:
    engine, one = store
    token_id = new_token(engine, rate_per_minute=60, rate_burst=burst)
    verdicts = admit_at_once(one, token_id, NOW)
    assert sum(v.admitted for v in verdicts) == burst
    refused = [v for v in verdicts if not v.admitted]
    assert {v.reason for v in refused} == {"rate_limited"}
    # One call a second comes back: the first refused caller may retry in a second at most.
    assert all(0 < v.retry_after_s <= 1.0 for v in refused)
    assert all(v.limit == {"rate_per_minute": 60, "burst": burst} for v in refused)


def test_concurrent_callers_get_exactly_the_quota(store: tuple[Engine, OneShot]) -> None:
    engine, one = store
    token_id = new_token(engine, monthly_quota=3)
    verdicts = admit_at_once(one, token_id, NOW)
    assert sum(v.admitted for v in verdicts) == 3
    refused = [v for v in verdicts if not v.admitted]
    assert {v.reason for v in refused} == {"quota_exceeded"}
    # The quota comes back at midnight UTC on the 1st: ten seconds after NOW.
    assert {v.retry_after_s for v in refused} == {10.0}
    assert {tuple(v.limit.items()) for v in refused} == {(("monthly_quota", 3),)}


def test_the_bucket_refills_at_its_rate(store: tuple[Engine, OneShot]) -> None:
    engine, one = store
    token_id = new_token(engine, rate_per_minute=30, rate_burst=2)  # a call every 2 s
    at = NOW.replace(day=10)
    assert [limits.admit(one.rows, token_id, at).admitted for _ in range(3)] == [True, True, False]
    refused = limits.admit(one.rows, token_id, at + timedelta(seconds=1))
    assert (refused.admitted, refused.retry_after_s) == (False, 1.0)
    assert limits.admit(one.rows, token_id, at + timedelta(seconds=2)).admitted
    # Idle for an hour: the bucket holds its burst, no more.
    later = at + timedelta(hours=1)
    assert [limits.admit(one.rows, token_id, later).admitted for _ in range(3)] == [True, True, False]
    # A clock behind the one that last wrote the bucket (another container) refills nothing.
    assert not limits.admit(one.rows, token_id, later - timedelta(seconds=30)).admitted


def test_the_quota_resets_at_the_month_boundary(store: tuple[Engine, OneShot]) -> None:
    engine, one = store
    token_id = new_token(engine, monthly_quota=2)
    last_second = datetime(2026, 12, 31, 23, 59, 59, tzinfo=timezone.utc)
    assert [limits.admit(one.rows, token_id, last_second).admitted for _ in range(2)] == [True, True]
    refused = limits.admit(one.rows, token_id, last_second)
    assert (refused.reason, refused.retry_after_s, refused.month) == ("quota_exceeded", 1.0, 202612)
    new_year = datetime(2027, 1, 1, tzinfo=timezone.utc)
    admitted = limits.admit(one.rows, token_id, new_year)
    assert (admitted.admitted, admitted.month) == (True, 202701)
    assert state(engine, token_id)[2:] == (202701, 1)


@pytest.mark.parametrize("death", ["revoked", "expired"])
def test_a_dead_token_is_refused_before_metering(store: tuple[Engine, OneShot], death: str) -> None:
    engine, one = store
    token_id = new_token(engine, rate_per_minute=60, monthly_quota=100, expires_at=NOW + timedelta(days=1))
    assert limits.admit(one.rows, token_id, NOW).admitted
    metered = state(engine, token_id)
    when = NOW
    if death == "revoked":
        with session_scope(engine) as session:
            tokens.revoke(session, token_id[0])
    else:
        when = NOW + timedelta(days=1)
    for _ in range(3):
        verdict = limits.admit(one.rows, token_id, when)
        assert (verdict.admitted, verdict.reason, verdict.retry_after_s) == (False, death, None)
    assert state(engine, token_id) == metered, "a refused token's bucket and quota were touched"


def test_an_unknown_token_is_refused(store: tuple[Engine, OneShot]) -> None:
    engine, one = store
    assert limits.admit(one.rows, ("tk_nosuchtokn", "0" * 64), NOW).reason == "unknown"
    # A real token's id with the hash of another secret: unknown too, and nothing metered.
    token_id = new_token(engine, rate_per_minute=60)
    verdict = limits.admit(one.rows, (token_id[0], "0" * 64), NOW)
    assert (verdict.admitted, verdict.reason, verdict.holder) == (False, "unknown", None)
    assert state(engine, token_id)[:2] == (None, None)
    admitted = limits.admit(one.rows, token_id, NOW)
    assert admitted.admitted and admitted.holder is not None and admitted.holder.caller.token_id == token_id[0]


def test_a_token_without_limits_is_admitted_and_counted(store: tuple[Engine, OneShot]) -> None:
    engine, one = store
    token_id = new_token(engine)
    assert all(v.admitted for v in admit_at_once(one, token_id, NOW))
    level, _, month, used = state(engine, token_id)
    assert (level, month, used) == (None, 202611, CALLERS)


def test_limits_are_checked_and_updated(store: tuple[Engine, OneShot]) -> None:
    engine, one = store
    with session_scope(engine) as session:
        for bad, message in [
            ({"rate_per_minute": 0}, "rate_per_minute must be a whole number from 1 to"),
            ({"monthly_quota": 2**31}, "monthly_quota must be a whole number from 1 to"),
            ({"rate_per_minute": True}, "rate_per_minute must be a whole number"),
            ({"rate_burst": 5}, "rate_burst needs rate_per_minute"),
        ]:
            with pytest.raises(ValueError, match=message):
                tokens.create(session, principal="x", projects=["*"], scopes=["read"], **bad)
    token_id = new_token(engine, rate_per_minute=60, rate_burst=1)
    assert limits.admit(one.rows, token_id, NOW).admitted
    assert not limits.admit(one.rows, token_id, NOW).admitted
    with session_scope(engine) as session:
        # A new rate limit starts with a full bucket.
        assert tokens.update(session, token_id[0], rate_burst=3).rate_burst == 3
    assert [limits.admit(one.rows, token_id, NOW).admitted for _ in range(4)] == [True, True, True, False]
    with session_scope(engine) as session:
        with pytest.raises(ValueError, match="rate_burst needs rate_per_minute"):
            tokens.update(session, token_id[0], rate_per_minute=None)
        with pytest.raises(ValueError, match="cannot change scopes"):
            tokens.update(session, token_id[0], scopes=["admin"])
        assert tokens.update(session, "tk_nosuchtokn", monthly_quota=5) is None
        removed = tokens.update(session, token_id[0], rate_per_minute=None, rate_burst=None)
        assert (removed.rate_per_minute, removed.rate_burst) == (None, None)
    assert all(limits.admit(one.rows, token_id, NOW).admitted for _ in range(5))


def test_admission_survives_connections_the_server_closed(store: tuple[Engine, OneShot]) -> None:
    # No ping on the admission's connections: one the server closed while it sat in the pool (a
    # thawed Lambda container, a failover) fails once, and the statement runs again on a new one.
    engine, one = store
    if engine.dialect.name != "postgresql":
        pytest.skip("SQLite has no server to close connections")
    token_id = new_token(engine)
    one.engine.dispose()  # one connection in the pool from here on: the one the admission uses
    assert limits.admit(one.rows, token_id, NOW).admitted
    [(pid,)] = one.rows(select(func.pg_backend_pid()), {})
    with engine.begin() as connection:
        assert connection.execute(select(func.pg_terminate_backend(pid))).scalar_one() is True
    assert limits.admit(one.rows, token_id, NOW).admitted
    assert state(engine, token_id)[3] == 2
    assert one.rows(select(func.pg_backend_pid()), {}) != [(pid,)]
