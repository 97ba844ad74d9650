"""Powertools logging, metrics and tracing around the Lambda entry points.

Every entry point (gateway, each tool) is wrapped once, at import:
- Logs: the package's stdlib loggers (`rhumbline.*`) all propagate to the `rhumbline` logger, which
  gets Powertools' structured JSON handler, with the Lambda request id and function name appended.
- Metrics: CloudWatch EMF, one blob per tool call with `tool` and `outcome` dimensions (what a team
  pays for), flushed as the call ends; one more for a tool invocation that produced no outcome
  (`DispatchFailures`, no tool dimension: the series template.yaml's alarm watches). `rhumbline serve` disables them (POWERTOOLS_METRICS_DISABLED)
  so a terminal is not flooded with EMF JSON.
- Tracing: only the gateway loads Powertools' Tracer (the X-Ray SDK is a large part of a cold start);
  tool functions rely on the Lambda service's own active-tracing segments.

The wrapper is explicit rather than Powertools' decorators because the same handlers also run
outside Lambda (in-process, tests) where there may be no Lambda context object at all.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
import functools
from functools import lru_cache
from typing import Any

Handler = Callable[[Any, Any], Any]

NAMESPACE_DEFAULT = "Rhumbline"


def _service() -> str:
    return os.environ.get("POWERTOOLS_SERVICE_NAME", "rhumbline")


@lru_cache(maxsize=1)
def structured_logger():
    """The Powertools logger whose handler every `rhumbline.*` logger shares."""
    from aws_lambda_powertools import Logger

    powertools_logger = Logger(service=_service())
    package_logger = logging.getLogger("rhumbline")
    package_logger.handlers = list(powertools_logger.handlers)
    package_logger.setLevel(powertools_logger.log_level)
    # In Lambda the runtime's root logger has a handler too: stop there, or every line prints twice.
    # Elsewhere keep propagating, so whatever the host configured (pytest, uvicorn) still sees them.
    package_logger.propagate = not os.environ.get("LAMBDA_TASK_ROOT")
    return powertools_logger


def record_tool_call(tool: str, outcome: str, latency_ms: float) -> None:
    """One EMF blob per call: a count and the latency, by tool and outcome."""
    from aws_lambda_powertools.metrics import EphemeralMetrics, MetricUnit
    from aws_lambda_powertools.metrics.functions import is_metrics_disabled

    if is_metrics_disabled():
        # Powertools' own rule (flush would print nothing): skip building a provider per call.
        return
    # Ephemeral: no state shared between calls (the local server serves them on several threads);
    # flush_metrics honours POWERTOOLS_METRICS_DISABLED.
    metrics = EphemeralMetrics(namespace=os.environ.get("POWERTOOLS_METRICS_NAMESPACE", NAMESPACE_DEFAULT))
    metrics.add_dimension(name="tool", value=tool)
    metrics.add_dimension(name="outcome", value=outcome)
    metrics.add_metric(name="ToolCalls", unit=MetricUnit.Count, value=1)
    metrics.add_metric(name="ToolLatency", unit=MetricUnit.Milliseconds, value=latency_ms)
    metrics.flush_metrics()


def record_dispatch_failure() -> None:
    """One EMF blob per tool invocation that produced no outcome (throttled, crashed, timed out,
    unreachable), in one series for every tool."""
    from aws_lambda_powertools.metrics import EphemeralMetrics, MetricUnit
    from aws_lambda_powertools.metrics.functions import is_metrics_disabled

    if is_metrics_disabled():
        return
    metrics = EphemeralMetrics(namespace=os.environ.get("POWERTOOLS_METRICS_NAMESPACE", NAMESPACE_DEFAULT))
    metrics.add_metric(name="DispatchFailures", unit=MetricUnit.Count, value=1)
    metrics.flush_metrics()


def _tracing_possible() -> bool:
    # Powertools' Tracer disables itself outside Lambda, but importing the X-Ray SDK is slow: skip
    # it where it could never trace (local server, tests, CLI).
    disabled = os.environ.get("POWERTOOLS_TRACE_DISABLED", "false").lower() in ("1", "true", "yes")
    return bool(os.environ.get("LAMBDA_TASK_ROOT")) and not os.environ.get("AWS_SAM_LOCAL") and not disabled


def lambda_entry(handler: Handler, *, function: str, trace: bool = False) -> Handler:
    """Wrap a Lambda handler with request-scoped structured logging (and tracing when asked)."""
    logger = structured_logger()
    if trace and _tracing_possible():
        from aws_lambda_powertools import Tracer

        handler = Tracer(service=_service()).capture_lambda_handler(handler, capture_response=False)

    def observed(event: Any, context: Any) -> Any:
        request_id = getattr(context, "aws_request_id", None)
        logger.append_keys(function=function, request_id=request_id)
        try:
            return handler(event, context)
        finally:
            logger.remove_keys(["function", "request_id"])

    observed.__name__ = getattr(handler, "__name__", function)
    functools.update_wrapper(observed, handler, assigned=(), updated=())  # only __wrapped__
    if os.environ.get("LAMBDA_TASK_ROOT"):
        # Every function's init ends by wrapping its handler (functions/*/app.py): what is alive
        # now lives as long as the container, so the collector need not walk it on every full
        # collection. Locally `rhumbline serve` does this once it has loaded its functions.
        from rhumbline.heap import freeze_after_init

        freeze_after_init()
    return observed
