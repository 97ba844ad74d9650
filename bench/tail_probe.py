"""Where a warm endpoint's slow calls come from: the code, the collector, or the machine.

    .venv/bin/python bench/tail_probe.py --home DIR [--project bench/django] [--calls 2000]
        [--tool get_node --arguments '{"node_id": "file:shortcuts.py", "edge_limit": 1}']

Drives what `rhumbline serve --dispatch inprocess` serves (LocalApi, heap frozen after start-up as
serve does) in this process, without a socket (like bench/profile_call.py), and records per call:
wall time, process CPU, each thread's CPU (Linux: /proc/self/task/*/schedstat) and the cyclic
collections that ran during it (`gc.callbacks`). Then it runs a control on the same machine: the
same number of identical pure-Python work units, each sized to the calls' median CPU, timed with
`time.thread_time()`. Identical work has no reason to vary, so the control's CPU spread is the
machine's own (other processes, a shared host); a call whose CPU spread exceeds the control's has
a cause in the process. Prints both distributions, the collections by generation, and the slowest
1% of calls with their collections and per-thread CPU. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import profile_call  # noqa: E402
from http_latency import percentile  # noqa: E402


class Collections:
    """The cyclic collector's runs, from `gc.callbacks`: (start, end, generation, thread CPU ms)."""

    def __init__(self) -> None:
        self.runs: list[tuple[float, float, int, float]] = []
        self._started: dict[int, tuple[float, float]] = {}

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        ident = threading.get_ident()
        if phase == "start":
            self._started[ident] = (time.perf_counter(), time.thread_time())
            return
        began = self._started.pop(ident, None)
        if began is not None:
            cpu = (time.thread_time() - began[1]) * 1000
            self.runs.append((began[0], time.perf_counter(), info["generation"], cpu))

    def during(self, start: float, end: float) -> list[str]:
        return [f"gen{gen} {(e - s) * 1000:.2f} ms" for s, e, gen, _ in self.runs if s >= start and e <= end]


def thread_role(native_id: int) -> str:
    for thread in threading.enumerate():
        if thread.native_id == native_id:
            # Pool threads are numbered (rhumbline-read_0): one role per pool.
            return thread.name.rsplit("_", 1)[0] if thread.name.rsplit("_", 1)[-1].isdigit() else thread.name
    return f"thread {native_id}"


def thread_cpu_ns(roles: dict[int, str]) -> dict[str, int]:
    """CPU time so far of every thread of this process, summed by role (ns)."""
    totals: Counter[str] = Counter()
    for entry in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{entry}/schedstat") as stat:
                ran = int(stat.read().split()[0])
        except OSError:
            continue  # the thread ended
        native_id = int(entry)
        if native_id not in roles:
            roles[native_id] = thread_role(native_id)
        totals[roles[native_id]] += ran
    return totals


async def drive(args: argparse.Namespace, token: str, arguments: dict[str, Any]) -> tuple[list[dict[str, Any]], Collections]:
    api = profile_call.build_api()
    api.freeze_heap = True  # as `rhumbline serve` does once its functions are loaded
    await profile_call.startup(api)
    for i in range(args.warmup):
        response = await api.respond(profile_call.request_of(token, args.tool, arguments, i))
        if response.status != 200 or b'"isError":true' in response.body:
            raise SystemExit(f"{args.tool} failed: {response.status} {response.body[:400]!r}")
    collections = Collections()
    roles: dict[int, str] = {}
    calls = []
    gc.callbacks.append(collections)
    try:
        for i in range(args.calls):
            threads_before = thread_cpu_ns(roles)
            started, cpu_started = time.perf_counter(), time.process_time()
            await api.respond(profile_call.request_of(token, args.tool, arguments, i))
            ended, cpu = time.perf_counter(), (time.process_time() - cpu_started) * 1000
            threads_after = thread_cpu_ns(roles)
            threads = {role: (ns - threads_before.get(role, 0)) / 1e6 for role, ns in threads_after.items()}
            calls.append({"start": started, "end": ended, "wall": (ended - started) * 1000, "cpu": cpu, "threads": threads})
    finally:
        gc.callbacks.remove(collections)
    return calls, collections


def unit_of_work(loops: int) -> int:
    total = 0
    for i in range(loops):
        total += i * i
    return total


def control(count: int, target_ms: float) -> list[float]:
    """Thread CPU (ms) of `count` identical work units of about `target_ms` each."""
    loops = 10_000
    started = time.thread_time()
    unit_of_work(loops)
    per_loop = max((time.thread_time() - started) * 1000 / loops, 1e-6)
    loops = max(1000, int(target_ms / per_loop))
    spent = []
    for _ in range(count):
        started = time.thread_time()
        unit_of_work(loops)
        spent.append((time.thread_time() - started) * 1000)
    return spent


def spread(label: str, values: list[float]) -> str:
    p50 = percentile(values, 0.5)
    over = sum(value > 2 * p50 for value in values) / len(values) * 100
    return (
        f"{label:<34} p50 {p50:6.2f}  p99 {percentile(values, 0.99):6.2f}  max {max(values):7.2f}  "
        f"p99/p50 {percentile(values, 0.99) / p50:4.1f}  over 2x p50: {over:4.1f}%"
    )


def report(calls: list[dict[str, Any]], collections: Collections, controls: list[float]) -> None:
    print(f"{len(calls)} calls; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; ms")
    print(spread("calls: wall", [call["wall"] for call in calls]))
    print(spread("calls: process CPU", [call["cpu"] for call in calls]))
    print(spread("control: identical work, thread CPU", controls))
    by_generation: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for start, end, generation, cpu in collections.runs:
        by_generation[generation].append(((end - start) * 1000, cpu))
    for generation, runs in sorted(by_generation.items()):
        walls = [wall for wall, _ in runs]
        print(
            f"gen{generation} collections: {len(runs)} ({len(runs) / len(calls):.3f} per call), "
            f"max {max(walls):.2f} ms, total {sum(walls):.1f} ms (CPU {sum(cpu for _, cpu in runs):.1f})"
        )
    roles = sorted({role for call in calls for role in call["threads"]})
    medians = {role: statistics.median(call["threads"].get(role, 0.0) for call in calls) for role in roles}
    print("median CPU per call by thread: " + ", ".join(f"{role} {value:.2f}" for role, value in medians.items() if value > 0))
    slowest = sorted(calls, key=lambda call: call["wall"], reverse=True)[: max(1, len(calls) // 100)]
    print("slowest 1% (wall, cpu, collections during the call, CPU by thread):")
    for call in sorted(slowest, key=lambda call: call["start"]):
        threads = ", ".join(f"{role} {ms:.2f}" for role, ms in sorted(call["threads"].items()) if ms >= 0.05)
        collected = "; ".join(collections.during(call["start"], call["end"])) or "none"
        print(f"  {call['wall']:7.2f} {call['cpu']:7.2f}  gc: {collected}  [{threads}]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", help="an existing RHUMBLINE_HOME (e.g. Django ingested); default: a small project")
    parser.add_argument("--project", help="the project in --home (default bench/django)")
    parser.add_argument("--tool", default="get_node")
    parser.add_argument("--arguments", type=json.loads, help="the tool's arguments as JSON (project added)")
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=100)
    args = parser.parse_args()
    if not Path("/proc/self/task").is_dir():
        raise SystemExit("per-thread CPU needs Linux (/proc/self/task)")
    if args.home is not None and args.arguments is None:
        args.arguments = {"node_id": "file:shortcuts.py", "edge_limit": 1}
    with tempfile.TemporaryDirectory(prefix="rhumbline-tail-") as directory:
        project, token = profile_call.prepare_home(Path(directory), args.home, args.project)
        arguments = {**(args.arguments or profile_call.CASES[args.tool]), "project": project}
        calls, collections = asyncio.run(drive(args, token, arguments))
    controls = control(len(calls), statistics.median(call["cpu"] for call in calls))
    report(calls, collections, controls)


if __name__ == "__main__":
    main()
