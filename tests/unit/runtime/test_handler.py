from __future__ import annotations

import importlib
import sys
import time

import pytest

from rhumbline.contract import INVOCATION_CONTRACT, OUTCOME_CONTRACT
from rhumbline.runtime import spec as registry
from rhumbline.runtime.handler import handle, tool_handler


@pytest.fixture(autouse=True)
def echo_tool(monkeypatch):
    # The test tool's module, where the handler looks for a tool named `echo`.
    monkeypatch.syspath_prepend(str(__import__("pathlib").Path(__file__).parent))
    monkeypatch.setitem(sys.modules, registry.module_name("echo"), importlib.import_module("echo_tool"))


def invocation(**overrides) -> dict:
    payload = {
        "contract": INVOCATION_CONTRACT,
        "tool": "echo",
        "arguments": {"text": "hi", "project": "acme/app"},
        "caller": {"principal": "alice", "token_id": "tk_1", "projects": ["acme/app"], "scopes": ["read"]},
        "request_id": "req-1",
        "deadline_ms": int((time.time() + 30) * 1000),
    }
    payload.update(overrides)
    return payload


def test_success_returns_result_and_contract_version():
    outcome = handle("echo", invocation())
    assert outcome["contract"] == OUTCOME_CONTRACT
    assert outcome["ok"] is True
    assert outcome["result"] == {"text": "hi", "principal": "alice"}
    assert outcome["request_id"] == "req-1"
    assert outcome["error"] is None


def test_lambda_entry_point_serves_its_tool():
    handler = tool_handler("echo")
    assert handler(invocation(), None)["result"]["text"] == "hi"


def test_the_tool_entry_point_serves_the_tool_its_function_is_named_for(monkeypatch):
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "rhumbline-tool-x-tool-echo")  # a stack named like one
    assert tool_handler()(invocation(), None)["result"]["text"] == "hi"
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "rhumbline-dev-GatewayFunction-A1B2")
    with pytest.raises(RuntimeError, match="a tool function is named <stack>-tool-<tool>"):
        tool_handler()
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "rhumbline-dev-tool-nope")
    with pytest.raises(registry.UnknownTool):
        tool_handler()


def test_unknown_contract_version_is_refused():
    outcome = handle("echo", invocation(contract="rhumbline.tool-invocation/99"))
    assert outcome["ok"] is False
    assert outcome["error"]["code"] == "invalid_arguments"
    assert "malformed tool invocation" in outcome["error"]["message"]
    assert outcome["request_id"] == "req-1"


def test_wrong_tool_for_this_function():
    outcome = handle("echo", invocation(tool="search"))
    assert outcome["error"] == {"code": "invalid_arguments", "message": "this function serves 'echo', not 'search'", "details": {}}


def test_expired_deadline():
    outcome = handle("echo", invocation(deadline_ms=int((time.time() - 1) * 1000)))
    assert outcome["error"]["code"] == "deadline_exceeded"


def test_project_outside_the_token_is_forbidden_even_if_the_gateway_let_it_through():
    outcome = handle("echo", invocation(arguments={"text": "hi", "project": "other/secret"}))
    assert outcome["error"]["code"] == "forbidden"
    assert outcome["error"]["message"] == "this token has no access to project 'other/secret'"


def test_missing_scope_is_forbidden(monkeypatch):
    import dataclasses

    write_spec = dataclasses.replace(registry.load_spec("echo"), scope="write")
    monkeypatch.setattr("rhumbline.runtime.handler.load_spec", lambda name: write_spec)
    outcome = handle("echo", invocation())
    assert outcome["error"] == {"code": "forbidden", "message": "this token lacks the 'write' scope", "details": {}}


def test_invalid_arguments_name_the_field_without_echoing_values():
    outcome = handle("echo", invocation(arguments={"text": 12345678, "bogus": "s3cr3t-value"}))
    message = outcome["error"]["message"]
    assert outcome["error"]["code"] == "invalid_arguments"
    assert "text: Input should be a valid string" in message
    assert "bogus: Extra inputs are not permitted" in message
    assert "s3cr3t-value" not in message


def test_crash_is_reported_without_internals():
    outcome = handle("echo", invocation(arguments={"text": "x", "explode": True}))
    assert outcome["ok"] is False
    assert outcome["error"]["code"] == "internal_error"
    assert outcome["error"]["message"] == "internal error in 'echo' (request id req-1)"
    assert "secret internals" not in str(outcome)


def test_non_dict_event_is_an_error_not_a_crash():
    outcome = handle("echo", ["not", "an", "object"])
    assert outcome["ok"] is False
    assert outcome["error"]["code"] == "invalid_arguments"
