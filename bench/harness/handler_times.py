"""Child process: the given calls through the tool handler alone, in process (no endpoint), with
the checkout on PYTHONPATH and RHUMBLINE_HOME set by the caller. Prints JSON {label: {p50, min,
cpu, bytes}}. Run by bench/calls.py --in-process; works on any revision with rhumbline.contract
and rhumbline.runtime.handler.handle."""

from __future__ import annotations

import json
import statistics
import sys
import time


def main() -> None:
    request = json.loads(sys.stdin.read())
    from rhumbline.contract import INVOCATION_CONTRACT
    from rhumbline.runtime.handler import handle

    caller = {"principal": "bench", "token_id": "tk_bench", "projects": [request["project"]],
              "scopes": ["read", "cypher"]}  # fmt: skip
    found = {}
    for label, tool, arguments in request["cases"]:
        event = {
            "contract": INVOCATION_CONTRACT, "tool": tool, "arguments": arguments, "caller": caller,
            "request_id": "bench", "deadline_ms": int((time.time() + 3600) * 1000),
        }  # fmt: skip
        for _ in range(request["warmup"]):
            outcome = handle(tool, event)
        laps = []
        cpu = time.process_time()
        for _ in range(request["calls"]):
            started = time.perf_counter()
            outcome = handle(tool, event)
            laps.append((time.perf_counter() - started) * 1000)
        if not outcome["ok"]:
            raise SystemExit(f"{label} failed in process: {outcome['error']}")
        found[label] = {
            "p50": statistics.median(laps), "min": min(laps),
            "cpu": (time.process_time() - cpu) * 1000 / request["calls"],
            "bytes": len(json.dumps(outcome["result"]).encode()),
        }  # fmt: skip
    print(json.dumps(found))


if __name__ == "__main__":
    main()
