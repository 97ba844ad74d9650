"""Shared fixtures: the real services started by `scripts/test`.

`scripts/test` starts PostgreSQL and Neo4j and exports their addresses. Run by hand without them,
tests that need a service are skipped with a reason; under CI (CI=true) a missing service is an
error, so a green CI always means every backend was really exercised.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from datetime import datetime, timedelta, timezone

import pytest
import time_machine


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--clock-ahead", type=int, default=0, metavar="DAYS",
        help="run the whole suite with this process's clock DAYS ahead of today (no test may depend on the date)",
    )


def pytest_configure(config: pytest.Config) -> None:
    days = config.getoption("--clock-ahead")
    if days:
        # The same clock tests move with the `time_machine` fixture: datetime.now, time.time and
        # friends, in every thread of this process; it keeps ticking from the shifted start.
        time_machine.travel(datetime.now(timezone.utc) + timedelta(days=days), tick=True).start()
        # Python children (servers, the CLI) shift theirs too, through tests/clock_ahead/sitecustomize.py.
        os.environ["TESTS_CLOCK_AHEAD_DAYS"] = str(days)
        site = str(Path(__file__).parent / "clock_ahead")
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [site, os.environ.get("PYTHONPATH")]))


def _service(variable: str, what: str) -> str:
    value = os.environ.get(variable, "")
    if value:
        return value
    if os.environ.get("CI"):
        pytest.fail(f"{variable} is not set: {what} must be started by scripts/test in CI")
    pytest.skip(f"{what} not running (set {variable}, or run scripts/test)")


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """SQLAlchemy URL (postgresql+pg8000://...) of a real PostgreSQL server."""
    return _service("RHUMBLINE_TEST_DATABASE_URL", "PostgreSQL")


@pytest.fixture(scope="session")
def neo4j_server() -> dict[str, str]:
    """Connection settings of a real Neo4j 5 server: uri, user, password."""
    uri = _service("RHUMBLINE_TEST_NEO4J_URI", "Neo4j")
    return {
        "uri": uri,
        "user": os.environ.get("RHUMBLINE_TEST_NEO4J_USER", "neo4j"),
        "password": os.environ.get("RHUMBLINE_TEST_NEO4J_PASSWORD", "rhumbline-test"),
    }


@pytest.fixture
def unique_project() -> str:
    """A project slug no other test uses, so tests can share one database server."""
    return f"test/p{uuid.uuid4().hex[:12]}"


# EMF metrics print one JSON blob per call to stdout; tests that check metrics turn them back on.
os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")


@pytest.fixture
def bolt_writes(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Every write to a Neo4j Bolt socket, in order: one per round trip (the driver writes, then
    waits for the answer), for tests that count them."""
    from neo4j._async_compat.network._bolt_socket import BoltSocketBase

    sent: list[bytes] = []
    original = BoltSocketBase.sendall

    def counted(self, data):  # type: ignore[no-untyped-def]
        sent.append(bytes(data))
        return original(self, data)

    monkeypatch.setattr(BoltSocketBase, "sendall", counted)
    return sent
