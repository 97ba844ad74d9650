"""Two (or more) code trees through the local HTTP endpoint at once, their calls alternated one by one.

    .venv/bin/python bench/paired_latency.py --variant base=/tmp/base/layers/shared \\
        --variant branch=layers/shared [--protocol legacy|modern] [--calls 300] [--only floor,context]

On a machine shared with other work, two runs one after the other see different loads, and a
change of a few percent drowns in the difference (sequential runs of unchanged code moved by up to
2x here). This starts one `rhumbline serve` per variant (its code from that PYTHONPATH), each on
its own copy of one Django home (`django/` ingested once, by the first variant: the variants must
read the same store format), and times the same calls on every server in turn, alternating the
order, so every variant sees the same moments of the machine. Prints per call and variant the wall
p50/p90/p99/max/mean from one keep-alive client each, and the server's CPU per call. The cases are
bench/code_context_latency.py's, plus exploration's get_node with its default page. Not part of
the test suite.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from code_context_latency import CASES, cli, cpu_ms  # noqa: E402
from http_latency import PROTOCOLS, percentile, rpc, serving_client, start_serve  # noqa: E402
from ingest import SDIST, ensure_corpus  # noqa: E402

PAIRED_CASES = [(label, tool, arguments) for label, tool, arguments, *_ in CASES] + [
    ("get_node default page", "get_node", {"node_id": "file:shortcuts.py"}),
]


def variant(text: str) -> tuple[str, str]:
    name, separator, path = text.partition("=")
    if not separator or not name or not path:
        raise argparse.ArgumentTypeError(f"a variant is NAME=PYTHONPATH, not {text!r}")
    if not (Path(path) / "rhumbline").is_dir():
        raise argparse.ArgumentTypeError(f"{path} holds no rhumbline package")
    return name, str(Path(path).resolve())


def environment(home: Path, pythonpath: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("RHUMBLINE_", "AWS_"))}
    env.update(RHUMBLINE_HOME=str(home), POWERTOOLS_METRICS_DISABLED="true", PYTHONPATH=pythonpath)
    return env


def call(http: Any, tool: str, arguments: dict, request_id: int) -> float:
    body = rpc("tools/call", {"name": tool, "arguments": arguments}, request_id)
    started = time.perf_counter()
    response = http.post("/mcp", json=body)
    elapsed = (time.perf_counter() - started) * 1000
    if response.status_code != 200 or b'"isError":true' in response.content:
        raise SystemExit(f"{tool} {arguments} failed: {response.text[:500]}")
    return elapsed


def cases_matching(only: str) -> list:
    """The PAIRED_CASES whose label holds one of `only`'s comma-separated parts (all when empty)."""
    wanted = [part.strip() for part in only.split(",") if part.strip()]
    cases = [case for case in PAIRED_CASES if not wanted or any(part in case[0] for part in wanted)]
    if not cases:
        raise SystemExit(f"no case matches --only {only!r}; cases: {', '.join(case[0] for case in PAIRED_CASES)}")
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", type=variant, action="append", required=True, help="NAME=PYTHONPATH (twice or more)")
    parser.add_argument("--calls", type=int, default=300, help="timed calls per case and variant")
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--protocol", choices=tuple(PROTOCOLS), default="legacy")
    parser.add_argument("--only", default="", help="comma-separated parts of case labels (default: every case)")
    args = parser.parse_args()
    if len(args.variant) < 2 or len({name for name, _ in args.variant}) != len(args.variant):
        raise SystemExit("give two or more --variant NAME=PYTHONPATH with distinct names")
    cases = cases_matching(args.only)
    ensure_corpus()
    project = "bench/django"
    with tempfile.TemporaryDirectory(prefix="rhumbline-paired-") as directory, ExitStack() as stack:
        root = Path(directory)
        first = environment(root / "home", args.variant[0][1])
        cli(first, "ingest", str(SDIST / "django"), "--project", project, "--json")
        token = cli(first, "token", "create", "--principal", "bench", "--projects", project, "--scopes", "read").split()[0]
        servers = []
        for name, pythonpath in args.variant:
            home = root / f"home-{name}"
            shutil.copytree(root / "home", home)
            port, server = start_serve(environment(home, pythonpath))
            stack.callback(lambda server=server: (server.send_signal(signal.SIGINT), server.wait(30)))
            http = stack.enter_context(serving_client(port, token, protocol=args.protocol))
            servers.append((name, server, http))
        print(
            f"{PROTOCOLS[args.protocol]}, {args.calls} calls per case and variant, alternated; ms; "
            f"cpu: the server's CPU per call; {os.cpu_count()} CPUs"
        )
        print(f"{'call':<30}{'variant':<10}{'p50':>8}{'p90':>8}{'p99':>8}{'max':>8}{'mean':>8}{'cpu':>7}  load")
        for label, tool, arguments in cases:
            arguments = {**arguments, "project": project}
            for _, _, http in servers:
                for i in range(args.warmup):
                    call(http, tool, arguments, i)
            timings: dict[str, list[float]] = {name: [] for name, _, _ in servers}
            cpu_before = {name: cpu_ms(server.pid) for name, server, _ in servers}
            load_before = os.getloadavg()[0]
            for i in range(args.calls):
                for name, _, http in servers if i % 2 == 0 else servers[::-1]:
                    timings[name].append(call(http, tool, arguments, i))
            load = f"{load_before:.1f}-{os.getloadavg()[0]:.1f}"
            for name, server, _ in servers:
                values = timings[name]
                cpu = (cpu_ms(server.pid) - cpu_before[name]) / args.calls
                print(
                    f"{label:<30}{name:<10}{percentile(values, 0.5):>8.2f}{percentile(values, 0.9):>8.2f}"
                    f"{percentile(values, 0.99):>8.2f}{max(values):>8.2f}{statistics.fmean(values):>8.2f}{cpu:>7.2f}  {load}"
                )


if __name__ == "__main__":
    main()
