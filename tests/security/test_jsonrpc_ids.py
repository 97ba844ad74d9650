"""Issue 15, item 10: a JSON-RPC request whose `id` is not a string or an integer is an Invalid
Request (-32600, HTTP 400), not a silent 202 the client waits on forever."""

from __future__ import annotations

from typing import Any

import pytest

from tests.functional.gateway.gateway_harness import Answer, FULL_CALLER, token_for, v2_event


@pytest.mark.parametrize(("request_id", "kind"), [
    (None, "null"), ({"a": 1}, "an object"), ([1], "an array"), (True, "a boolean"), (1.5, "a fraction"),
])  # fmt: skip
@pytest.mark.parametrize("method", ["tools/call", "tools/list", "ping", "initialize"])
def test_a_request_id_that_is_not_a_string_or_an_integer_is_refused(make_gateway: Any, request_id: Any, kind: str, method: str) -> None:
    handler = make_gateway()
    body = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": {"name": "list_projects", "arguments": {}}}
    answer = Answer(handler(v2_event(body, headers={"mcp-protocol-version": "2025-06-18"}, token=token_for(FULL_CALLER, engine=handler.stores.relational())), None))
    assert (answer.status, answer.json) == (400, {
        "jsonrpc": "2.0", "id": None,
        "error": {"code": -32600, "message": f"Invalid Request: `id` must be a string or an integer, not {kind}"},
    })  # fmt: skip


@pytest.mark.parametrize("request_id", ["abc", 7, 0, -3])
def test_string_and_integer_ids_are_answered_and_notifications_still_get_202(make_gateway: Any, request_id: Any) -> None:
    handler = make_gateway()
    headers = {"mcp-protocol-version": "2025-06-18"}
    answer = Answer(handler(v2_event({"jsonrpc": "2.0", "id": request_id, "method": "ping"}, headers=headers, token=token_for(FULL_CALLER, engine=handler.stores.relational())), None))
    assert (answer.status, answer.json["id"]) == (200, request_id)
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert Answer(handler(v2_event(note, headers=headers, token=token_for(FULL_CALLER, engine=handler.stores.relational())), None)).status == 202
