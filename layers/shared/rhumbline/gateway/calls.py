"""One `tools/call` through the gateway: check the caller, admit, dispatch, translate, audit.

The gateway never validates arguments against the tool's model nor runs tool logic: the tool
function does that with the same pydantic model the catalog advertises. The gateway only refuses
what it can refuse without the tool (unknown tool, missing scope or project, a tool outside the
client's toolsets, oversize arguments), then what the meter refused (a rate limit, a quota:
gateway/meter.py) when the edge admitted the request, or refuses now (a stdio session's calls).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
import pydantic_core
from pydantic import ValidationError

from rhumbline.contract import Caller, ToolErrorBody, ToolInvocation, ToolOutcome
from rhumbline.gateway.audit import AuditLog, CallRecord
from rhumbline.gateway.catalog import Catalog
from rhumbline.gateway.dispatch import Dispatcher, DispatchError
from rhumbline.gateway.toolsets import EVERYTHING, Selection
from rhumbline.observability import record_dispatch_failure, record_tool_call

if TYPE_CHECKING:
    from rhumbline.gateway.meter import Meter
    from rhumbline.stores.relational.schema.core import AuditOutcome

logger = logging.getLogger("rhumbline.gateway")


def utcnow() -> datetime:
    # Not stores/relational/schema's: the gateway loads the relational store with its first call.
    return datetime.now(timezone.utc)


MAX_ARGUMENT_BYTES = 64 * 1024
# Lambda time kept back from the tool's deadline so the gateway can still answer and audit.
DEADLINE_MARGIN_SECONDS = 1.5
# Past the tool's deadline, a moment for the tool to report its own deadline error first.
DISPATCH_GRACE_SECONDS = 0.5
AUDIT_TIMEOUT_SECONDS = 3.0
# Threads for dispatches and audit rows at once (anyio's default): calls past it wait for one.
WORKER_THREADS = 40

DENIED_CODES = frozenset({"forbidden", "not_selected", "unauthenticated", "rate_limited", "quota_exceeded"})
INVALID_CODES = frozenset({"invalid_arguments", "unknown_tool", "arguments_too_large"})


@dataclass(frozen=True)
class CallRequest:
    tool: str
    arguments: dict[str, Any]
    caller: Caller
    request_id: str
    # Seconds the gateway's own invocation has left; None when nothing bounds it but the tool timeout.
    remaining_seconds: float | None = None
    # The toolsets and read-only switch the client chose: a call outside them is refused.
    selection: Selection = EVERYTHING
    # The edge admitted the call when it authenticated it (gateway/authentication.py), unless
    # `refusal` says why not; False: admit it here.
    admitted: bool = False
    refusal: ToolErrorBody | None = None


def verdict_for(error_code: str | None) -> AuditOutcome:
    if error_code is None:
        return "ok"
    if error_code in DENIED_CODES:
        return "denied"
    if error_code in INVALID_CODES:
        return "invalid"
    return "error"


# A tools/call result in its wire form: exactly what `mcp_types.CallToolResult(...).model_dump(
# by_alias=True, mode="json", exclude_none=True)` gives (tests/unit/gateway/test_gateway_translation.py
# checks it). The SDK's handlers may return a dict (`mcp.server.context.HandlerResult`), which it
# validates and dumps per protocol version as it would a model: so no model is built first.
WireResult = dict[str, Any]


def text_result(text: str, *, structured: dict[str, Any] | None = None, is_error: bool = False) -> WireResult:
    result: WireResult = {"content": [{"type": "text", "text": text}]}
    if structured is not None:
        result["structuredContent"] = structured
    result["isError"] = is_error
    result["resultType"] = "complete"  # the model's default (2026-07-28); older versions drop it
    return result


def error_result(code: str, message: str, details: dict[str, Any] | None = None) -> WireResult:
    text = f"{code}: {message}"
    if details:
        text += "\n" + json.dumps(details, ensure_ascii=False, default=str)
    return text_result(text, is_error=True)


def outcome_to_result(outcome: ToolOutcome) -> WireResult:
    if outcome.ok:
        result = outcome.result or {}
        if result.get("format") == "markdown" and isinstance(result.get("markdown"), str):
            # Asked for markdown (context, function, class, explain): the model reads the text
            # itself, not a JSON string of it; the structured content still carries everything.
            text = result["markdown"]
        else:
            # Compact separators (fewer tokens in the model's context), from pydantic-core's
            # serializer rather than json.dumps because it is several times faster on big answers.
            text = pydantic_core.to_json(result).decode()
        return text_result(text, structured=result)
    error = outcome.error or ToolErrorBody(code="internal_error", message="the tool failed without saying why")
    return error_result(error.code, error.message, error.details)


def project_of(catalog: Catalog, request: CallRequest) -> str | None:
    spec = catalog.get(request.tool)
    return spec.project_in(request.arguments) if spec is not None else None


def check_call(catalog: Catalog, request: CallRequest) -> ToolErrorBody | None:
    """What the gateway refuses before dispatching. Messages never reveal whether a project exists."""
    spec = catalog.get(request.tool)
    if spec is None:
        known = ", ".join(sorted(catalog.specs))
        return ToolErrorBody(code="unknown_tool", message=f"no tool named '{request.tool}'; tools: {known}")
    if not request.caller.has_scope(spec.scope):
        return ToolErrorBody(code="forbidden", message=f"this token lacks the '{spec.scope}' scope")
    outside = request.selection.refusal(spec)
    if outside is not None:
        return ToolErrorBody(code="not_selected", message=outside)
    project = spec.project_in(request.arguments)
    if project is not None and not request.caller.can_see(project):
        return ToolErrorBody(code="forbidden", message=f"this token has no access to project '{project}'")
    size = len(json.dumps(request.arguments, ensure_ascii=False, default=str).encode())
    if size > MAX_ARGUMENT_BYTES:
        return ToolErrorBody(
            code="arguments_too_large",
            message=f"the arguments are {size} bytes serialized; the limit is {MAX_ARGUMENT_BYTES}",
        )
    return None


def result_size(result: WireResult) -> int:
    if result["isError"]:
        return 0
    return sum(len(block["text"].encode()) for block in result["content"] if block.get("type") == "text")


class RowTurn:
    """Who writes a call's audit row: the worker thread once the tool answered, or the deadline
    path once the thread was abandoned. Whichever takes the turn first writes: exactly one row."""

    def __init__(self) -> None:
        self._turn = threading.Lock()
        self.recorded = threading.Event()
        self.result: WireResult | None = None

    def take(self) -> bool:
        return self._turn.acquire(blocking=False)


class ToolCalls:
    def __init__(
        self,
        catalog: Catalog,
        dispatcher: Dispatcher,
        audit_log: AuditLog,
        meter: Meter,
        *,
        tool_timeout: float,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.catalog = catalog
        self.dispatcher = dispatcher
        self.audit_log = audit_log
        self.meter = meter
        self.tool_timeout = tool_timeout
        # What the meter and the audit row read the time from (tests set the month).
        self.clock = clock
        # Bounds the threads the container's blocking work (dispatch, audit row) runs on at once.
        self.limiter = anyio.CapacityLimiter(WORKER_THREADS)

    def budget(self, remaining_seconds: float | None) -> float:
        if remaining_seconds is None:
            return self.tool_timeout
        return min(self.tool_timeout, remaining_seconds - DEADLINE_MARGIN_SECONDS)

    async def call(self, request: CallRequest) -> WireResult:
        """The call's MCP result, returned only once its audit row is committed."""
        started = time.perf_counter()
        rejection = check_call(self.catalog, request)
        if rejection is not None:
            result = error_result(rejection.code, rejection.message)
            await self._audit(request, rejection.code, started, result)
            return result
        budget = self.budget(request.remaining_seconds)
        if budget <= 0:
            result = error_result("timeout", f"no time was left to run the tool (request id {request.request_id})")
            await self._audit(request, "timeout", started, result)
            return result
        row = RowTurn()
        try:
            # Waiting for a thread counts against the deadline too. At the deadline the thread is
            # abandoned: it runs on, its answer dropped, and the call's row says `timeout`.
            with anyio.fail_after(budget + DISPATCH_GRACE_SECONDS):
                return await anyio.to_thread.run_sync(
                    self._answer_and_record, request, budget, started, row, abandon_on_cancel=True, limiter=self.limiter
                )
        except TimeoutError:
            if not row.take():
                # The tool answered in time and its thread is writing the row: that answer is the call's.
                return await self._answer_of(row, request)
            message = f"the '{request.tool}' tool did not answer within {budget:.1f} s"
            result = error_result("timeout", f"{message} (request id {request.request_id})")
            await self._audit(request, "timeout", started, result)
            return result

    def _answer_and_record(self, request: CallRequest, budget: float, started: float, row: "RowTurn") -> WireResult:
        """Blocking: the answer, then its audit row on the same worker thread (one hop per call),
        unless the call was abandoned at its deadline first (its timeout row is written instead)."""
        result, error_code = self._result(request, budget)
        row.result = result
        try:
            if row.take():
                project = project_of(self.catalog, request)
                self._record(audit_entry(request, project, error_code, started, result, self.clock()))
        finally:
            row.recorded.set()
        return result

    async def _answer_of(self, row: "RowTurn", request: CallRequest) -> WireResult:
        """The answer of a thread that took the row's turn just before the deadline: it is the
        call's, returned once its row is written (or the audit's time is up, as for any call)."""
        recorded = await anyio.to_thread.run_sync(row.recorded.wait, AUDIT_TIMEOUT_SECONDS, abandon_on_cancel=True)
        if not recorded:
            logger.error("audit write timed out for request %s (%s)", request.request_id, request.tool)
        assert row.result is not None  # set before the thread takes the turn
        return row.result

    async def _audit(self, request: CallRequest, error_code: str, started: float, result: WireResult) -> None:
        """The row of a call that never reached a worker thread (refused, or out of time)."""
        entry = audit_entry(request, project_of(self.catalog, request), error_code, started, result, self.clock())
        try:
            with anyio.fail_after(AUDIT_TIMEOUT_SECONDS):
                await anyio.to_thread.run_sync(self._record, entry, abandon_on_cancel=True, limiter=self.limiter)
        except TimeoutError:
            logger.error("audit write timed out for request %s (%s)", request.request_id, request.tool)

    def _result(self, request: CallRequest, budget: float) -> tuple[WireResult, str | None]:
        """Blocking: admit (on the same worker thread: no hop of its own), dispatch, translate."""
        refusal = self._admit(request)
        if refusal is not None:
            return error_result(refusal.code, refusal.message, refusal.details), refusal.code
        try:
            outcome = self._dispatch(request, budget)
        except DispatchError as failure:
            try:
                record_dispatch_failure()
            except Exception:  # noqa: BLE001 - metrics are best effort
                logger.exception("could not count the dispatch failure of request %s", request.request_id)
            return error_result(failure.code, f"{failure.message} (request id {request.request_id})"), failure.code
        if outcome.ok:
            return outcome_to_result(outcome), None
        return outcome_to_result(outcome), outcome.error.code if outcome.error else "internal_error"

    def _admit(self, request: CallRequest) -> ToolErrorBody | None:
        """Blocking: the meter's refusal, or None once the call is admitted (and counted in its quota,
        whatever its outcome turns out to be)."""
        if request.admitted:
            return request.refusal
        return self.admit(request.caller, request.request_id, request.tool, counted=True)

    def admit(self, caller: Caller, request_id: str, what: str, *, counted: bool) -> ToolErrorBody | None:
        """Blocking: the meter's refusal of a request of `caller` (`what`: the tool or MCP method),
        or None when it is admitted. `counted`: a tool call, counted in the quota; else another MCP
        request (gateway/throttle.py)."""
        try:
            admission = self.meter.admit(caller.token_id, self.clock(), counted=counted)
        except Exception as error:  # noqa: BLE001 - a store failure refuses the call; it must not crash it
            from rhumbline.runtime.failures import expected_failure

            logger.exception("admission failed for request %s (%s)", request_id, what)
            failure = expected_failure(error)
            if failure is not None:
                message = f"this token could not be checked: {failure.message} (request id {request_id})"
                return ToolErrorBody(code=failure.code, message=message, details=failure.details or {})
            message = f"the relational store could not check this token's limits; retry shortly (request id {request_id})"
            return ToolErrorBody(code="unavailable", message=message, details={"store": "relational"})
        if admission.admitted:
            return None
        # The meter's module (and with it the relational store's) loads with the first call, not at init.
        from rhumbline.gateway.meter import refusal_of

        return refusal_of(admission)

    def _dispatch(self, request: CallRequest, budget: float) -> ToolOutcome:
        invocation = ToolInvocation(
            tool=request.tool,
            arguments=request.arguments,
            caller=request.caller,
            request_id=request.request_id,
            deadline_ms=int((time.time() + budget) * 1000),
        )
        payload = invocation.model_dump(mode="json")
        try:
            raw = self.dispatcher.invoke(request.tool, payload, budget)
        except DispatchError:
            raise
        except Exception:  # noqa: BLE001 - a dispatcher bug must still end as a clean tool error
            logger.exception("dispatching %s failed (request %s)", request.tool, request.request_id)
            raise DispatchError("dispatch_failed", f"the '{request.tool}' tool could not be reached") from None
        try:
            return ToolOutcome.model_validate(raw)
        except ValidationError:
            logger.error("the %s function returned a malformed outcome (request %s)", request.tool, request.request_id)
            raise DispatchError("dispatch_failed", f"the '{request.tool}' tool answered with a malformed outcome") from None

    def _record(self, entry: CallRecord) -> None:
        """Blocking: the audit row (its writer never raises), then the metric (best effort)."""
        self.audit_log.write(entry)
        try:
            record_tool_call(entry.tool, entry.outcome, entry.latency_ms)
        except Exception:  # noqa: BLE001 - metrics are best effort; the audit row is the record
            logger.exception("could not emit the metrics of request %s", entry.request_id)


def audit_entry(
    request: CallRequest,
    project: str | None,
    error_code: str | None,
    started: float,
    result: WireResult,
    at: datetime,
) -> CallRecord:
    return CallRecord(
        request_id=request.request_id,
        principal=request.caller.principal,
        token_id=request.caller.token_id,
        tool=request.tool,
        project=project,
        arguments=request.arguments,
        outcome=verdict_for(error_code),
        error_code=error_code,
        latency_ms=round((time.perf_counter() - started) * 1000, 3),
        result_bytes=result_size(result),
        at=at,
    )
