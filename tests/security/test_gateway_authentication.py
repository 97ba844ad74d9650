"""With no Lambda authorizer in front of it, the gateway is the only check of a bearer token: through
the real gateway handler, on SQLite and on PostgreSQL,
- a real token's id with any other secret is a 401 and touches nothing of that token (its bucket,
  its quota, its last use), and the token itself keeps working;
- a header that names no token of ours reaches no database at all (an unauthenticated flood costs
  the store nothing), and a well-formed unknown token costs at most its admission and explanation;
- no refused request is audited, dispatched or counted.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from sqlalchemy import event
from tests.functional.gateway.conftest import echo_tools  # noqa: F401 - a fixture used by name
from tests.functional.gateway.gateway_harness import call_legacy
from tests.functional.gateway.test_gateway_metering import (  # noqa: F401 - fixtures used by name
    CrashingDispatcher,
    audit_rows,
    clock,
    dispatcher,
    gateway,
    new_token,
    store,
    token_row,
)

from rhumbline.gateway.identity import REASON_DESCRIPTIONS
from rhumbline.runtime.context import Stores

LISTING = {"name": "list_projects", "arguments": {}}


@pytest.fixture
def statements(store: Stores) -> Iterator[Callable[[], int]]:  # noqa: F811
    """How many SQL statements the gateway's engines have run so far."""
    engines = {store.relational(), store.autocommit()}
    count = 0

    def counted(*_: Any) -> None:
        nonlocal count
        count += 1

    for engine in engines:
        event.listen(engine, "before_cursor_execute", counted)
    yield lambda: count
    for engine in engines:
        event.remove(engine, "before_cursor_execute", counted)


def test_a_real_token_id_with_another_secret_is_a_401_that_touches_nothing(
    gateway: Any, dispatcher: CrashingDispatcher  # noqa: F811
) -> None:
    handler = gateway()
    owner = new_token(handler, rate_per_minute=60, rate_burst=2, monthly_quota=5)
    prefix = owner["token"][: len("rhl_") + 11]
    for _ in range(20):
        forged = prefix + secrets.token_urlsafe(32)
        answer = call_legacy(handler, "tools/call", LISTING, token=forged)
        assert (answer.status, answer.json["error_description"]) == (401, REASON_DESCRIPTIONS["unknown"])
        assert answer.headers["www-authenticate"].startswith('Bearer realm="rhumbline"')
    row = token_row(handler, owner["token_id"])
    assert (row.bucket_level, row.bucket_at, row.quota_used, row.last_used_at) == (None, None, 0, None)
    assert audit_rows(handler) == [] and dispatcher.dispatched == 0
    # Twenty forgeries later the owner still has its whole burst.
    assert [call_legacy(handler, "tools/call", LISTING, token=owner["token"]).result["isError"] for _ in range(2)] == [False] * 2


def test_a_header_naming_no_token_of_ours_reaches_no_database(
    gateway: Any, dispatcher: CrashingDispatcher, statements: Callable[[], int]  # noqa: F811
) -> None:
    handler = gateway()
    garbage = [None, "Basic YTpi", "Bearer", "Bearer " + "x" * 4000, "Bearer rhl_short_x", "Bearer rhl_ABCDEFGHIJ_" + "a" * 43]
    before = statements()
    for header in garbage:
        headers = {"authorization": header} if header is not None else {}
        answer = call_legacy(handler, "tools/call", LISTING, token=None, headers=headers)
        assert answer.status == 401 and "www-authenticate" in answer.headers, (header, answer.status)
    assert statements() == before
    # A well-formed unknown token: its admission, then the explanation that says "unknown".
    before = statements()
    assert call_legacy(handler, "tools/list", token="rhl_abcdefghij_" + "a" * 43).status == 401
    assert statements() - before <= 2
    assert audit_rows(handler) == [] and dispatcher.dispatched == 0
