"""`rhumbline invoke TOOL --event FILE`: one function's handler on one event, like `sam local invoke`."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rhumbline.local.functions import FunctionRunner
from rhumbline.local.lambda_api import is_loopback
from rhumbline.local.template import Template

# The host the local API is reached at: `rhumbline serve` listens on loopback only by default.
LOCAL_API_HOST = "localhost"
# The bearer token the sample events under events/gateway/ carry in place of a real one.
SAMPLE_TOKEN = "rhl_example_not_a_real_token"


def read_event(source: str) -> Any:
    text = sys.stdin.read() if source == "-" else Path(source).read_text()
    return json.loads(text)


def as_local_api_event(event: Any) -> tuple[Any, str | None]:
    """(the event as the local API would deliver it, the host it replaced or None).

    An HTTP API event names the API's domain as its Host (the samples name an execute-api one). On
    this machine the gateway guards against DNS rebinding and answers any Host but a loopback one
    with 421, so the request is given the Host the local API itself passes on, as `rhumbline serve`
    would deliver it."""
    if not isinstance(event, dict) or event.get("version") != "2.0" or not isinstance(event.get("headers"), dict):
        return event, None
    headers = {name: value for name, value in event["headers"].items() if name.lower() != "host"}
    host = next((str(value) for name, value in event["headers"].items() if name.lower() == "host"), "")
    if is_loopback(host):
        return event, None
    headers["host"] = LOCAL_API_HOST
    local = {**event, "headers": headers}
    if isinstance(event.get("requestContext"), dict):
        local["requestContext"] = {**event["requestContext"], "domainName": LOCAL_API_HOST, "domainPrefix": LOCAL_API_HOST}
    return local, host or None


def with_token(event: Any, token: Callable[[], str]) -> tuple[Any, bool]:
    """(the event with `token()` for the sample's placeholder bearer token, whether it had one)."""
    if not isinstance(event, dict) or not isinstance(event.get("headers"), dict):
        return event, False
    headers = dict(event["headers"])
    for name, value in headers.items():
        if name.lower() == "authorization" and value == f"Bearer {SAMPLE_TOKEN}":
            headers[name] = f"Bearer {token()}"
            return {**event, "headers": headers}, True
    return event, False


def invoke(
    template: Template, target: str, event: Any, *, dev_token: Callable[[], str] | None = None
) -> tuple[Any, bool]:
    """(what Lambda would return, whether the function failed). `target` is a tool or a logical id;
    `dev_token` gives the local development token for a sample event's placeholder token."""
    function = template.functions.get(target) or template.function_for_tool(target)
    if any(route.function == function.logical_id for route in template.routes):
        event, replaced = as_local_api_event(event)
        if replaced is not None:
            print(f"invoke: Host {replaced} delivered as {LOCAL_API_HOST}, as the local API would", file=sys.stderr)
        if dev_token is not None:
            event, substituted = with_token(event, dev_token)
            if substituted:
                print(f"invoke: the sample's {SAMPLE_TOKEN} sent as the local development token", file=sys.stderr)
    invocation = FunctionRunner(template).invoke(function.logical_id, event)
    if invocation.error is not None:
        return invocation.error, True
    return invocation.result, False
