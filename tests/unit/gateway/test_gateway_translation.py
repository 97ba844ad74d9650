"""ToolOutcome -> the CallToolResult wire dict, and the checks the gateway makes before dispatching."""

from __future__ import annotations

import json

import mcp_types as types
import pytest
from mcp_types import methods
from pydantic import BaseModel

from rhumbline.contract import Caller, ToolOutcome
from rhumbline.gateway.calls import (
    DEADLINE_MARGIN_SECONDS,
    MAX_ARGUMENT_BYTES,
    CallRequest,
    ToolCalls,
    check_call,
    error_result,
    outcome_to_result,
    result_size,
    verdict_for,
)
from rhumbline.gateway.catalog import Catalog
from rhumbline.gateway.dispatch import InProcessDispatcher
from rhumbline.runtime.spec import ToolSpec


class Input(BaseModel):
    project: str | None = None
    text: str = ""


SPEC = ToolSpec(name="write_thing", title="Write", description="d", input_model=Input, output_model=Input, run=lambda a, c: a, scope="write")
CATALOG = Catalog({"write_thing": SPEC})
WRITER = Caller(principal="p", token_id="tk_1", projects=("acme/shop",), scopes=("read", "write"))


def request(arguments: dict, caller: Caller = WRITER, tool: str = "write_thing") -> CallRequest:
    return CallRequest(tool=tool, arguments=arguments, caller=caller, request_id="r1")


def test_a_successful_outcome_is_structured_and_text_content() -> None:
    outcome = ToolOutcome.success("r1", {"hits": [{"name": "Straße"}], "total": 1}, 1.5)
    result = outcome_to_result(outcome)
    assert result["isError"] is False
    assert result["structuredContent"] == {"hits": [{"name": "Straße"}], "total": 1}
    assert result["content"] == [{"type": "text", "text": '{"hits":[{"name":"Straße"}],"total":1}'}]
    assert result_size(result) == len('{"hits":[{"name":"Straße"}],"total":1}'.encode())


def test_a_failed_outcome_is_an_error_prefixed_with_its_code() -> None:
    outcome = ToolOutcome.failure("r1", {"code": "not_found", "message": "no node 'x'"}, 1.0)
    result = outcome_to_result(outcome)
    assert result["isError"] is True
    assert "structuredContent" not in result
    assert [block["text"] for block in result["content"]] == ["not_found: no node 'x'"]
    assert result_size(result) == 0


def test_error_details_follow_the_message_as_json() -> None:
    result = error_result("invalid_arguments", "`project` is required", {"projects": ["a/b", "c/d"]})
    assert result["content"][0]["text"] == 'invalid_arguments: `project` is required\n{"projects": ["a/b", "c/d"]}'


def as_model(result: dict) -> types.CallToolResult:
    """The CallToolResult the wire dict stands for, built the way the gateway built it before."""
    blocks = [types.TextContent(text=block["text"]) for block in result["content"]]
    return types.CallToolResult(content=blocks, structured_content=result.get("structuredContent"), is_error=result["isError"])


WIRE_CASES = [
    ToolOutcome.success("r1", {"a": 1, "items": [{"name": "Größe", "line": None}], "next": None}, 1.0),
    ToolOutcome.success("r1", {"project": "p", "format": "markdown", "markdown": "# x\n- `y`"}, 1.0),
    ToolOutcome.success("r1", {}, 1.0),
    ToolOutcome.failure("r1", {"code": "not_found", "message": "no node 'x'", "details": {"candidates": ["a", "b"]}}, 1.0),
    ToolOutcome.failure("r1", {"code": "timeout", "message": "late"}, 1.0),
]


@pytest.mark.parametrize("outcome", WIRE_CASES)
def test_the_wire_dict_is_the_models_own_dump(outcome: ToolOutcome) -> None:
    result = outcome_to_result(outcome)
    dumped = as_model(result).model_dump(by_alias=True, mode="json", exclude_none=True)
    assert json.dumps(result) == json.dumps(dumped)  # key order included


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25", "2026-07-28"])
@pytest.mark.parametrize("outcome", WIRE_CASES)
def test_the_sdk_sends_the_same_result_for_the_dict_as_for_the_model(outcome: ToolOutcome, version: str) -> None:
    # What the SDK's ServerRunner does with a handler's result: a dict is copied, a model dumped;
    # then both are validated and dumped for the client's protocol version.
    result = outcome_to_result(outcome)
    from_dict = methods.serialize_server_result("tools/call", version, dict(result))
    dumped = as_model(result).model_dump(by_alias=True, mode="json", exclude_none=True)
    from_model = methods.serialize_server_result("tools/call", version, dumped)
    assert json.dumps(from_dict) == json.dumps(from_model)


def test_checks_in_order_unknown_scope_project_size() -> None:
    assert check_call(CATALOG, request({}, tool="nope")).code == "unknown_tool"
    reader = Caller(principal="p", token_id="tk_1", projects=("*",), scopes=("read",))
    assert check_call(CATALOG, request({}, reader)).message == "this token lacks the 'write' scope"
    assert check_call(CATALOG, request({"project": "other/x"})).message == "this token has no access to project 'other/x'"
    assert check_call(CATALOG, request({"project": "acme/shop"})) is None
    # A project that is not a string is the tool's model's to refuse, not a denial.
    assert check_call(CATALOG, request({"project": 7})) is None


def test_arguments_up_to_64_kib_pass_and_one_byte_more_does_not() -> None:
    overhead = len(json.dumps({"text": ""}).encode())
    at_limit = {"text": "x" * (MAX_ARGUMENT_BYTES - overhead)}
    assert check_call(CATALOG, request(at_limit)) is None
    over = {"text": "x" * (MAX_ARGUMENT_BYTES - overhead + 1)}
    refusal = check_call(CATALOG, request(over))
    assert refusal.code == "arguments_too_large"
    assert refusal.message == f"the arguments are {MAX_ARGUMENT_BYTES + 1} bytes serialized; the limit is {MAX_ARGUMENT_BYTES}"


def test_multibyte_characters_count_as_bytes() -> None:
    overhead = len(json.dumps({"text": ""}).encode())
    assert check_call(CATALOG, request({"text": "é" * ((MAX_ARGUMENT_BYTES - overhead) // 2 + 1)})).code == "arguments_too_large"


@pytest.mark.parametrize(
    ("code", "verdict"),
    [(None, "ok"), ("forbidden", "denied"), ("invalid_arguments", "invalid"), ("unknown_tool", "invalid"),
     ("arguments_too_large", "invalid"), ("not_found", "error"), ("timeout", "error"), ("internal_error", "error")],
)
def test_audit_verdicts(code: str | None, verdict: str) -> None:
    assert verdict_for(code) == verdict


def test_the_budget_is_the_tool_timeout_or_what_lambda_leaves() -> None:
    calls = ToolCalls(CATALOG, InProcessDispatcher(), audit_log=None, meter=None, tool_timeout=25.0)  # type: ignore[arg-type]
    assert calls.budget(None) == 25.0
    assert calls.budget(60.0) == 25.0
    assert calls.budget(10.0) == 10.0 - DEADLINE_MARGIN_SECONDS
