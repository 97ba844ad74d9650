"""The Lambda handler every tool function uses (`functions/tool/app.py`).

The same handler serves all three modes: invoked by the gateway in AWS, called in-process by the
local server, and reached through the local Lambda Invoke endpoint. It never raises: every outcome,
including a crash, comes back as a `ToolOutcome`, so Lambda's `FunctionError` is reserved for the
runtime itself failing (out of memory, timeout).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from rhumbline.contract import ToolInvocation, ToolOutcome, success_payload
from rhumbline.errors import DeadlineExceeded, Forbidden, InvalidArguments, ToolFailure
from rhumbline.runtime.spec import ToolSpec, load_spec
from rhumbline.runtime import snapshot

if TYPE_CHECKING:
    from rhumbline.runtime.context import Stores

logger = logging.getLogger("rhumbline.tool")
# Tool functions are named <stack>-tool-<tool>; a tool name has no "-".
TOOL_FUNCTION_INFIX = "-tool-"

LambdaHandler = Callable[[dict[str, Any], Any], dict[str, Any]]


def describe_validation_error(error: ValidationError) -> str:
    """One line per problem, `field: message`, without echoing the offending values back."""
    lines = []
    for problem in error.errors(include_url=False, include_input=False)[:10]:
        where = ".".join(str(part) for part in problem["loc"]) or "(arguments)"
        lines.append(f"{where}: {problem['msg']}")
    return "; ".join(lines)


def execute(spec: ToolSpec, invocation: ToolInvocation, stores: "Stores | None" = None) -> dict[str, Any]:
    """Run one validated invocation with these stores (default: the container's) and return the
    tool's result as JSON-ready data."""
    from rhumbline.runtime.context import ToolContext

    if invocation.remaining_seconds() <= 0:
        raise DeadlineExceeded("the call arrived after its deadline")
    if stores is None:
        from rhumbline.runtime import resources

        stores = resources.stores()
    context = ToolContext(
        caller=invocation.caller,
        request_id=invocation.request_id,
        deadline=invocation.deadline_ms / 1000.0,
        stores=stores,
    )
    context.require_scope(spec.scope)
    try:
        arguments = spec.input_model.model_validate(invocation.arguments)
    except ValidationError as error:
        raise InvalidArguments(f"invalid arguments for '{spec.name}': {describe_validation_error(error)}") from None
    # Defense in depth: the gateway already checked the project, but a tool function must not trust
    # whoever invoked it to have done so.
    requested = getattr(arguments, spec.project_argument, None) if spec.project_argument else None
    if requested and not invocation.caller.can_see(requested):
        raise Forbidden(f"this token has no access to project '{requested}'")
    return spec.run(arguments, context).model_dump(mode="json")


def handle(tool_name: str, event: Any, stores: "Stores | None" = None) -> dict[str, Any]:
    """One invocation's outcome; `stores`: what the tool reaches (default: the container's)."""
    started = time.perf_counter()
    request_id = event.get("request_id", "") if isinstance(event, dict) else ""

    def elapsed() -> float:
        return round((time.perf_counter() - started) * 1000, 3)

    try:
        invocation = ToolInvocation.model_validate(event)
        if invocation.tool != tool_name:
            raise InvalidArguments(f"this function serves '{tool_name}', not '{invocation.tool}'")
        result = execute(load_spec(tool_name), invocation, stores)
        return success_payload(invocation.request_id, result, elapsed())
    except ValidationError as error:
        failure = InvalidArguments(f"malformed tool invocation: {describe_validation_error(error)}")
        return ToolOutcome.failure(str(request_id), failure.to_dict(), elapsed()).model_dump(mode="json")
    except ToolFailure as failure:
        return ToolOutcome.failure(str(request_id), failure.to_dict(), elapsed()).model_dump(mode="json")
    except Exception as error:  # noqa: BLE001 - the contract promises an outcome, never a raise
        from rhumbline.runtime.failures import expected_failure

        expected = expected_failure(error)
        if expected is not None:
            logger.warning("tool %s: %s (request %s)", tool_name, expected.code, request_id, exc_info=True)
            return ToolOutcome.failure(str(request_id), expected.to_dict(), elapsed()).model_dump(mode="json")
        logger.exception("tool %s crashed (request %s)", tool_name, request_id)
        body = {"code": "internal_error", "message": f"internal error in '{tool_name}' (request id {request_id})"}
        return ToolOutcome.failure(str(request_id), body, elapsed()).model_dump(mode="json")


def tool_handler(tool_name: str | None = None) -> LambdaHandler:
    """The Lambda entry point of a tool function, for the tool its function's name ends with
    (`<stack>-tool-<tool>`, template.yaml) unless given. Loads the tool's module now, at init."""
    from rhumbline.observability import lambda_entry

    if tool_name is None:
        function_name = os.environ.get("AWS_LAMBDA_FUNCTION_NAME", "")
        _, infix, tool_name = function_name.rpartition(TOOL_FUNCTION_INFIX)
        if not infix:
            raise RuntimeError(f"a tool function is named <stack>{TOOL_FUNCTION_INFIX}<tool>, not {function_name!r}")
    load_spec(tool_name)
    # SnapStart: nothing of one container's own survives a restore (runtime/snapshot.py).
    snapshot.register()

    def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        return handle(tool_name, event)

    lambda_handler.__name__ = f"{tool_name}_handler"
    return lambda_entry(lambda_handler, function=tool_name)
