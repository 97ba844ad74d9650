"""How the gateway reaches a tool: its own Lambda function (hosted), or the handler in-process (local).

A dispatcher is blocking: the gateway calls it in a worker thread, bounded by the call's deadline.
It returns the tool function's `ToolOutcome` as a dict, or raises `DispatchError` when the function
could not produce one (it crashed, timed out, was throttled, or could not be reached).
"""

from __future__ import annotations

import json
import logging
import os
from typing import TYPE_CHECKING, Any, Protocol

import pydantic_core

if TYPE_CHECKING:
    from rhumbline.config import Settings
    from rhumbline.runtime.context import Stores

logger = logging.getLogger("rhumbline.gateway")

CONNECT_TIMEOUT_SECONDS = 2.0
# The read timeout is the ceiling; the gateway enforces each call's own (shorter) deadline.
READ_TIMEOUT_SLACK_SECONDS = 2.0
FUNCTION_PREFIX_VARIABLE = "RHUMBLINE_TOOL_FUNCTION_PREFIX"
# The alias every tool function is invoked through (template.yaml: AutoPublishAlias): SnapStart
# serves published versions only. Empty (the local Invoke API): the function itself.
FUNCTION_ALIAS_VARIABLE = "RHUMBLINE_TOOL_FUNCTION_ALIAS"


class DispatchError(Exception):
    """The tool function produced no outcome. `message` is safe to show the caller."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class Dispatcher(Protocol):
    def invoke(self, tool: str, payload: dict[str, Any], timeout: float) -> dict[str, Any]: ...


class InProcessDispatcher:
    """Calls the tool's Lambda handler logic directly: the local default, no network involved.
    The tools reach `stores` (default: the container's, as a tool function's do)."""

    def __init__(self, stores: "Stores | None" = None) -> None:
        self.stores = stores

    def invoke(self, tool: str, payload: dict[str, Any], timeout: float) -> dict[str, Any]:
        from rhumbline.runtime.handler import handle

        # The payload's deadline bounds the tool itself; `timeout` is enforced by the caller.
        return handle(tool, payload, self.stores)


class LambdaDispatcher:
    """Invokes each tool's own function with boto3 (RequestResponse): the function of tool `t` is
    named `<prefix>t` (template.yaml names every tool function so), invoked through `alias` if set.

    One client per container, made at first use. No retries: a tool call is not always idempotent
    (ingest), and a retried read timeout would only run past the caller's deadline.
    """

    def __init__(self, function_prefix: str, *, read_timeout: float, alias: str = "", client: Any = None) -> None:
        self.function_prefix = function_prefix
        self.alias = alias
        self.read_timeout = read_timeout
        self._client = client

    @classmethod
    def from_environment(cls, settings: "Settings") -> "LambdaDispatcher":
        prefix = os.environ.get(FUNCTION_PREFIX_VARIABLE, "").strip()
        if not prefix:
            raise RuntimeError(f"{FUNCTION_PREFIX_VARIABLE} must name the tool functions' prefix (`<stack>-tool-`)")
        alias = os.environ.get(FUNCTION_ALIAS_VARIABLE, "").strip()
        return cls(prefix, read_timeout=settings.tool_timeout + READ_TIMEOUT_SLACK_SECONDS, alias=alias)

    @property
    def client(self) -> Any:
        if self._client is None:
            import boto3
            from botocore.config import Config

            config = Config(
                connect_timeout=CONNECT_TIMEOUT_SECONDS,
                read_timeout=self.read_timeout,
                retries={"total_max_attempts": 1},
                tcp_keepalive=True,
            )
            self._client = boto3.client("lambda", config=config)
        return self._client

    def invoke(self, tool: str, payload: dict[str, Any], timeout: float) -> dict[str, Any]:
        from botocore.exceptions import BotoCoreError, ClientError, ConnectTimeoutError, ReadTimeoutError

        function_name = self.function_prefix + tool
        qualifier = {"Qualifier": self.alias} if self.alias else {}
        try:
            response = self.client.invoke(
                FunctionName=function_name,
                InvocationType="RequestResponse",
                Payload=json.dumps(payload).encode(),
                **qualifier,
            )
            body = response["Payload"].read()
        except ReadTimeoutError:
            raise DispatchError("timeout", f"the '{tool}' function did not answer in time") from None
        except ConnectTimeoutError:
            raise DispatchError("unavailable", "the Lambda service could not be reached") from None
        except ClientError as error:
            raise _client_error(tool, error) from None
        except BotoCoreError as error:
            logger.warning("invoking %s failed: %s", function_name, error)
            raise DispatchError("unavailable", f"the '{tool}' function could not be invoked") from None
        if response.get("FunctionError"):
            raise _function_error(tool, function_name, body)
        outcome = parse_payload(body)
        if not isinstance(outcome, dict):
            raise DispatchError("dispatch_failed", f"the '{tool}' function answered with something other than an outcome")
        return outcome


def parse_payload(body: bytes) -> Any:
    """A function's JSON answer, as json.loads reads it; None when it is not JSON.

    pydantic-core's parser first: it is faster than json.loads on the large outcomes parsed on
    every call. What it refuses goes to json.loads, which accepts some of it (a lone surrogate
    escape such as `\\ud800`, as Python's json.dumps writes such a string)."""
    try:
        return pydantic_core.from_json(body)
    except ValueError:
        pass
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None


def _client_error(tool: str, error: Any) -> DispatchError:
    code = error.response.get("Error", {}).get("Code", "")
    logger.warning("lambda invoke for %s failed: %s", tool, code)
    if code in ("TooManyRequestsException", "ThrottlingException", "EC2ThrottledException"):
        return DispatchError("throttled", f"the '{tool}' function is throttled; retry in a few seconds")
    if code == "ResourceNotFoundException":
        return DispatchError("dispatch_failed", f"the function for tool '{tool}' does not exist")
    return DispatchError("dispatch_failed", f"the '{tool}' function could not be invoked ({code or 'unknown error'})")


def _function_error(tool: str, function_name: str, body: bytes) -> DispatchError:
    """The runtime itself failed (crash, out of memory, timeout): our handler never raises."""
    try:
        details = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        details = {}
    error_type = str(details.get("errorType", "")) if isinstance(details, dict) else ""
    message = str(details.get("errorMessage", "")) if isinstance(details, dict) else ""
    # The full error stays in our logs; the caller gets its type, never a stack trace.
    logger.error("function %s failed: %s: %s", function_name, error_type, message)
    if "Timedout" in error_type or "timed out" in message:
        return DispatchError("timeout", f"the '{tool}' function ran out of time")
    return DispatchError("function_error", f"the '{tool}' function failed ({error_type or 'unhandled error'})")


def dispatcher_from_environment(settings: "Settings") -> Dispatcher:
    choice = os.environ.get("RHUMBLINE_DISPATCH", "").strip() or ("lambda" if settings.mode == "hosted" else "inprocess")
    if choice == "lambda":
        return LambdaDispatcher.from_environment(settings)
    if choice == "inprocess":
        return InProcessDispatcher()
    raise RuntimeError(f"RHUMBLINE_DISPATCH must be 'lambda' or 'inprocess', not {choice!r}")
