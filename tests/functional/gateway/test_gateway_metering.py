"""Metering through the real gateway handler, on SQLite and on PostgreSQL: per-token rate limits
and quotas enforced before dispatch (exactly N of 8 concurrent callers pass), refusals audited and
not billed, revoked and expired tokens refused with a 401 in the statement that would have metered
them, the quota back at the month's turn,
every admitted call counted in the quota (errors and timeouts too) while only `ok` is billed, the
other MCP requests (initialize, tools/list, ping) throttled, OIDC subjects under the deployment's
default limits, the deployment's ceiling, get_usage, and usage equal to the audit log after 1,000
mixed calls."""

from __future__ import annotations

import json
import threading
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from tests.functional.gateway.gateway_harness import Answer, Gateway, call_legacy, call_modern
from tests.oidc_issuer import running_issuer
from tests.pg_database import fresh_database_url
from tests.stores import opened_stores, refuse_container_stores, sqlite_url

from rhumbline.config import load_settings, settings
from rhumbline.gateway import authentication
from rhumbline.gateway.audit import RelationalAuditLog
from rhumbline.gateway.calls import ToolCalls
from rhumbline.gateway.catalog import Catalog
from rhumbline.gateway.container import GatewayContainer
from rhumbline.gateway.dispatch import DispatchError, InProcessDispatcher
from rhumbline.gateway.meter import RelationalMeter
from rhumbline.gateway.oidc import OidcConfig, OidcVerifier
from rhumbline.gateway.server import build_gateway_app
from rhumbline.runtime.context import Stores
from rhumbline.stores.relational import limits, tokens, usage
from rhumbline.stores.relational.schema.core import AuditEntry
from rhumbline.stores.relational.schema.metering import UsageDaily
from rhumbline.stores.relational.session import session_scope

CALLERS = 8


class Clock:
    """The time the gateway's meter and audit rows read, set by the test."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


class CrashingDispatcher(InProcessDispatcher):
    """The in-process dispatcher, but a call whose text is "crash" finds its function dead."""

    def __init__(self) -> None:
        super().__init__()
        self.dispatched = 0
        self._lock = threading.Lock()

    def invoke(self, tool: str, payload: dict[str, Any], timeout: float) -> dict[str, Any]:
        with self._lock:
            self.dispatched += 1
        if payload["arguments"].get("text") == "crash":
            raise DispatchError("function_error", f"the '{tool}' function failed (Runtime.ExitError)")
        return super().invoke(tool, payload, timeout)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Stores]:
    """The gateway's stores, opened here: its relational store an embedded SQLite file or a fresh
    PostgreSQL database (migrated), and an embedded graph. The container's are out of reach."""
    drop = None
    if request.param == "sqlite":
        url = sqlite_url(tmp_path / "home")
    else:
        url, drop = fresh_database_url(request.getfixturevalue("postgres_url"), f"meter_{uuid.uuid4().hex[:12]}")
    # Configuration, not a store: where a local tool keeps its cursor secret.
    monkeypatch.setenv("RHUMBLINE_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("RHUMBLINE_MODE", raising=False)
    refuse_container_stores(monkeypatch)
    graph = replace(load_settings(), graph_backend="sqlite", graph_path=tmp_path / "graph.sqlite3")
    try:
        with opened_stores(url, graph) as stores:
            yield stores
    finally:
        if drop is not None:
            drop()


@pytest.fixture
def clock() -> Clock:
    return Clock(datetime.now(timezone.utc))


@pytest.fixture
def dispatcher() -> CrashingDispatcher:
    return CrashingDispatcher()


@pytest.fixture
def gateway(store: Stores, echo_tools: None, clock: Clock, dispatcher: CrashingDispatcher) -> Iterator[Callable[..., Any]]:
    """Build a gateway handler (hosted, its own container) metering `store` with `clock`."""
    dispatcher.stores = store
    containers: list[GatewayContainer] = []

    def build(
        *, monthly_ceiling: int | None = None, subject_limits: limits.Limits | None = None, tool_timeout: float = 10.0
    ) -> Any:
        catalog = Catalog.from_registry()
        meter = RelationalMeter(store, monthly_ceiling=monthly_ceiling, subject_limits=subject_limits)
        calls = ToolCalls(catalog, dispatcher, RelationalAuditLog(store), meter, tool_timeout=tool_timeout, clock=clock)
        container = GatewayContainer(*build_gateway_app(replace(settings(), mode="hosted"), catalog, calls)).start()
        containers.append(container)
        return Gateway(container.lambda_handler(), store)

    yield build
    for container in containers:
        container.stop()


def new_token(handler: Gateway, scopes: str = "read", projects: str = "*", **limits: Any) -> dict[str, str]:
    """A real token in `handler`'s store: its plaintext (`token`), id and principal."""
    with session_scope(handler.stores.relational()) as session:
        plaintext, token = tokens.create(
            session, principal=f"{uuid.uuid4().hex[:8]}@example.com", projects=projects.split(","), scopes=scopes.split(","),
            **limits,
        )  # fmt: skip
        return {"token": plaintext, "principal": token.principal, "token_id": token.id}


def answer_to(handler: Any, caller: dict[str, str], arguments: dict[str, Any], tool: str = "echo") -> Answer:
    return call_legacy(handler, "tools/call", {"name": tool, "arguments": arguments}, token=caller["token"])


def call(handler: Any, caller: dict[str, str], arguments: dict[str, Any], tool: str = "echo") -> dict[str, Any]:
    return answer_to(handler, caller, arguments, tool).result


def refusal(result: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    """(code, message, details) of an error result."""
    assert result["isError"] is True, result
    first, _, details = result["content"][0]["text"].partition("\n")
    code, _, message = first.partition(": ")
    return code, message, json.loads(details) if details else {}


def audit_rows(handler: Gateway) -> list[Any]:
    with handler.stores.relational().connect() as connection:
        return list(connection.execute(select(AuditEntry.__table__).order_by(AuditEntry.id)))


def rollups(handler: Gateway) -> list[Any]:
    with handler.stores.relational().connect() as connection:
        return list(connection.execute(select(UsageDaily.__table__)))


def token_row(handler: Gateway, token_id: str) -> Any:
    with session_scope(handler.stores.relational()) as session:
        return tokens.get(session, token_id)


def at_once(work: Callable[[], dict[str, Any]], count: int = CALLERS) -> list[dict[str, Any]]:
    start = threading.Barrier(count)
    results: list[dict[str, Any]] = []

    def caller() -> None:
        start.wait()
        results.append(work())

    threads = [threading.Thread(target=caller) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(results) == count
    return results


def test_of_8_concurrent_callers_exactly_the_burst_pass(gateway: Any, dispatcher: CrashingDispatcher) -> None:
    handler = gateway()
    caller = new_token(handler, rate_per_minute=60, rate_burst=3)
    results = at_once(lambda: call(handler, caller, {"text": "hi"}))
    assert sum(not result["isError"] for result in results) == 3
    refused = [refusal(result) for result in results if result["isError"]]
    assert len(refused) == 5 and dispatcher.dispatched == 3, "a refused call reached its tool"
    for code, message, details in refused:
        assert code == "rate_limited"
        assert message.startswith("this token is over its rate limit of 60 calls per minute (burst 3): retry in ")
        assert 0 < details["retry_after_s"] <= 1.0
        assert details["limit"] == {"rate_per_minute": 60, "burst": 3}
    rows = audit_rows(handler)
    assert Counter((row.outcome, row.error_code) for row in rows) == {("ok", None): 3, ("denied", "rate_limited"): 5}
    [rollup] = rollups(handler)
    assert (rollup.calls, rollup.billable, rollup.denied) == (8, 3, 5)


def test_of_8_concurrent_callers_exactly_the_quota_pass(gateway: Any) -> None:
    handler = gateway()
    caller = new_token(handler, monthly_quota=2)
    results = at_once(lambda: call(handler, caller, {"text": "hi"}))
    assert sum(not result["isError"] for result in results) == 2
    refused = [refusal(result) for result in results if result["isError"]]
    assert {(code, details["limit"]["monthly_quota"]) for code, _, details in refused} == {("quota_exceeded", 2)}
    assert all(details["retry_after_s"] > 0 for _, _, details in refused)


def test_the_quota_comes_back_at_the_turn_of_the_month(gateway: Any, clock: Clock) -> None:
    handler = gateway()
    caller = new_token(handler, monthly_quota=2)
    clock.now = datetime(2027, 1, 31, 23, 59, 59, tzinfo=timezone.utc)
    assert [call(handler, caller, {"text": "x"})["isError"] for _ in range(2)] == [False, False]
    code, message, details = refusal(call(handler, caller, {"text": "x"}))
    assert (code, details["retry_after_s"]) == ("quota_exceeded", 1.0)
    assert message == "this token has used its monthly quota of 2 calls; it resets at the start of next month (UTC), in 1.0 s"
    clock.now = datetime(2027, 2, 1, tzinfo=timezone.utc)
    assert call(handler, caller, {"text": "x"})["isError"] is False
    days = {row.day.isoformat(): (row.calls, row.billable, row.denied) for row in rollups(handler)}
    assert days == {"2027-01-31": (3, 2, 1), "2027-02-01": (1, 1, 0)}


@pytest.mark.parametrize("death", ["revoked", "expired"])
def test_a_dead_token_is_refused_with_a_401_before_metering_and_dispatch(
    gateway: Any, clock: Clock, dispatcher: CrashingDispatcher, death: str
) -> None:
    handler = gateway()
    caller = new_token(handler, monthly_quota=10, expires_at=clock.now + timedelta(hours=1))
    assert call(handler, caller, {"text": "x"})["isError"] is False
    if death == "revoked":
        with session_scope(handler.stores.relational()) as session:
            tokens.revoke(session, caller["token_id"])
    else:
        clock.now += timedelta(hours=2)
    # The statement that would meter the call finds the token dead: a 401, nothing counted or run.
    refused = answer_to(handler, caller, {"text": "x"})
    description = f"the token has {'been revoked' if death == 'revoked' else 'expired'}"
    assert (refused.status, refused.json) == (401, {"error": "invalid_token", "error_description": description})
    assert refused.headers["www-authenticate"].endswith(f'error="invalid_token", error_description="{description}"')
    assert dispatcher.dispatched == 1
    assert token_row(handler, caller["token_id"]).quota_used == 1
    assert [(row.outcome, row.error_code) for row in audit_rows(handler)] == [("ok", None)]


def test_every_admitted_call_counts_in_the_quota_and_only_ok_is_billed(gateway: Any, dispatcher: CrashingDispatcher) -> None:
    # Once only `ok` calls were counted: 200 not_found calls ran under a quota of 5.
    handler = gateway(tool_timeout=0.3)
    caller = new_token(handler, monthly_quota=5)
    answers = [
        call(handler, caller, {"project": "acme/none", "node_id": "x"}, tool="get_node"),  # the tool's not_found
        call(handler, caller, {"text": "x", "fail": True}),  # the tool's invalid_arguments
        call(handler, caller, {"text": "crash"}),  # a crashed function
        call(handler, caller, {"text": "x", "sleep": 1.0}),  # past the deadline
        call(handler, caller, {"text": "x"}),
    ]
    assert [refusal(answer)[0] if answer["isError"] else "ok" for answer in answers] == [
        "not_found", "invalid_arguments", "function_error", "timeout", "ok"
    ]  # fmt: skip
    for _ in range(20):
        code, _, details = refusal(call(handler, caller, {"project": "acme/none", "node_id": "x"}, tool="get_node"))
        assert (code, details["limit"]) == ("quota_exceeded", {"monthly_quota": 5})
    assert token_row(handler, caller["token_id"]).quota_used == 5
    assert dispatcher.dispatched == 5, "a call past the quota reached its tool"
    rollup = {row.tool: (row.calls, row.billable, row.invalid, row.errors, row.denied) for row in rollups(handler)}
    assert rollup == {"get_node": (21, 0, 0, 1, 20), "echo": (4, 1, 1, 2, 0)}


def test_other_mcp_requests_take_from_the_bucket_without_counting_in_the_quota(gateway: Any) -> None:
    handler = gateway()
    caller = new_token(handler, rate_per_minute=60, rate_burst=3, monthly_quota=2)
    requests = [
        call_legacy(handler, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                            "clientInfo": {"name": "t", "version": "1"}}, token=caller["token"]),
        call_legacy(handler, "tools/list", token=caller["token"]),
        call_legacy(handler, "ping", token=caller["token"]),
        call_legacy(handler, "tools/list", token=caller["token"]),
        call_modern(handler, "server/discover", token=caller["token"]),
    ]  # fmt: skip
    assert [answer.status for answer in requests] == [200] * 5
    assert ["error" in answer.json for answer in requests] == [False, False, False, True, True]
    error = requests[3].json["error"]
    assert error["code"] == -32000 and error["message"].startswith("rate_limited: this token is over its rate limit of 60")
    assert error["data"]["code"] == "rate_limited" and 0 < error["data"]["retry_after_s"] <= 1.0
    assert token_row(handler, caller["token_id"]).quota_used == 0


def test_an_exhausted_token_is_refused_every_request(gateway: Any, clock: Clock) -> None:
    # Once an exhausted token still made 300 tools/list and 100 initialize calls.
    handler = gateway()
    caller = new_token(handler, monthly_quota=1)
    assert call(handler, caller, {"text": "x"})["isError"] is False
    for method in ("tools/list", "initialize", "ping", "resources/list"):
        params = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
        answer = call_legacy(handler, method, params if method == "initialize" else None, token=caller["token"])
        assert answer.json["error"]["data"]["code"] == "quota_exceeded", (method, answer.json)
        assert answer.json["error"]["data"]["limit"] == {"monthly_quota": 1}
    assert token_row(handler, caller["token_id"]).quota_used == 1
    clock.now = limits.next_month(clock.now)
    assert "result" in call_legacy(handler, "tools/list", token=caller["token"]).json


@pytest.fixture
def oidc_caller(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], dict[str, str]]]:
    """Callers with an OIDC access token from a local issuer the deployment trusts: no api_tokens row."""
    with running_issuer() as issuer:
        monkeypatch.setenv("RHUMBLINE_OIDC_ISSUER", issuer.url)
        monkeypatch.setenv("RHUMBLINE_OIDC_DEFAULT_PROJECTS", "*")
        settings.cache_clear()
        monkeypatch.setattr(authentication, "_verifier", None)
        verifier = OidcVerifier(OidcConfig(issuer=issuer.url, default_projects=("*",)))

        def caller(subject: str) -> dict[str, str]:
            token = issuer.token(sub=f"{subject}@acme.com", scope="read")
            verified = verifier.verify(token).caller
            return {"token": token, "principal": verified.principal, "token_id": verified.token_id}

        yield caller
    settings.cache_clear()


def test_oidc_subjects_get_the_deployments_default_limits(
    gateway: Any, dispatcher: CrashingDispatcher, clock: Clock, oidc_caller: Callable[[str], dict[str, str]]
) -> None:
    # An OIDC subject is held to the deployment's default limits, each subject on its own meter.
    handler = gateway(subject_limits=limits.Limits(rate_per_minute=10, rate_burst=None, monthly_quota=12))
    alice, bob = oidc_caller("alice"), oidc_caller("bob")
    results = at_once(lambda: call(handler, alice, {"text": "x"}))
    results += [call(handler, alice, {"text": "x"}) for _ in range(52)]
    assert sum(not result["isError"] for result in results) == 10
    assert {refusal(result)[0] for result in results if result["isError"]} == {"rate_limited"}
    details = [refusal(result)[2] for result in results if result["isError"]]
    assert {tuple(detail["limit"].items()) for detail in details} == {(("rate_per_minute", 10), ("burst", 10))}
    # A subject of its own: its own bucket; tools/list is throttled too.
    assert call(handler, bob, {"text": "x"})["isError"] is False
    assert call_legacy(handler, "tools/list", token=alice["token"]).json["error"]["data"]["code"] == "rate_limited"
    # The quota: 12 calls a month, errors included (10 so far).
    clock.now += timedelta(minutes=10)
    assert refusal(call(handler, alice, {"text": "crash"}))[0] == "function_error"
    outcomes = [call(handler, alice, {"text": "x"}) for _ in range(2)]
    assert outcomes[0]["isError"] is False
    code, _, details = refusal(outcomes[1])
    assert (code, details["limit"]) == ("quota_exceeded", {"monthly_quota": 12})
    assert dispatcher.dispatched == 10 + 1 + 1 + 1


def test_without_default_limits_an_oidc_subject_is_counted_not_limited(
    gateway: Any, clock: Clock, oidc_caller: Callable[[str], dict[str, str]]
) -> None:
    from rhumbline.local.stdio import LOCAL_TOKEN_ID

    handler = gateway(monthly_ceiling=3)
    oidc = oidc_caller("alice")
    assert [call(handler, oidc, {"text": "x"})["isError"] for _ in range(2)] == [False] * 2
    assert refusal(call(handler, oidc, {"text": "crash"}))[0] == "function_error"
    counted = {row.token_id: (row.principal, row.calls, row.billable, row.errors) for row in rollups(handler)}
    assert counted == {oidc["token_id"]: ("alice@acme.com", 3, 2, 1)}
    # The deployment's ceiling holds them too.
    clock.now += timedelta(seconds=61)
    assert refusal(call(handler, oidc, {"text": "x"}))[0] == "quota_exceeded"
    # The local stdio principal is the machine's own user: never limited, whatever the defaults.
    meter = RelationalMeter(handler.stores, subject_limits=limits.Limits(rate_per_minute=1, monthly_quota=1))
    assert all(meter.admit(LOCAL_TOKEN_ID, clock.now).admitted for _ in range(3))


def test_the_deployment_ceiling_refuses_calls_once_the_month_has_run_it(gateway: Any, clock: Clock) -> None:
    handler = gateway(monthly_ceiling=3)
    caller = new_token(handler)
    # The month's count is read once a minute per container: calls within that minute pass.
    assert [call(handler, caller, {"text": "x"})["isError"] for _ in range(4)] == [False] * 4
    clock.now += timedelta(seconds=61)
    code, message, details = refusal(call(handler, caller, {"text": "x"}))
    assert (code, details["limit"]) == ("quota_exceeded", {"monthly_call_ceiling": 3})
    assert message.startswith("this deployment has run its monthly ceiling of 3 calls")


def test_get_usage_reports_the_rollups_to_admins(gateway: Any, clock: Clock) -> None:
    handler = gateway()
    user = new_token(handler, scopes="read")
    for project in ("acme/shop", "acme/shop", "acme/other"):
        call(handler, user, {"text": "x", "project": project})
    refused = call(handler, user, {"text": "x"}, tool="get_usage")
    assert refusal(refused)[:2] == ("forbidden", "this token lacks the 'admin' scope")

    admin = new_token(handler, scopes="admin")
    today = clock.now.date().isoformat()
    report = call(handler, admin, {"by": ["project", "tool"], "principal": user["principal"]}, tool="get_usage")
    structured = report["structuredContent"]
    rows = {(row["project"], row["tool"]): (row["calls"], row["billable"]) for row in structured["rows"]}
    assert rows == {("acme/other", "echo"): (1, 1), ("acme/shop", "echo"): (2, 2), ("", "get_usage"): (1, 0)}
    assert (structured["total"], structured["totals"]["calls"], structured["since"][:8]) == (3, 4, today[:8])

    page = call(handler, admin, {"by": ["project", "tool"], "principal": user["principal"], "limit": 2}, tool="get_usage")
    first = page["structuredContent"]
    assert (len(first["rows"]), first["total"], first["totals"]["calls"]) == (2, 3, 4)
    rest = call(handler, admin, {"by": ["project", "tool"], "principal": user["principal"], "limit": 2,
                                 "cursor": first["next_cursor"]}, tool="get_usage")["structuredContent"]  # fmt: skip
    assert [row["project"] for row in first["rows"] + rest["rows"]] == ["", "acme/other", "acme/shop"]
    assert rest["next_cursor"] is None and rest["offset"] == 2

    # An admin of some projects sees only their usage, and may not ask for another's.
    shop_admin = new_token(handler, scopes="admin", projects="acme/shop")
    mine = call(handler, shop_admin, {"by": ["project"]}, tool="get_usage")["structuredContent"]
    assert [(row["project"], row["calls"]) for row in mine["rows"]] == [("acme/shop", 2)]
    assert refusal(call(handler, shop_admin, {"project": "acme/other"}, tool="get_usage"))[0] == "forbidden"


def test_usage_equals_the_audit_log_after_1000_mixed_calls(gateway: Any, clock: Clock) -> None:
    handler = gateway()
    free = new_token(handler, scopes="read,write")
    limited = new_token(handler, scopes="read", rate_per_minute=600, rate_burst=40)
    quota = new_token(handler, scopes="read", monthly_quota=60)
    revoked = new_token(handler, scopes="read")
    with session_scope(handler.stores.relational()) as session:
        tokens.revoke(session, revoked["token_id"])
    kinds = [
        (free, "echo", {"text": "ok", "project": "acme/shop"}),
        (free, "echo", {"text": "ok"}),
        (free, "echo", {"text": "x", "fail": True}),  # invalid (the tool's)
        (free, "echo", {"text": "crash", "project": "acme/shop"}),  # error (ours)
        (free, "nope", {}),  # invalid (the gateway's)
        (free, "admin_echo", {"text": "x"}),  # denied: scope
        (limited, "echo", {"text": "ok"}),  # ok, then rate_limited
        (quota, "echo", {"text": "ok", "project": "acme/other"}),  # ok, then quota_exceeded
        (revoked, "echo", {"text": "ok"}),  # a 401: authenticated by no one, so not audited
    ]
    workers, each = 4, 250
    unauthenticated: list[int] = []

    def worker(number: int) -> None:
        for index in range(each):
            caller, tool, arguments = kinds[(number * each + index) % len(kinds)]
            answer = answer_to(handler, caller, arguments, tool=tool)
            if caller is revoked:
                assert answer.status == 401, answer.text
                unauthenticated.append(1)
            else:
                assert answer.status == 200, answer.text

    threads = [threading.Thread(target=worker, args=(number,)) for number in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)
    rows = audit_rows(handler)
    assert len(unauthenticated) == sum(1 for n in range(workers * each) if n % len(kinds) == len(kinds) - 1)
    assert len(rows) + len(unauthenticated) == workers * each == 1000
    outcomes = Counter(row.error_code or row.outcome for row in rows)
    assert {"ok", "invalid_arguments", "function_error", "unknown_tool", "forbidden", "rate_limited", "quota_exceeded"} <= set(
        outcomes
    ), outcomes

    expected: dict[tuple[Any, ...], Counter[str]] = defaultdict(Counter)
    for row in rows:
        key = (row.at.date(), row.token_id, row.principal, row.project or "", row.tool)
        counts = expected[key]
        counts["calls"] += 1
        counts[usage.OUTCOME_COUNTS[row.outcome]] += 1
        counts["duration_us"] += round(row.latency_ms * 1000)
        counts["result_bytes"] += row.result_bytes
    actual = {
        (row.day, row.token_id, row.principal, row.project, row.tool): Counter(
            {name: getattr(row, name) for name in usage.COUNTS if getattr(row, name)}
        )
        for row in rollups(handler)
    }
    assert actual == dict(expected)
    # What billing reads agrees to the call: billable = the audit rows that are ok.
    with handler.stores.relational().connect() as connection:
        window = usage.Filters(since=clock.now.date(), until=clock.now.date())
        _, _, totals = usage.report(connection, window, ["principal"])
    assert (totals["calls"], totals["billable"]) == (len(rows), outcomes["ok"])
    # The quota counts every admitted call, billable or not; here all of them are.
    assert token_row(handler, quota["token_id"]).quota_used == 60
