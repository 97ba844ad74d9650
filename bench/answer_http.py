"""What carrying a big answer costs over HTTP, apart from the tool that builds it.

    .venv/bin/python bench/answer_http.py --home DIR [--project bench/django] [--file db/models/query.py]
        [--calls 50] [--rounds 16] [--protocol legacy|modern]

DIR is a RHUMBLINE_HOME with the project ingested (see answer_path.py). Starts `rhumbline serve`
(this tree, in-process dispatch) with the `context` tool wrapped: for `file` = "TINY:<path>" it runs
the real tool on <path>, then answers with the context of the project's smallest file instead
(Django: 0.5 KB). So the two cases alternated here run the same tool, the same SQL and the same
answer building; only the answer that travels differs (query.py: 28.6 KB, a 60 KB JSON-RPC body). The
difference in the server's CPU per call is the answer's own way from the tool's return to the
socket: outcome translation, the SDK's dumps, Mangum, LocalApi, uvicorn, and freeing it all.
Short blocks, alternated, so both cases see the same load. Prints server CPU per call and wall p50
over the blocks, the median of the paired differences with its quartiles, and the load. Not part of
the test suite.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from code_context_latency import call  # noqa: E402
from http_latency import PROTOCOLS, free_port, serving_client  # noqa: E402

RHUMBLINE = Path(sys.executable).parent / "rhumbline"
REPO = Path(__file__).resolve().parent.parent
TINY = "TINY:"


def cpu_ms(pid: int) -> float:
    """CPU time the server's live threads have run, in ms, at scheduler (ns) precision: a block of
    50 calls is too short for /proc/PID/stat's 10 ms ticks. (Threads that ended between two reads
    drop out; the server's threads live as long as it does.)"""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total / 1e6


def serve_swapped(port: int, project: str) -> None:
    """`rhumbline serve` with context's answer swapped for a small one when asked (see above)."""
    from rhumbline.contract import Caller
    from rhumbline.local.server import serve
    from rhumbline.local.template import load_template
    from rhumbline.runtime.context import ToolContext
    from rhumbline.stores.graph.model import Node
    from rhumbline.tools import context as tool

    real = tool.SPEC.run
    caller = Caller(principal="bench", token_id="tk_bench", projects=(project,), scopes=("read",))
    context = ToolContext(caller, "bench", time.time() + 60)
    files: list[Node] = context.graph.nodes_of_kind(project, "File", limit=200)[0]
    smallest = min(files, key=lambda n: (n.end_line or 0, n.id))
    small = real(tool.ContextInput(file=smallest.file or smallest.qualified_name, project=project), context)

    def run(arguments: Any, context: Any) -> Any:
        if arguments.file.startswith(TINY):
            real(arguments.model_copy(update={"file": arguments.file[len(TINY) :]}), context)
            return small
        return real(arguments, context)

    object.__setattr__(tool.SPEC, "run", run)
    serve(load_template(REPO / "template.yaml"), port=port, log_level="warning")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", required=True)
    parser.add_argument("--project", default="bench/django")
    parser.add_argument("--file", default="db/models/query.py")
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=16)
    parser.add_argument("--protocol", choices=tuple(PROTOCOLS), default="legacy")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)  # the server side of this bench
    args = parser.parse_args()
    env = {key: value for key, value in os.environ.items() if not key.startswith(("RHUMBLINE_", "AWS_"))}
    env.update(RHUMBLINE_HOME=args.home, POWERTOOLS_METRICS_DISABLED="true", POWERTOOLS_LOG_LEVEL="WARNING")
    if args.serve:
        os.environ.update(env)
        serve_swapped(args.serve, args.project)
        return
    made = subprocess.run(
        [str(RHUMBLINE), "token", "create", "--principal", "bench", "--projects", args.project, "--scopes", "read"],
        env=env, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    token, port = made.stdout.strip(), free_port()
    server = subprocess.Popen(
        [sys.executable, __file__, "--home", args.home, "--project", args.project, "--serve", str(port)], env=env
    )
    cases = {"answer sent": args.file, "answer swapped": TINY + args.file}
    found: dict[str, list[tuple[float, float]]] = {label: [] for label in cases}
    try:
        with serving_client(port, token, protocol=args.protocol) as http:
            for round_ in range(args.rounds):
                for label, file in cases.items() if round_ % 2 == 0 else reversed(cases.items()):
                    arguments = {"file": file, "project": args.project}
                    for i in range(20):
                        call(http, "context", arguments, i)
                    before = cpu_ms(server.pid)
                    timings = [call(http, "context", arguments, i) for i in range(args.calls)]
                    found[label].append(((cpu_ms(server.pid) - before) / args.calls, statistics.median(timings)))
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(20)
    print(f"context {args.file}, {PROTOCOLS[args.protocol]}; {args.rounds} alternated blocks of {args.calls} calls")
    for label, blocks in found.items():
        cpu = sorted(c for c, _ in blocks)
        wall = sorted(w for _, w in blocks)
        print(f"{label:<16} server cpu ms/call median {statistics.median(cpu):.2f} (blocks {cpu[0]:.2f}-{cpu[-1]:.2f}),"
              f" wall p50 median {statistics.median(wall):.2f} (blocks {wall[0]:.2f}-{wall[-1]:.2f})")  # fmt: skip
    # Blocks are short and alternated so that both cases see the same load; the median of the
    # paired differences is the figure, their quartiles how far to trust it.
    deltas = sorted(sent[0] - swapped[0] for sent, swapped in zip(found["answer sent"], found["answer swapped"]))
    quartiles = statistics.quantiles(deltas, n=4) if len(deltas) > 1 else [deltas[0]] * 3
    print(f"the answer's own cost: {quartiles[1]:.2f} ms server CPU per call (median of {len(deltas)} paired blocks; "
          f"quartiles {quartiles[0]:.2f}-{quartiles[2]:.2f}); load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")  # fmt: skip


if __name__ == "__main__":
    main()
