"""The code-context bench's calls through the tool handler alone, in process, against a home that
already has Django's `django/` ingested: what the tools themselves cost, without the endpoint.

    .venv/bin/python bench/tool_time.py --home DIR [--project bench/django] [--calls 300] [--only context,class]
        [--neo4j [bolt://127.0.0.1:7687]]

With --neo4j the home's graph is read from Neo4j (password from RHUMBLINE_TEST_NEO4J_PASSWORD, default
rhumbline-test; ingest the project into it first with the same settings), and the `query` cases run
too: the bench's count by kind and `RETURN 1` (the query tool's fixed cost).

The cases are bench/code_context_latency.py's. Prints per case the p50 and the minimum wall time
and the mean process CPU per call, in ms, and the load average (the minimum and the CPU are the
steadier figures on a shared machine: compare trees back to back). Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from code_context_latency import CASES, QUERY_CASE  # noqa: E402

# The query tool's own cost: scope, text check, key read, transaction, serializer; no graph work.
QUERY_FIXED_CASE = ("query RETURN 1", "query", {"cypher": "RETURN 1 AS c"}, None, None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", required=True)
    parser.add_argument("--project", default="bench/django")
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--only", default="", help="comma-separated parts of case labels")
    parser.add_argument("--neo4j", nargs="?", const=os.environ.get("RHUMBLINE_TEST_NEO4J_URI", "bolt://127.0.0.1:7687"))
    args = parser.parse_args()
    os.environ.update(RHUMBLINE_HOME=args.home, POWERTOOLS_METRICS_DISABLED="true")
    cases = list(CASES)
    if args.neo4j:
        os.environ.update(
            RHUMBLINE_GRAPH_BACKEND="neo4j",
            RHUMBLINE_NEO4J_URI=args.neo4j,
            RHUMBLINE_NEO4J_PASSWORD=os.environ.get("RHUMBLINE_TEST_NEO4J_PASSWORD", "rhumbline-test"),
        )
        cases += [QUERY_FIXED_CASE, QUERY_CASE]
    from rhumbline.contract import INVOCATION_CONTRACT
    from rhumbline.runtime.handler import handle

    caller = {"principal": "bench", "token_id": "tk_bench", "projects": [args.project], "scopes": ["read", "cypher"]}
    wanted = [part for part in args.only.split(",") if part]
    print(f"{'call':<32}{'p50':>8}{'min':>8}{'cpu':>8}{'bytes':>8}   (ms per call, tool handler in process)")
    for label, tool, arguments, *_ in cases:
        if wanted and not any(part in label for part in wanted):
            continue
        event = {
            "contract": INVOCATION_CONTRACT, "tool": tool, "arguments": {**arguments, "project": args.project},
            "caller": caller, "request_id": "bench", "deadline_ms": int((time.time() + 3600) * 1000),
        }  # fmt: skip
        for _ in range(args.warmup):
            handle(tool, event)
        laps = []
        cpu_before = time.process_time()
        for _ in range(args.calls):
            started = time.perf_counter()
            outcome = handle(tool, event)
            laps.append((time.perf_counter() - started) * 1000)
        cpu = (time.process_time() - cpu_before) * 1000 / args.calls
        if not outcome["ok"]:
            raise SystemExit(f"{label} failed: {outcome['error']}")
        size = len(json.dumps(outcome["result"]).encode())
        print(f"{label:<32}{statistics.median(laps):>8.2f}{min(laps):>8.2f}{cpu:>8.2f}{size:>8}")
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
