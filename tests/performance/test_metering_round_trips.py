"""What authentication and metering add to a request on PostgreSQL, in network round trips (pg8000
flushes, each followed by a wait for the server): one for admission, which authenticates the token
too, none for the usage rollup.

- Admission (gateway/meter.py): one prepared statement on an autocommit connection, whatever the
  token's limits, once the connection has prepared it; it finds the token by id and hash, so the
  gateway's own authentication (gateway/authentication.py) costs no round trip of its own, and a
  header that names no token of ours costs none at all.
- The audit write with its rollup (usage.record_call): exactly as many round trips as the audit row
  alone, because it is one statement.
- An OIDC subject's admission (limits.admit_subject): one statement too, its row made on first use.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from sqlalchemy import Engine

from rhumbline.gateway.audit import CallRecord, write_call
from rhumbline.gateway.authentication import Authenticator
from rhumbline.gateway.meter import RelationalMeter
from rhumbline.runtime.context import Stores
from rhumbline.stores.relational import audit, limits, migrate, tokens
from rhumbline.stores.relational.engine import create_engine_from_url
from rhumbline.stores.relational.oneshot import OneShot
from rhumbline.stores.relational.session import session_scope
from tests.pg_database import fresh_database_url

pytestmark = pytest.mark.postgres
NOW = datetime(2026, 11, 30, 12, tzinfo=timezone.utc)


class RoundTrips:
    """Counts pg8000's flushes: the driver writes, then blocks on the server's answer."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import pg8000.core

        self.count = 0
        original = pg8000.core._flush

        def counted(sock: Any) -> None:
            self.count += 1
            original(sock)

        monkeypatch.setattr(pg8000.core, "_flush", counted)

    def of(self, work: Any) -> int:
        before = self.count
        work()
        return self.count - before


@pytest.fixture(scope="module")
def engines(postgres_url: str) -> Iterator[tuple[Engine, Engine]]:
    url, drop = fresh_database_url(postgres_url, f"trips_{uuid.uuid4().hex[:12]}")
    engine, autocommit = create_engine_from_url(url), create_engine_from_url(url, autocommit=True)
    migrate.upgrade(engine)
    yield engine, autocommit
    engine.dispose()
    autocommit.dispose()
    drop()


@pytest.fixture
def round_trips(monkeypatch: pytest.MonkeyPatch) -> RoundTrips:
    return RoundTrips(monkeypatch)


def new_token(engine: Engine, **limits_: Any) -> tuple[str, str]:
    """The presented form (id, hash) of a new token."""
    with session_scope(engine) as session:
        plaintext, _ = tokens.create(session, principal="trips@example.com", projects=["*"], scopes=["read"], **limits_)
    presented = tokens.presented(plaintext)
    assert presented is not None
    return presented


@pytest.mark.parametrize(
    "limits_", [{}, {"rate_per_minute": 6000, "rate_burst": 1000}, {"monthly_quota": 10_000}], ids=["unlimited", "rate", "quota"]
)
def test_admission_is_one_round_trip(engines: tuple[Engine, Engine], round_trips: RoundTrips, limits_: dict[str, Any]) -> None:
    engine, autocommit = engines
    presented = new_token(engine, **limits_)
    one = OneShot(autocommit)
    limits.admit(one.rows, presented, NOW)  # the connection prepares the statement once
    trips = [round_trips.of(lambda n=n: limits.admit(one.rows, presented, NOW + timedelta(seconds=n))) for n in range(20)]
    assert trips == [1] * 20


def test_the_gateways_authentication_is_its_admission(
    engines: tuple[Engine, Engine], round_trips: RoundTrips
) -> None:
    engine, autocommit = engines
    with session_scope(engine) as session:
        plaintext, _ = tokens.create(session, principal="trips@example.com", projects=["*"], scopes=["read"], monthly_quota=10_000)
    authenticator = Authenticator(RelationalMeter(Stores.opened(engine, autocommit=autocommit)), lambda: NOW)
    authenticator.authenticate(f"Bearer {plaintext}", counted=True)  # prepared once
    for counted in (True, False):
        assert round_trips.of(lambda c=counted: authenticator.authenticate(f"Bearer {plaintext}", counted=c)) == 1
    for header in (None, "Basic eDp5", "Bearer rhl_short", "Bearer " + "x" * 60):
        assert round_trips.of(lambda h=header: authenticator.authenticate(h, counted=True)) == 0


@pytest.mark.parametrize(
    "defaults", [limits.Limits(rate_per_minute=6000, rate_burst=1000), limits.Limits(monthly_quota=10_000)], ids=["rate", "quota"]
)
def test_a_subjects_admission_is_one_round_trip(engines: tuple[Engine, Engine], round_trips: RoundTrips, defaults: limits.Limits) -> None:
    _, autocommit = engines
    one = OneShot(autocommit)
    limits.admit_subject(one.rows, "oidc_warmup0000", NOW, defaults)  # the connection prepares the statement once
    subject = f"oidc_{uuid.uuid4().hex[:11]}"
    # The first call makes the subject's row, the others update it: one round trip each.
    trips = [round_trips.of(lambda n=n: limits.admit_subject(one.rows, subject, NOW + timedelta(seconds=n), defaults)) for n in range(20)]
    assert trips == [1] * 20


def test_a_refused_admission_costs_its_explanation_too(engines: tuple[Engine, Engine], round_trips: RoundTrips) -> None:
    engine, autocommit = engines
    presented = new_token(engine, monthly_quota=1)
    one = OneShot(autocommit)
    limits.admit(one.rows, presented, NOW)
    limits.admit(one.rows, presented, NOW)  # refused: both statements now prepared
    assert round_trips.of(lambda: limits.admit(one.rows, presented, NOW)) == 2


def test_the_usage_rollup_adds_no_round_trip_to_the_audit_write(engines: tuple[Engine, Engine], round_trips: RoundTrips) -> None:
    engine, _ = engines
    token_id = new_token(engine, monthly_quota=100)[0]

    def entry(outcome: str) -> CallRecord:
        return CallRecord(
            request_id=uuid.uuid4().hex, principal="trips@example.com", token_id=token_id, tool="search",
            project="acme/shop", arguments={"query": "x"}, outcome=outcome, error_code=None if outcome == "ok" else "x",  # type: ignore[arg-type]
            latency_ms=1.0, result_bytes=10, at=NOW,
        )  # fmt: skip

    def audit_row_alone() -> None:
        with engine.begin() as connection:
            audit.record(
                connection, request_id="r", principal="trips@example.com", token_id=token_id, tool="search",
                project="acme/shop", arguments_summary="{}", outcome="ok", error_code=None, latency_ms=1.0, result_bytes=10,
            )  # fmt: skip

    def metered_write(outcome: str) -> Any:
        def write() -> None:
            with engine.begin() as connection:
                write_call(connection, entry(outcome))

        return write

    for work in (audit_row_alone, metered_write("ok"), metered_write("error")):
        work()  # warm: the pool's connection exists
    alone = round_trips.of(audit_row_alone)
    # Billable, and not billable.
    assert round_trips.of(metered_write("ok")) == alone
    assert round_trips.of(metered_write("error")) == alone
