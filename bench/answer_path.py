"""What one answer costs on its way out, step by step, in process: the tool handler, then every
copy, validation and serialization of its result up to the JSON-RPC body the SDK sends.

    .venv/bin/python bench/answer_path.py --home DIR [--project bench/django] \
        [--tool context] [--arguments '{"file": "db/models/query.py"}'] [--calls 300]

DIR is a RHUMBLINE_HOME with the project ingested (e.g. `rhumbline ingest
bench/.corpus/Django-5.1/django --project bench/django`). Each step runs on the previous step's
output, the same calls the gateway and the mcp SDK make (gateway/calls.py, mcp's
`ServerRunner._serialize` and the streamable HTTP transport's JSON-RPC dump); the HTTP layers
after it (Mangum, LocalApi, uvicorn) are not included. Prints the minimum and the median per step
in ms (the minimum is the steadier figure on a shared machine) and the load average. Not part of
the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable
from typing import Any


def timed(step: Callable[[], Any], calls: int) -> tuple[float, float]:
    for _ in range(min(20, calls)):
        step()
    laps = []
    for _ in range(calls):
        started = time.perf_counter()
        step()
        laps.append((time.perf_counter() - started) * 1000)
    return min(laps), statistics.median(laps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", required=True)
    parser.add_argument("--project", default="bench/django")
    parser.add_argument("--tool", default="context")
    parser.add_argument("--arguments", type=json.loads, default={"file": "db/models/query.py"})
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    os.environ.update(RHUMBLINE_HOME=args.home, POWERTOOLS_METRICS_DISABLED="true")

    import mcp_types as types
    from mcp_types import methods

    from rhumbline.contract import INVOCATION_CONTRACT, ToolOutcome
    from rhumbline.gateway.calls import outcome_to_result
    from rhumbline.runtime.handler import handle

    caller = {"principal": "bench", "token_id": "tk_bench", "projects": [args.project], "scopes": ["read"]}
    event = {
        "contract": INVOCATION_CONTRACT, "tool": args.tool, "arguments": {**args.arguments, "project": args.project},
        "caller": caller, "request_id": "bench", "deadline_ms": int((time.time() + 3600) * 1000),
    }  # fmt: skip
    raw = handle(args.tool, event)
    if not raw["ok"]:
        raise SystemExit(f"{args.tool} failed: {raw['error']}")
    outcome = ToolOutcome.model_validate(raw)
    result = outcome_to_result(outcome)  # the CallToolResult's wire form, a dict
    dumped = dict(result)  # the SDK's _dump_result copies a handler's dict (it dumps a model)
    surfaced = methods.serialize_server_result("tools/call", "2025-06-18", dumped)
    message = types.JSONRPCResponse(jsonrpc="2.0", id=1, result=surfaced)
    body = message.model_dump_json(by_alias=True, exclude_unset=True)
    steps: list[tuple[str, Callable[[], Any]]] = [
        ("tool handler (validate, run, its answer as JSON data)", lambda: handle(args.tool, event)),
        ("gateway: ToolOutcome.model_validate (dispatch result)", lambda: ToolOutcome.model_validate(raw)),
        ("gateway: outcome -> CallToolResult wire dict (the text block)", lambda: outcome_to_result(outcome)),
        ("SDK: the handler's result copied (_dump_result)", lambda: dict(result)),
        ("SDK: per-version result check (validate + dump)", lambda: methods.serialize_server_result("tools/call", "2025-06-18", dumped)),
        ("SDK: JSON-RPC response model_dump_json", lambda: message.model_dump_json(by_alias=True, exclude_unset=True)),
    ]  # fmt: skip
    answer = len(json.dumps(raw["result"], separators=(",", ":")).encode())
    print(f"{args.tool} {json.dumps(args.arguments)}: answer {answer} bytes, JSON-RPC body {len(body)} bytes")
    print(f"{'step':<58}{'min ms':>8}{'p50 ms':>8}")
    for label, step in steps:
        low, middle = timed(step, args.calls)
        print(f"{label:<58}{low:>8.3f}{middle:>8.3f}")
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
