"""Both protocol generations on one `rhumbline serve`, their calls alternated one by one.

    .venv/bin/python bench/protocol_latency.py [--calls 300] [--only floor,context] [--pythonpath DIR]

Is the 2026-07-28 path (no handshake, `params._meta`, the SDK's single-exchange entry) slower or
faster than the 2025-06-18 one (the SDK's stateless streamable transport)? Two benchmark runs one
after the other cannot tell on a shared machine (its speed moves by ~1.5x within minutes), so this
serves Django's `django/` (embedded SQLite) from one server and sends each call from a 2025-06-18
client and a 2026-07-28 client in turn, alternating which goes first, so both see the same moments
of the machine. Prints per case and protocol the wall p50/p90/p99/max from two lean keep-alive
clients, the answer's size, and the server's CPU per call (sampled around each call: the two
protocols' calls interleave, so whole-run CPU cannot be split between them). The cases are
bench/paired_latency.py's. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from code_context_latency import cli, cpu_ms  # noqa: E402
from http_latency import PROTOCOLS, percentile, rpc, serving_client, start_serve  # noqa: E402
from ingest import SDIST, ensure_corpus  # noqa: E402
from paired_latency import cases_matching, environment  # noqa: E402



def timed_call(http: Any, tool: str, arguments: dict, request_id: int, server_pid: int) -> tuple[float, float, int]:
    """Wall ms, server CPU ms (clock-tick resolution: meaningful summed over many calls), answer bytes."""
    body = rpc("tools/call", {"name": tool, "arguments": arguments}, request_id)
    cpu_before = cpu_ms(server_pid)
    started = time.perf_counter()
    response = http.post("/mcp", json=body)
    elapsed = (time.perf_counter() - started) * 1000
    cpu = cpu_ms(server_pid) - cpu_before
    if response.status_code != 200 or b'"isError":true' in response.content:
        raise SystemExit(f"{tool} {arguments} failed: {response.text[:500]}")
    return elapsed, cpu, len(response.content)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300, help="timed calls per case and protocol")
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--only", default="", help="comma-separated parts of case labels (default: every case)")
    parser.add_argument("--pythonpath", default="", help="the code tree to serve (default: this process's)")
    args = parser.parse_args()
    cases = cases_matching(args.only)
    ensure_corpus()
    project = "bench/django"
    pythonpath = str(Path(args.pythonpath).resolve()) if args.pythonpath else os.environ.get("PYTHONPATH", "")
    with tempfile.TemporaryDirectory(prefix="rhumbline-protocols-") as directory:
        env = environment(Path(directory) / "home", pythonpath)
        cli(env, "ingest", str(SDIST / "django"), "--project", project, "--json")
        token = cli(env, "token", "create", "--principal", "bench", "--projects", project, "--scopes", "read").split()[0]
        port, server = start_serve(env)
        try:
            with serving_client(port, token, protocol="legacy") as legacy, serving_client(port, token, protocol="modern") as modern:
                clients = [(PROTOCOLS["legacy"], legacy), (PROTOCOLS["modern"], modern)]
                print(f"{args.calls} calls per case and protocol, alternated on one server; ms; {os.cpu_count()} CPUs")
                print(f"{'call':<30}{'protocol':<12}{'p50':>8}{'p90':>8}{'p99':>8}{'max':>8}{'cpu':>7}{'bytes':>8}  load")
                for label, tool, arguments in cases:
                    arguments = {**arguments, "project": project}
                    for _, http in clients:
                        for i in range(args.warmup):
                            timed_call(http, tool, arguments, i, server.pid)
                    walls: dict[str, list[float]] = {name: [] for name, _ in clients}
                    cpus = {name: 0.0 for name, _ in clients}
                    sizes = {name: 0 for name, _ in clients}
                    load_before = os.getloadavg()[0]
                    for i in range(args.calls):
                        for name, http in clients if i % 2 == 0 else clients[::-1]:
                            wall, cpu, sizes[name] = timed_call(http, tool, arguments, i, server.pid)
                            walls[name].append(wall)
                            cpus[name] += cpu
                    load = f"{load_before:.1f}-{os.getloadavg()[0]:.1f}"
                    for name, _ in clients:
                        values = walls[name]
                        print(
                            f"{label:<30}{name:<12}{percentile(values, 0.5):>8.2f}{percentile(values, 0.9):>8.2f}"
                            f"{percentile(values, 0.99):>8.2f}{max(values):>8.2f}{cpus[name] / args.calls:>7.2f}"
                            f"{sizes[name]:>8}  {load}"
                        )
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(30)


if __name__ == "__main__":
    main()
