"""The gateway's LambdaDispatcher with a real boto3 client.

moto cannot run function code without Docker, so a botocore `before-call.lambda.Invoke` hook plays
the Lambda service: it runs the real tool handler in-process and answers as Lambda does, including
FunctionError, throttling and a read timeout.
"""

from __future__ import annotations

import io
import json
from typing import Any

import boto3
import pytest
from botocore.awsrequest import AWSResponse
from botocore.exceptions import ReadTimeoutError
from botocore.response import StreamingBody
from tests.functional.gateway.gateway_harness import call_legacy

from rhumbline.gateway.dispatch import LambdaDispatcher
from rhumbline.runtime.context import Stores
from rhumbline.runtime.handler import handle

PREFIX = "rhumbline-dev-tool-"
FUNCTIONS = {"echo": "rhumbline-dev-tool-echo", "list_projects": "rhumbline-dev-tool-list_projects"}


class LambdaService:
    """Answers lambda.Invoke for the functions above, their tools reaching `stores` as a tool
    function's container reaches its own; `failure` makes the next calls fail a given way."""

    def __init__(self, stores: Stores) -> None:
        self.stores = stores
        self.failure: str | None = None
        self.invoked: list[tuple[str, str]] = []
        self.qualifiers: list[str | None] = []

    def __call__(self, model: Any, params: dict[str, Any], **kwargs: Any) -> tuple[AWSResponse, dict[str, Any]]:
        function_name = params["url_path"].split("/")[3]
        invocation_type = params["headers"].get("X-Amz-Invocation-Type", "")
        self.invoked.append((function_name, invocation_type))
        self.qualifiers.append(params["query_string"].get("Qualifier"))
        tool = {name: tool for tool, name in FUNCTIONS.items()}.get(function_name)
        if tool is None:
            error = {"Error": {"Code": "ResourceNotFoundException", "Message": f"Function not found: {function_name}"}}
            return AWSResponse("https://lambda", 404, {}, None), {**error, "ResponseMetadata": {"HTTPStatusCode": 404}}
        if self.failure == "throttle":
            error = {"Error": {"Code": "TooManyRequestsException", "Message": "Rate Exceeded."}}
            return AWSResponse("https://lambda", 429, {}, None), {**error, "ResponseMetadata": {"HTTPStatusCode": 429}}
        if self.failure == "read-timeout":
            raise ReadTimeoutError(endpoint_url="https://lambda.eu-west-1.amazonaws.com")
        if self.failure == "crash":
            return self.answer({"errorMessage": "boom at 0x7f: secret path /var/task", "errorType": "MemoryError",
                                "stackTrace": ['  File "/var/task/app.py", line 3']}, function_error=True)
        if self.failure == "lambda-timeout":
            return self.answer({"errorMessage": "2026-11-30T04:00:29Z abc Task timed out after 29.00 seconds",
                                "errorType": "Sandbox.Timedout"}, function_error=True)
        if self.failure == "not-json-object":
            return self.answer("not an outcome", function_error=False)
        if self.failure == "malformed-outcome":
            return self.answer({"ok": "perhaps"}, function_error=False)
        return self.answer(handle(tool, json.loads(params["body"]), self.stores), function_error=False)

    @staticmethod
    def answer(payload: Any, *, function_error: bool) -> tuple[AWSResponse, dict[str, Any]]:
        body = json.dumps(payload).encode()
        parsed: dict[str, Any] = {
            "StatusCode": 200,
            "ExecutedVersion": "$LATEST",
            "Payload": StreamingBody(io.BytesIO(body), len(body)),
            "ResponseMetadata": {"HTTPStatusCode": 200},
        }
        if function_error:
            parsed["FunctionError"] = "Unhandled"
        return AWSResponse("https://lambda", 200, {}, None), parsed


@pytest.fixture
def service(gateway_stores: Stores) -> LambdaService:
    return LambdaService(gateway_stores)


@pytest.fixture
def handler(make_gateway: Any, echo_tools: None, service: LambdaService) -> Any:
    client = boto3.client("lambda", region_name="eu-west-1", aws_access_key_id="testing", aws_secret_access_key="testing")
    client.meta.events.register("before-call.lambda.Invoke", service)
    return make_gateway(LambdaDispatcher(PREFIX, read_timeout=5.0, client=client))


def call(handler: Any, name: str, arguments: dict[str, Any], request_id: str = "req-l") -> dict[str, Any]:
    return call_legacy(handler, "tools/call", {"name": name, "arguments": arguments}, request_id=request_id).result


def test_a_call_reaches_the_tool_function_through_lambda_invoke(handler: Any, service: LambdaService, audit_rows: Any) -> None:
    result = call(handler, "echo", {"text": "over the wire"})
    assert result["structuredContent"] == {"echo": "over the wire", "principal": "alice@example.com"}
    assert call(handler, "list_projects", {})["structuredContent"] == {"projects": [], "total": 0}
    assert service.invoked == [
        ("rhumbline-dev-tool-echo", "RequestResponse"),
        ("rhumbline-dev-tool-list_projects", "RequestResponse"),
    ]
    assert service.qualifiers == [None, None]  # no alias: the function itself
    assert [row.outcome for row in audit_rows()] == ["ok", "ok"]


def test_a_call_goes_to_the_tool_functions_alias(make_gateway: Any, echo_tools: None, service: LambdaService) -> None:
    """SnapStart serves published versions only: the hosted gateway invokes the alias (template.yaml)."""
    client = boto3.client("lambda", region_name="eu-west-1", aws_access_key_id="testing", aws_secret_access_key="testing")
    client.meta.events.register("before-call.lambda.Invoke", service)
    aliased = make_gateway(LambdaDispatcher(PREFIX, read_timeout=5.0, alias="live", client=client))
    assert call(aliased, "echo", {"text": "x"})["structuredContent"]["echo"] == "x"
    assert (service.invoked, service.qualifiers) == ([("rhumbline-dev-tool-echo", "RequestResponse")], ["live"])


@pytest.mark.parametrize(
    ("failure", "expected"),
    [
        ("crash", "function_error: the 'echo' function failed (MemoryError) (request id req-l)"),
        ("lambda-timeout", "timeout: the 'echo' function ran out of time (request id req-l)"),
        ("throttle", "throttled: the 'echo' function is throttled; retry in a few seconds (request id req-l)"),
        ("read-timeout", "timeout: the 'echo' function did not answer in time (request id req-l)"),
        ("not-json-object", "dispatch_failed: the 'echo' function answered with something other than an outcome (request id req-l)"),
        ("malformed-outcome", "dispatch_failed: the 'echo' tool answered with a malformed outcome (request id req-l)"),
    ],
)
def test_dispatch_failures_become_specific_tool_errors(
    handler: Any, service: LambdaService, audit_rows: Any, failure: str, expected: str
) -> None:
    service.failure = failure
    result = call(handler, "echo", {"text": "x"})
    assert result["isError"] is True
    assert result["content"][0]["text"] == expected
    assert "File" not in json.dumps(result)  # never a stack trace
    [row] = audit_rows()
    assert (row.outcome, row.error_code) == ("error", expected.split(":", 1)[0])


def test_a_tool_without_a_function_is_a_dispatch_failure(handler: Any, service: LambdaService, audit_rows: Any) -> None:
    result = call(handler, "search", {"query": "x"})  # no function of that name in this account
    assert service.invoked == [("rhumbline-dev-tool-search", "RequestResponse")]
    assert result["content"][0]["text"] == "dispatch_failed: the function for tool 'search' does not exist (request id req-l)"


def test_function_names_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from rhumbline.config import load_settings

    monkeypatch.setenv("RHUMBLINE_TOOL_FUNCTION_PREFIX", PREFIX)
    monkeypatch.setenv("RHUMBLINE_TOOL_TIMEOUT", "20")
    dispatcher = LambdaDispatcher.from_environment(load_settings())
    assert dispatcher.function_prefix == PREFIX
    assert dispatcher.read_timeout == 22.0
    assert dispatcher.alias == ""
    monkeypatch.setenv("RHUMBLINE_TOOL_FUNCTION_ALIAS", "live")
    assert LambdaDispatcher.from_environment(load_settings()).alias == "live"
    monkeypatch.setenv("RHUMBLINE_TOOL_FUNCTION_PREFIX", " ")
    with pytest.raises(RuntimeError, match="RHUMBLINE_TOOL_FUNCTION_PREFIX must name"):
        LambdaDispatcher.from_environment(load_settings())


def test_the_boto3_client_has_timeouts_and_no_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    client = LambdaDispatcher(PREFIX, read_timeout=27.0).client
    assert client.meta.config.connect_timeout == 2.0
    assert client.meta.config.read_timeout == 27.0
    assert client.meta.config.retries["total_max_attempts"] == 1
