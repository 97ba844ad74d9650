"""What the gateway decides itself on tools/call: identity, scope, project, size, deadline; and audit."""

from __future__ import annotations

import json
import logging
import re
import sqlite3
import threading
import time
from contextlib import closing
from typing import Any

import pytest
from tests.functional.gateway.conftest import unreachable_relational
from tests.functional.gateway.gateway_harness import FULL_CALLER, Answer, call_legacy, legacy_request, token_for, v2_event

from rhumbline.gateway.audit import CallRecord, RelationalAuditLog
from rhumbline.gateway.dispatch import InProcessDispatcher
from rhumbline.gateway.identity import REASON_DESCRIPTIONS
from rhumbline.runtime.context import Stores
from rhumbline.runtime.spec import all_specs

READ_ONLY_CALLER = {**FULL_CALLER, "token_id": "tk_aliceshop1", "scopes": "read", "projects": "acme/shop"}
ADMIN_CALLER = {**FULL_CALLER, "token_id": "tk_aliceadmi1", "scopes": "admin", "projects": "*"}


class CountingDispatcher(InProcessDispatcher):
    """The in-process dispatcher, counting what reaches the tools."""

    def __init__(self) -> None:
        super().__init__()
        self.tools: list[str] = []

    def invoke(self, tool: str, payload: dict[str, Any], timeout: float) -> dict[str, Any]:
        self.tools.append(tool)
        return super().invoke(tool, payload, timeout)


@pytest.fixture
def dispatcher() -> CountingDispatcher:
    return CountingDispatcher()


@pytest.fixture
def handler(make_gateway: Any, echo_tools: None, dispatcher: CountingDispatcher) -> Any:
    return make_gateway(dispatcher)


def call(handler: Any, name: str, arguments: Any, caller: dict[str, str] = FULL_CALLER, **options: Any) -> dict[str, Any]:
    return call_legacy(handler, "tools/call", {"name": name, "arguments": arguments}, caller=caller, **options).result


def text_of(result: dict[str, Any]) -> str:
    return result["content"][0]["text"]


def test_ok_call_returns_structured_and_text_content(handler: Any, audit_rows: Any) -> None:
    result = call(handler, "echo", {"text": "héllo"}, request_id="req-ok")
    assert result["isError"] is False
    assert result["structuredContent"] == {"echo": "héllo", "principal": "alice@example.com"}
    assert text_of(result) == '{"echo":"héllo","principal":"alice@example.com"}'
    [row] = audit_rows()
    assert (row.request_id, row.tool, row.outcome, row.error_code, row.project) == ("req-ok", "echo", "ok", None, None)
    assert row.arguments_summary == '{"text":"héllo"}'
    assert row.result_bytes == len(text_of(result).encode())
    assert row.latency_ms > 0


def test_missing_scope_is_denied_before_dispatch(handler: Any, dispatcher: CountingDispatcher, audit_rows: Any) -> None:
    result = call(handler, "admin_echo", {"text": "x"}, READ_ONLY_CALLER)
    assert result["isError"] is True
    assert text_of(result) == "forbidden: this token lacks the 'admin' scope"
    assert "structuredContent" not in result
    assert dispatcher.tools == []
    [row] = audit_rows()
    assert (row.outcome, row.error_code, row.principal) == ("denied", "forbidden", "alice@example.com")


def test_admin_scope_implies_every_scope(handler: Any) -> None:
    assert call(handler, "admin_echo", {"text": "x"}, ADMIN_CALLER)["isError"] is False
    assert call(handler, "echo", {"text": "x"}, ADMIN_CALLER)["isError"] is False


def test_project_outside_the_token_is_denied_without_revealing_it(
    handler: Any, dispatcher: CountingDispatcher, audit_rows: Any
) -> None:
    seen = call(handler, "echo", {"text": "x", "project": "acme/shop"}, READ_ONLY_CALLER)
    assert seen["isError"] is False
    denied = call(handler, "echo", {"text": "x", "project": "other/repo"}, READ_ONLY_CALLER)
    assert text_of(denied) == "forbidden: this token has no access to project 'other/repo'"
    assert dispatcher.tools == ["echo"]
    assert [(row.project, row.outcome) for row in audit_rows()] == [("acme/shop", "ok"), ("other/repo", "denied")]


def test_unknown_tool_names_the_real_ones(handler: Any, audit_rows: Any) -> None:
    result = call(handler, "nope", {})
    assert result["isError"] is True
    # Every registered tool plus the two test doubles, sorted.
    known = ", ".join(sorted([spec.name for spec in all_specs()] + ["admin_echo", "echo"]))
    assert text_of(result) == f"unknown_tool: no tool named 'nope'; tools: {known}"
    assert {"admin_echo", "echo", "get_node", "search"} <= set(known.split(", "))
    [row] = audit_rows()
    assert (row.tool, row.outcome, row.error_code) == ("nope", "invalid", "unknown_tool")


def test_wrong_argument_types_are_refused_by_the_tool_model(handler: Any, dispatcher: CountingDispatcher, audit_rows: Any) -> None:
    wrong_type = call(handler, "echo", {"text": 5})
    assert text_of(wrong_type) == "invalid_arguments: invalid arguments for 'echo': text: Input should be a valid string"
    extra = call(handler, "echo", {"text": "x", "colour": "red"})
    assert text_of(extra) == "invalid_arguments: invalid arguments for 'echo': colour: Extra inputs are not permitted"
    # The gateway forwards raw arguments: the tool function is the one that refused them.
    assert dispatcher.tools == ["echo", "echo"]
    assert [(row.outcome, row.error_code) for row in audit_rows()] == [("invalid", "invalid_arguments")] * 2


def test_tool_errors_keep_their_code_and_details(handler: Any, audit_rows: Any) -> None:
    result = call(handler, "echo", {"text": "x", "fail": True})
    assert result["isError"] is True
    assert text_of(result) == 'invalid_arguments: told to fail\n{"fail": true}'


def test_oversize_arguments_are_refused_before_dispatch(handler: Any, dispatcher: CountingDispatcher, audit_rows: Any) -> None:
    arguments = {"text": "x" * (64 * 1024)}
    size = len(json.dumps(arguments).encode())
    result = call(handler, "echo", arguments)
    assert text_of(result) == f"arguments_too_large: the arguments are {size} bytes serialized; the limit is 65536"
    assert dispatcher.tools == []
    [row] = audit_rows()
    assert (row.outcome, row.error_code) == ("invalid", "arguments_too_large")
    assert len(row.arguments_summary) <= 500


def test_request_id_falls_back_to_a_fresh_uuid(handler: Any, audit_rows: Any) -> None:
    call(handler, "echo", {"text": "x"}, request_id="")
    [row] = audit_rows()
    assert re.fullmatch(r"[0-9a-f]{32}", row.request_id)


class ShortLambdaContext:
    def __init__(self, remaining_ms: int) -> None:
        self.remaining_ms = remaining_ms

    def get_remaining_time_in_millis(self) -> int:
        return self.remaining_ms


def test_no_lambda_time_left_means_no_dispatch(handler: Any, dispatcher: CountingDispatcher, audit_rows: Any) -> None:
    event = v2_event(
        legacy_request("tools/call", {"name": "echo", "arguments": {"text": "x"}}),
        headers={"mcp-protocol-version": "2025-06-18"},
        token=token_for(FULL_CALLER, engine=handler.stores.relational()),
        request_id="req-late",
    )
    result = Answer(handler(event, ShortLambdaContext(remaining_ms=1200))).result
    assert text_of(result) == "timeout: no time was left to run the tool (request id req-late)"
    assert dispatcher.tools == []
    [row] = audit_rows()
    assert (row.outcome, row.error_code) == ("error", "timeout")


class FinishingDispatcher(InProcessDispatcher):
    """The in-process dispatcher, telling when a tool has answered (even to a call that gave up)."""

    def __init__(self) -> None:
        super().__init__()
        self.answered = threading.Event()

    def invoke(self, tool: str, payload: dict[str, Any], timeout: float) -> dict[str, Any]:
        try:
            return super().invoke(tool, payload, timeout)
        finally:
            self.answered.set()


def test_a_tool_overrunning_its_deadline_is_abandoned(make_gateway: Any, echo_tools: None, audit_rows: Any) -> None:
    dispatcher = FinishingDispatcher()
    handler = make_gateway(dispatcher, tool_timeout=0.2)
    result = call(handler, "echo", {"text": "x", "sleep": 1.5}, request_id="req-slow")
    assert text_of(result) == "timeout: the 'echo' tool did not answer within 0.2 s (request id req-slow)"
    assert not dispatcher.answered.is_set()  # the call was answered before its tool
    assert [(row.outcome, row.error_code) for row in audit_rows()] == [("error", "timeout")]
    assert audit_rows()[0].latency_ms < 1200
    # The abandoned thread finishes later: the call still has exactly one row.
    assert dispatcher.answered.wait(10)
    assert [(row.request_id, row.outcome) for row in audit_rows()] == [("req-slow", "error")]


class SlowAuditLog(RelationalAuditLog):
    """The real audit log, writing each row after `delay` seconds."""

    def __init__(self, stores: Stores, delay: float) -> None:
        super().__init__(stores)
        self.delay = delay

    def write(self, entry: CallRecord) -> None:
        time.sleep(self.delay)
        super().write(entry)


def test_a_call_answered_in_time_keeps_its_answer_while_its_row_is_written_past_the_deadline(
    make_gateway: Any, gateway_stores: Stores, echo_tools: None, audit_rows: Any
) -> None:
    # The tool answers within its deadline; writing its row takes until well past it.
    audit_log = SlowAuditLog(gateway_stores, delay=1.2)
    handler = make_gateway(FinishingDispatcher(), tool_timeout=0.2, audit_log=audit_log)
    result = call(handler, "echo", {"text": "in time"}, request_id="req-in-time")
    assert result["structuredContent"]["echo"] == "in time"
    # Exactly one row, the answer's: the deadline path wrote none of its own.
    assert [(row.request_id, row.outcome) for row in audit_rows()] == [("req-in-time", "ok")]


class HangingDispatcher(InProcessDispatcher):
    """The in-process dispatcher, except that an echo of "hang" waits until released."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()
        self.release = threading.Event()
        self.threads: list[int] = []

    def invoke(self, tool: str, payload: dict[str, Any], timeout: float) -> dict[str, Any]:
        self.threads.append(threading.get_ident())
        if payload["arguments"].get("text") == "hang":
            self.entered.set()
            self.release.wait(10)
        return super().invoke(tool, payload, timeout)


def test_a_hung_tool_does_not_stall_other_calls(make_gateway: Any, echo_tools: None, audit_rows: Any) -> None:
    dispatcher = HangingDispatcher()
    handler = make_gateway(dispatcher)
    answers: dict[str, Any] = {}
    hung = threading.Thread(
        target=lambda: answers.update(hung=call(handler, "echo", {"text": "hang"}, request_id="req-hung"))
    )
    hung.start()
    try:
        assert dispatcher.entered.wait(10)
        other = call(handler, "echo", {"text": "meanwhile"}, request_id="req-other")
        assert other["structuredContent"]["echo"] == "meanwhile"
        # Answered and audited while the hung call is still waiting for its tool.
        assert hung.is_alive()
        assert [row.request_id for row in audit_rows()] == ["req-other"]
    finally:
        dispatcher.release.set()
        hung.join(10)
    assert answers["hung"]["structuredContent"]["echo"] == "hang"
    assert [row.request_id for row in audit_rows()] == ["req-other", "req-hung"]


def test_warm_calls_reuse_the_same_worker_thread(make_gateway: Any, echo_tools: None) -> None:
    dispatcher = HangingDispatcher()
    handler = make_gateway(dispatcher)
    for number in range(10):
        assert call(handler, "echo", {"text": str(number)})["isError"] is False
    assert len(dispatcher.threads) == 10 and len(set(dispatcher.threads)) == 1


def test_the_audit_row_is_committed_before_the_response_leaves(handler: Any) -> None:
    database = handler.stores.relational().url.database
    outcomes = []
    for number, arguments in enumerate([{"text": "x"}, {"text": 5}, {"text": "x", "project": "other/repo"}]):
        call(handler, "echo", arguments, READ_ONLY_CALLER, request_id=f"req-{number}")
        # A connection of its own, outside the engine's pool: only a committed row is visible to it.
        with closing(sqlite3.connect(database)) as other:
            outcomes = [tuple(row) for row in other.execute("SELECT request_id, outcome FROM audit_log ORDER BY id")]
        assert [request_id for request_id, _ in outcomes] == [f"req-{n}" for n in range(number + 1)]
    assert [outcome for _, outcome in outcomes] == ["ok", "invalid", "denied"]


def test_an_audit_failure_never_fails_the_call(handler: Any, caplog: Any) -> None:
    # The audit table is gone: the call is admitted (its token's row is there), its audit write
    # fails for real.
    with handler.stores.relational().begin() as connection:
        connection.exec_driver_sql("DROP TABLE audit_log")
    with caplog.at_level(logging.ERROR, logger="rhumbline.gateway.audit"):
        result = call(handler, "echo", {"text": "still works"}, request_id="req-unaudited")
    assert result["structuredContent"] == {"echo": "still works", "principal": "alice@example.com"}
    assert "audit write failed for request req-unaudited (echo)" in caplog.text


def test_a_store_that_cannot_admit_the_call_refuses_it_before_dispatch(
    make_gateway: Any, gateway_stores: Any, echo_tools: None, dispatcher: CountingDispatcher, caplog: Any
) -> None:
    # A database that cannot exist (its parent is a device, not a directory): the token can be
    # neither checked nor metered, so the request is refused with a 503 to retry, never dispatched.
    token = token_for(FULL_CALLER, engine=gateway_stores.relational())
    handler = make_gateway(dispatcher, stores=unreachable_relational(gateway_stores))
    with caplog.at_level(logging.ERROR, logger="rhumbline.gateway"):
        answer = call_legacy(handler, "tools/call", {"name": "echo", "arguments": {"text": "x"}}, token=token)
    assert (answer.status, answer.headers["retry-after"]) == (503, "5")
    assert answer.json == {"error": "temporarily_unavailable", "error_description": REASON_DESCRIPTIONS["unavailable"]}
    assert dispatcher.tools == []
    assert "the token could not be checked" in caplog.text


def test_tool_annotations_follow_the_spec(handler: Any) -> None:
    tools = {tool["name"]: tool for tool in call_legacy(handler, "tools/list", caller=ADMIN_CALLER).result["tools"]}
    assert tools["admin_echo"]["annotations"] == {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": False,
        "openWorldHint": True,
    }


def test_local_mode_keeps_dns_rebinding_protection(make_gateway: Any) -> None:
    handler = make_gateway(mode="local")
    foreign = call_legacy(handler, "tools/list")
    assert foreign.status == 421
    local = call_legacy(handler, "tools/list", headers={"host": "127.0.0.1:8080"})
    assert local.status == 200
    evil_origin = call_legacy(handler, "tools/list", headers={"host": "127.0.0.1:8080", "origin": "http://evil.example"})
    assert evil_origin.status == 403
