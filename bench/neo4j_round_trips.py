"""Round trips to Neo4j per warm tool call: the Bolt socket's writes (the driver writes, then waits).

    .venv/bin/python bench/neo4j_round_trips.py --home DIR [--project bench/django] [--neo4j URI] [-v]

Needs a home with Django's `django/` ingested into Neo4j with the same settings (as for
bench/tool_time.py --neo4j). Runs each code-context bench case and the `query` cases through the
tool handler in process, three times to warm up, then once counted: socket writes and the Bolt
messages the client sent (-v prints every message the driver logs). Not part of the test suite.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from code_context_latency import CASES, QUERY_CASE  # noqa: E402
from tool_time import QUERY_FIXED_CASE  # noqa: E402


class _Messages(logging.Handler):
    """The driver's debug lines for Bolt messages: ` C: RUN ...` (client), ` S: SUCCESS ...`."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        line = record.getMessage()
        for side in (" C: ", " S: "):
            if side in line:
                self.lines.append(line[line.find(side) :].strip()[:100])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", required=True)
    parser.add_argument("--project", default="bench/django")
    parser.add_argument("--neo4j", default=os.environ.get("RHUMBLINE_TEST_NEO4J_URI", "bolt://127.0.0.1:7687"))
    parser.add_argument("-v", action="store_true", help="print every Bolt message of the counted call")
    args = parser.parse_args()
    os.environ.update(
        RHUMBLINE_HOME=args.home,
        POWERTOOLS_METRICS_DISABLED="true",
        RHUMBLINE_GRAPH_BACKEND="neo4j",
        RHUMBLINE_NEO4J_URI=args.neo4j,
        RHUMBLINE_NEO4J_PASSWORD=os.environ.get("RHUMBLINE_TEST_NEO4J_PASSWORD", "rhumbline-test"),
    )
    # The driver's socket class is private: a bench may lean on it, the code does not.
    from neo4j._async_compat.network._bolt_socket import BoltSocketBase

    from rhumbline.contract import INVOCATION_CONTRACT
    from rhumbline.runtime.handler import handle

    writes = [0]
    send = BoltSocketBase.sendall

    def counted(self, data):  # type: ignore[no-untyped-def]
        writes[0] += 1
        return send(self, data)

    BoltSocketBase.sendall = counted  # type: ignore[method-assign]
    messages = _Messages()
    driver_log = logging.getLogger("neo4j")
    driver_log.setLevel(logging.DEBUG)
    driver_log.addHandler(messages)
    caller = {"principal": "bench", "token_id": "tk_bench", "projects": [args.project], "scopes": ["read", "cypher"]}
    print(f"{'call':<32}{'trips':>6}{'sent':>6}   (socket writes; Bolt messages sent)")
    for label, tool, arguments, *_ in [*CASES, QUERY_FIXED_CASE, QUERY_CASE]:
        event = {
            "contract": INVOCATION_CONTRACT, "tool": tool, "arguments": {**arguments, "project": args.project},
            "caller": caller, "request_id": "bench", "deadline_ms": int((time.time() + 3600) * 1000),
        }  # fmt: skip
        for _ in range(3):
            handle(tool, event)
        writes[0] = 0
        messages.lines.clear()
        outcome = handle(tool, event)
        if not outcome["ok"]:
            raise SystemExit(f"{label} failed: {outcome['error']}")
        sent = sum(line.startswith("C:") for line in messages.lines)
        print(f"{label:<32}{writes[0]:>6}{sent:>6}")
        if args.v:
            for line in messages.lines:
                print("    " + line)


if __name__ == "__main__":
    main()
