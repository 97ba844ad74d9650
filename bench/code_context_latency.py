"""Warm latency of the code-context tools through the local HTTP endpoint, on Django's `django/`.

    .venv/bin/python bench/code_context_latency.py [--calls 200] [--rounds 1] [--neo4j [bolt://127.0.0.1:7687]]

Ingests Django 5.1's `django/` package (bench/.corpus, downloaded on first use like bench/ingest.py)
into a fresh home — embedded SQLite by default, Neo4j with --neo4j (password from
RHUMBLINE_TEST_NEO4J_PASSWORD, default rhumbline-test; the benchmark's project is deleted after) —
starts a real `rhumbline serve`, warms each call up, then times `tools/call` requests from one
keep-alive HTTP client: API Gateway stand-in → authorizer (cached) → gateway → tool → store, audit
row included. Prints p50/p99/max/mean per call and checks the targets (with --rounds K, K tables
measured one after the other on the same server, then each case's p50/p99 per round):

    embedded: context, search ≤ 5 ms p50 and ≤ 20 ms p99; function depth 2 ≤ 10 ms p50
    Neo4j:    ≤ 20 ms p50

Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from http_latency import CLIENTS, PROTOCOLS, machine_probe, percentile, rpc, serving_client, start_serve  # noqa: E402
from ingest import SDIST, ensure_corpus  # noqa: E402

RHUMBLINE = Path(sys.executable).parent / "rhumbline"

# (label, tool, arguments, p50 target ms, p99 target ms) — embedded targets; Neo4j: 20 ms p50.
CASES = [
    # The endpoint's own floor (authorizer cache, gateway, audit row): a tool that does next to nothing.
    ("floor: get_node", "get_node", {"node_id": "file:shortcuts.py", "edge_limit": 1}, None, None),
    ("context query.py", "context", {"file": "db/models/query.py"}, 5.0, 20.0),
    ("context query.py md", "context", {"file": "db/models/query.py", "format": "markdown"}, 5.0, 20.0),
    ("context shortcuts.py", "context", {"file": "shortcuts.py"}, 5.0, 20.0),
    ("context http/request.py", "context", {"file": "http/request.py"}, 5.0, 20.0),
    ("search get_object_or_404", "search", {"query": "get_object_or_404"}, 5.0, 20.0),
    ("search QuerySet", "search", {"query": "QuerySet"}, 5.0, 20.0),
    ("search words", "search", {"query": "cache key"}, 5.0, 20.0),
    ("function d2 get_object_or_404", "function",
     {"name": "django.shortcuts.get_object_or_404", "depth": 2}, 10.0, None),
    ("function d2 QuerySet.filter", "function", {"name": "QuerySet.filter", "depth": 2}, 10.0, None),
    ("class QuerySet", "class", {"name": "django.db.models.query.QuerySet"}, None, None),
    ("explain QuerySet.filter", "explain", {"name": "QuerySet.filter"}, None, None),
]  # fmt: skip
NEO4J_P50 = 20.0
QUERY_CASE = (
    "query count by kind", "query",
    {"cypher": "MATCH (n:CodeNode {project: $project}) RETURN n.kind AS kind, count(*) AS c ORDER BY c DESC"},
    None, None,
)  # fmt: skip


def cli(env: dict[str, str], *arguments: str) -> str:
    done = subprocess.run([str(RHUMBLINE), *arguments], env=env, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"rhumbline {' '.join(arguments)} failed:\n{done.stderr}")
    return done.stdout.strip()


def call(http: Any, tool: str, arguments: dict, request_id: int) -> float:
    body = rpc("tools/call", {"name": tool, "arguments": arguments}, request_id)
    started = time.perf_counter()
    response = http.post("/mcp", json=body)
    elapsed = (time.perf_counter() - started) * 1000
    answer = response.json()
    if response.status_code != 200 or "error" in answer or answer["result"].get("isError"):
        raise SystemExit(f"{tool} {arguments} failed: {response.text[:500]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--client", choices=CLIENTS, default="lean", help="the HTTP client (see http_latency.py)")
    parser.add_argument(
        "--protocol", choices=tuple(PROTOCOLS), default="legacy",
        help="legacy: 2025-06-18 clients (Claude Code, Inspector); modern: 2026-07-28 (mcp 2.3 Client)",
    )  # fmt: skip
    parser.add_argument("--neo4j", nargs="?", const=os.environ.get("RHUMBLINE_TEST_NEO4J_URI", "bolt://127.0.0.1:7687"))
    parser.add_argument(
        "--rounds", type=int, default=1,
        help="measure every case this many times on the same server (a table per round, then each case's p50 "
        "per round): the machine's speed moves within minutes, one round is one moment",
    )  # fmt: skip
    args = parser.parse_args()
    if args.rounds < 1:
        raise SystemExit("--rounds must be at least 1")
    ensure_corpus()
    project = f"bench/django{uuid.uuid4().hex[:6]}" if args.neo4j else "bench/django"
    with tempfile.TemporaryDirectory(prefix="rhumbline-cc-bench-") as directory:
        root = Path(directory)
        env = {key: value for key, value in os.environ.items() if not key.startswith(("RHUMBLINE_", "AWS_"))}
        env.update(RHUMBLINE_HOME=str(root / "home"), POWERTOOLS_METRICS_DISABLED="true")
        if args.neo4j:
            env.update(
                RHUMBLINE_GRAPH_BACKEND="neo4j",
                RHUMBLINE_NEO4J_URI=args.neo4j,
                RHUMBLINE_NEO4J_PASSWORD=os.environ.get("RHUMBLINE_TEST_NEO4J_PASSWORD", "rhumbline-test"),
            )
        started = time.perf_counter()
        summary = json.loads(cli(env, "ingest", str(SDIST / "django"), "--project", project, "--json"))
        print(
            f"ingested django/ into {'Neo4j' if args.neo4j else 'embedded SQLite'}: {summary['files']} files, "
            f"{summary['node_count']} nodes, {summary['edge_count']} edges in {time.perf_counter() - started:.1f} s"
        )
        scopes = "read,cypher" if args.neo4j else "read"
        token = cli(env, "token", "create", "--principal", "bench", "--projects", project, "--scopes", scopes)
        port, server = start_serve(env)
        try:
            rounds = []
            for _ in range(args.rounds):
                before = machine_probe()
                results = run_cases(port, token, project, args, server.pid)
                probes = (before, machine_probe())
                rounds.append((results, time.strftime("%H:%M:%S"), os.getloadavg()[0], probes))
            in_process = run_in_process(env, project, args)
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(20)
            if args.neo4j:
                delete_project(env, project)
    client = f"{args.client} {PROTOCOLS[args.protocol]}"
    for number, (results, ended, load, probes) in enumerate(rounds, 1):
        if len(rounds) > 1:
            print(f"\nround {number} of {len(rounds)}, ended {ended}")
        print(f"machine probe (bench/http_latency.py machine_probe) before / after: {probes[0]:.0f} / {probes[1]:.0f} ms")
        report(results, in_process, neo4j=bool(args.neo4j), client=client, load=load)
    if len(rounds) > 1:
        report_rounds([results for results, *_ in rounds], neo4j=bool(args.neo4j))


def cpu_ms(pid: int) -> float:
    """CPU time the server process has used (all threads), in ms: unlike wall time, barely moved
    by other processes competing for the machine."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def run_cases(port: int, token: str, project: str, args: argparse.Namespace, pid: int) -> list[tuple]:
    cases = CASES + ([QUERY_CASE] if args.neo4j else [])
    results = []
    with serving_client(port, token, client=args.client, protocol=args.protocol) as http:
        for label, tool, arguments, p50_target, p99_target in cases:
            arguments = {**arguments, "project": project}
            for i in range(args.warmup):
                call(http, tool, arguments, i)
            before = cpu_ms(pid)
            timings = [call(http, tool, arguments, i) for i in range(args.calls)]
            cpu = (cpu_ms(pid) - before) / args.calls
            results.append((label, timings, cpu, p50_target, p99_target))
    return results


def run_in_process(env: dict[str, str], project: str, args: argparse.Namespace) -> dict[str, float]:
    """p50 of the same calls through the tool handler in this process, against the same stores:
    what the tool itself costs, without the endpoint (authorizer, gateway, MCP, audit)."""
    from rhumbline.contract import INVOCATION_CONTRACT
    from rhumbline.runtime import resources
    from rhumbline.runtime.handler import handle

    os.environ.update({key: value for key, value in env.items() if key.startswith(("RHUMBLINE_", "POWERTOOLS_"))})
    resources.reset()
    caller = {"principal": "bench", "token_id": "tk_bench", "projects": [project], "scopes": ["read", "cypher"]}
    found = {}
    try:
        for label, tool, arguments, *_ in CASES + ([QUERY_CASE] if args.neo4j else []):
            event = {
                "contract": INVOCATION_CONTRACT, "tool": tool, "arguments": {**arguments, "project": project},
                "caller": caller, "request_id": "bench", "deadline_ms": int((time.time() + 3600) * 1000),
            }  # fmt: skip
            timings = []
            for i in range(args.warmup + args.calls):
                started = time.perf_counter()
                outcome = handle(tool, event)
                if i >= args.warmup:
                    timings.append((time.perf_counter() - started) * 1000)
            if not outcome["ok"]:
                raise SystemExit(f"{tool} failed in process: {outcome['error']}")
            found[label] = percentile(timings, 0.5)
    finally:
        resources.reset()
    return found


def targets(label_targets: tuple[float | None, float | None], *, neo4j: bool) -> tuple[float | None, float | None]:
    return (NEO4J_P50, None) if neo4j else label_targets


def report(results: list[tuple], in_process: dict[str, float], *, neo4j: bool, client: str, load: float) -> None:
    print(
        f"{'backend: Neo4j' if neo4j else 'backend: embedded SQLite'}; ms per tools/call, one keep-alive {client} client; "
        f"load average {load:.1f} on {os.cpu_count()} CPUs"
    )
    print(
        f"{'call':<32}{'p50':>8}{'p99':>8}{'max':>8}{'mean':>8}{'cpu':>8}{'tool':>8}  target"
        "   (cpu: server CPU per call; tool: p50 of the tool handler alone, in process)"
    )
    missed = 0
    for label, timings, cpu, p50_target, p99_target in results:
        p50, p99 = percentile(timings, 0.5), percentile(timings, 0.99)
        p50_target, p99_target = targets((p50_target, p99_target), neo4j=neo4j)
        goals = []
        ok = True
        if p50_target is not None:
            goals.append(f"p50 ≤ {p50_target:g}")
            ok &= p50 <= p50_target
        if p99_target is not None:
            goals.append(f"p99 ≤ {p99_target:g}")
            ok &= p99 <= p99_target
        verdict = ("ok " if ok else "MISSED ") + ", ".join(goals) if goals else "-"
        missed += not ok
        print(
            f"{label:<32}{p50:>8.2f}{p99:>8.2f}{max(timings):>8.2f}{statistics.fmean(timings):>8.2f}{cpu:>8.2f}"
            f"{in_process[label]:>8.2f}  {verdict}"
        )
    if missed:
        print(f"{missed} target(s) missed")


def report_rounds(rounds: list[list[tuple]], *, neo4j: bool) -> None:
    """Each case's p50 and p99 in every round, and in how many rounds its targets held."""
    print(f"\nall {len(rounds)} rounds: p50 / p99 per round, ms")
    for case in range(len(rounds[0])):
        label, _, _, p50_target, p99_target = rounds[0][case]
        p50_target, p99_target = targets((p50_target, p99_target), neo4j=neo4j)
        cells, held = [], 0
        for results in rounds:
            timings = results[case][1]
            p50, p99 = percentile(timings, 0.5), percentile(timings, 0.99)
            cells.append(f"{p50:.2f}/{p99:.1f}")
            held += (p50_target is None or p50 <= p50_target) and (p99_target is None or p99 <= p99_target)
        verdict = f"targets held in {held} of {len(rounds)}" if p50_target is not None or p99_target is not None else ""
        print(f"{label:<32}{'  '.join(f'{cell:>11}' for cell in cells)}  {verdict}")


def delete_project(env: dict[str, str], project: str) -> None:
    """The Neo4j server is shared: leave nothing behind."""
    code = (
        "from rhumbline.runtime import resources; "
        f"resources.graph_store().delete_project({project!r}); resources.reset()"
    )
    subprocess.run([sys.executable, "-c", code], env=env, timeout=600, check=False)


if __name__ == "__main__":
    main()
