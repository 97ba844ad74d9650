"""Per-call latency of the tools through the local HTTP endpoint (and the tool handler alone), per
call p50/p95; two checkouts A/B at the same moment; the tools' answers of two revisions compared.

    .venv/bin/python bench/calls.py [--cases floor,code] [--only context,search] [--calls 200]
        [--rounds 3] [--in-process] [--neo4j [URI]] [--protocol legacy|modern|both]
        [--client lean|httpx] [--dispatch inprocess|invoke-api] [--corpus django]
    .venv/bin/python bench/calls.py --against REF [...]
    .venv/bin/python bench/calls.py --compare-answers REF [--corpus requests,django] [--neo4j [URI]]
        [--database POSTGRESQL_URL]
    .venv/bin/python bench/calls.py --questions [--set dev|held-out] [--show] [--semantic] [--neo4j [URI]]

Latency: ingests the corpus (Django 5.1's `django/` by default; `graph_diff` cases add a second
version) into a fresh home per checkout, starts a real `rhumbline serve` per checkout (API Gateway
stand-in -> gateway (authenticates) -> tool -> store, audit row included) and times tools/call from
one keep-alive client per server and protocol. Every case's calls are interleaved one by one across
all servers and protocols, alternating the order, so every variant sees the same moments of the
machine. Per case and variant: wall p50/p95/p99/max, the server's CPU per call (from /proc: steadier
than wall time on a shared machine) and the answer's bytes, the `uptime` line per round, and with
--rounds K the median of the K p50s. Targets (embedded; Neo4j: code-context 20 ms, exploration 3x)
are printed beside the p50.

--against REF (repeatable): REF (a git ref, checked out into a temporary worktree, or a checkout's
directory) is served beside this checkout, each from its own code and its own ingest of the same
corpus copy; with one REF the summary adds the difference of the medians (this - REF).
--in-process: also the same calls through each checkout's tool handler alone (no endpoint), p50.
--compare-answers REF: see bench/harness/answers.py; exits 1 when an answer differs.
--questions: how well `search` and `query_graph` answer bench/questions.json (hit@10, MRR@10 and
query_graph containment per category, against the goals), for its dev and held-out sets (--set:
one of them): see bench/harness/questions.py.
Cases: `floor` (ping, tools/list, list_projects, a tiny get_node), `code` (context, search,
function, class, explain), `exploration` (get_node, query_graph, trace_path, blast_radius, graph_diff),
`query` (Cypher; with --neo4j). Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from harness import answers, cases, corpus, questions
from harness.checkouts import checkout, legend, this_checkout
from harness.serve import CLIENTS, PROTOCOLS, Checkout, client, create_token, ingest, serve, timed_call
from harness.stats import median, percentile, server_cpu_ms, uptime

HERE = Path(__file__).resolve().parent


def neo4j_env(uri: str | None) -> dict[str, str]:
    if not uri:
        return {}
    import os

    return {
        "RHUMBLINE_GRAPH_BACKEND": "neo4j", "RHUMBLINE_NEO4J_URI": uri, "RHUMBLINE_NEO4J_USER": "neo4j",
        "RHUMBLINE_NEO4J_PASSWORD": os.environ.get("RHUMBLINE_TEST_NEO4J_PASSWORD", "rhumbline-test"),
        "RHUMBLINE_GRAPH_TIMEOUT": "300",
    }  # fmt: skip


def prepare(checkouts: list[Checkout], tree: Path, root: Path, args: argparse.Namespace, chosen: list) -> list[dict]:
    """Each checkout's home: the same corpus copy ingested by its own code (a second version when a
    case needs graph_diff), and a token. Returns per checkout {env, project, token}."""
    work = corpus.copy_tree(tree, root / "tree" / tree.name)  # its name starts every qualified name
    homes = []
    for number, variant in enumerate(checkouts):
        project = f"bench/calls{number}{uuid.uuid4().hex[:6]}" if args.neo4j else f"bench/calls{number}"
        env = variant.env(root / f"home{number}", **neo4j_env(args.neo4j))
        homes.append({"env": env, "project": project})
    two_versions = any(case.tool == "graph_diff" for case in chosen)
    for version in (1, 2) if two_versions else (1,):
        for variant, home in zip(checkouts, homes):
            started = time.perf_counter()
            summary = ingest(home["env"], work, home["project"])
            print(f"{variant.name}: ingested {tree.name} v{version}: {summary['node_count']} nodes, "
                  f"{summary['edge_count']} edges, {time.perf_counter() - started:.1f} s")  # fmt: skip
        if version == 1 and two_versions:
            cases.add_second_version(work)
    for home in homes:
        home["token"] = create_token(home["env"], home["project"], "read,cypher" if args.neo4j else "read")
    return homes


def delete_projects(homes: list[dict]) -> None:
    """The Neo4j server is shared: leave nothing behind (each checkout deletes its own project)."""
    for home in homes:
        code = (
            "from rhumbline.runtime import resources; "
            f"resources.graph_store().delete_project({home['project']!r}); resources.reset()"
        )
        subprocess.run([sys.executable, "-c", code], env=home["env"], timeout=600, check=False)


def measure_round(lanes: list[tuple[str, Any, Any, str]], chosen: list, args: argparse.Namespace) -> dict:
    """One round: per case, every lane's calls interleaved. lanes: (name, http, served, project)."""
    found: dict[str, dict[str, dict]] = {}
    for case in chosen:
        for _, http, _, project in lanes:
            for i in range(args.warmup):
                timed_call(http, case.tool, cases.with_project(case, project), i)
        walls: dict[str, list[float]] = {name: [] for name, *_ in lanes}
        cpus = dict.fromkeys(walls, 0.0)
        sizes = dict.fromkeys(walls, 0)
        for i in range(args.calls):
            for name, http, served, project in lanes if i % 2 == 0 else lanes[::-1]:
                before = server_cpu_ms(served.pid)
                wall, sizes[name] = timed_call(http, case.tool, cases.with_project(case, project), i)
                cpus[name] += server_cpu_ms(served.pid) - before
                walls[name].append(wall)
        found[case.label] = {
            name: {
                "p50": percentile(values, 0.5), "p95": percentile(values, 0.95), "p99": percentile(values, 0.99),
                "max": max(values), "cpu": cpus[name] / args.calls, "bytes": sizes[name],
            }
            for name, values in walls.items()
        }  # fmt: skip
    return found


def print_round(found: dict, chosen: list, *, neo4j: bool, load: str) -> None:
    print(f"{'call':<32}{'variant':<26}{'p50':>8}{'p95':>8}{'p99':>8}{'max':>8}{'cpu':>7}{'bytes':>8}  target")
    for case in chosen:
        goal = cases.target(case, neo4j=neo4j)
        for name, figures in found[case.label].items():
            verdict = "-" if goal is None else f"{'ok' if figures['p50'] <= goal else 'MISSED'} p50 ≤ {goal:g}"
            print(
                f"{case.label:<32}{name:<26}{figures['p50']:>8.2f}{figures['p95']:>8.2f}{figures['p99']:>8.2f}"
                f"{figures['max']:>8.2f}{figures['cpu']:>7.2f}{figures['bytes']:>8}  {verdict}"
            )
    print(f"  {load}")


def print_summary(rounds: list[dict], chosen: list, lane_names: list[str]) -> None:
    """Median over rounds of each lane's p50 (and server CPU); with two lanes, their difference
    (the first lane minus the second)."""
    print(f"\nmedian over {len(rounds)} round(s) of the per-round p50 (ms) and server CPU per call (ms)")
    header = "".join(f"{name[:22]:>24}" for name in lane_names)
    pair = len(lane_names) == 2
    print(f"{'call':<32}{header}" + (f"{'diff p50':>10}{'diff cpu':>10}" if pair else ""))
    for case in chosen:
        p50s = [median([found[case.label][name]["p50"] for found in rounds]) for name in lane_names]
        cpus = [median([found[case.label][name]["cpu"] for found in rounds]) for name in lane_names]
        cells = "".join(f"{p:>14.2f} / {c:>6.2f}" for p, c in zip(p50s, cpus))
        diff = f"{p50s[0] - p50s[1]:>+10.2f}{cpus[0] - cpus[1]:>+10.2f}" if pair else ""
        print(f"{case.label:<32}{cells}{diff}")
    all_p50 = [median([median([found[c.label][name]["p50"] for found in rounds]) for c in chosen]) for name in lane_names]
    print(f"{'median over the cases':<32}" + "".join(f"{p:>24.2f}" for p in all_p50)
          + (f"{all_p50[0] - all_p50[1]:>+10.2f}" if pair else ""))  # fmt: skip
    if any(case.tool == "ping" for case in chosen):
        # The endpoint's floor: an MCP ping crosses everything a call does but the tool (issue 30: ≤ 2x).
        pings = [median([found["ping"][name]["p50"] for found in rounds]) for name in lane_names]
        print(f"\np50 as a multiple of the same lane's ping p50 ({', '.join(f'{p:.2f} ms' for p in pings)})")
        for case in chosen:
            if case.tool != "ping":
                p50s = [median([found[case.label][name]["p50"] for found in rounds]) for name in lane_names]
                print(f"{case.label:<32}" + "".join(f"{p / ping:>23.2f}x" for p, ping in zip(p50s, pings)))


def in_process(checkouts: list[Checkout], homes: list[dict], chosen: list, args: argparse.Namespace) -> None:
    """Each checkout's tool handler alone, in a child process running that checkout's code."""
    calls = [c for c in chosen if c.tool not in ("tools/list", "ping")]
    print(f"\ntool handler alone, in process: p50 / min / CPU per call (ms), {args.calls} calls each")
    results = []
    for variant, home in zip(checkouts, homes):
        request = {
            "project": home["project"], "calls": args.calls, "warmup": args.warmup,
            "cases": [(c.label, c.tool, cases.with_project(c, home["project"])) for c in calls],
        }  # fmt: skip
        done = subprocess.run(
            [sys.executable, str(HERE / "harness" / "handler_times.py")], input=json.dumps(request),
            env=home["env"], capture_output=True, text=True, timeout=3600,
        )  # fmt: skip
        if done.returncode != 0:
            raise SystemExit(f"in-process run of {variant.name} failed:\n{done.stderr[-2000:]}")
        results.append((variant.name, json.loads(done.stdout)))
    print(f"{'call':<32}" + "".join(f"{name[:26]:>28}" for name, _ in results))
    for case in calls:
        cells = "".join(
            f"{found[case.label]['p50']:>10.2f} /{found[case.label]['min']:>6.2f} /{found[case.label]['cpu']:>6.2f}"
            for _, found in results
        )
        print(f"{case.label:<32}{cells}")
    print(f"  {uptime()}")


def latency(args: argparse.Namespace) -> None:
    chosen = cases.select(args.cases + (",query" if args.neo4j and "query" not in args.cases else ""), args.only)
    tree = corpus.tree(args.corpus)
    protocols = ["legacy", "modern"] if args.protocol == "both" else [args.protocol]
    with ExitStack() as stack:
        checkouts = [this_checkout()] + [stack.enter_context(checkout(ref)) for ref in args.against]
        root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="rhumbline-calls-")))
        print(legend(checkouts))
        homes = prepare(checkouts, tree, root, args, chosen)
        if args.neo4j:
            stack.callback(delete_projects, homes)
        lanes = []
        for variant, home in zip(checkouts, homes):
            served = stack.enter_context(serve(variant.name, home["env"], home["token"], home["project"], dispatch=args.dispatch))
            for protocol in protocols:
                http = stack.enter_context(client(served, kind=args.client, protocol=protocol))
                name = variant.name + (f" {PROTOCOLS[protocol]}" if len(protocols) > 1 else "")
                lanes.append((name, http, served, home["project"]))
        backend = "Neo4j" if args.neo4j else "embedded SQLite"
        print(f"{backend}; {args.calls} calls per case and variant, interleaved; ms; one keep-alive {args.client} "
              f"client per variant; dispatch {args.dispatch}; cpu: the server's CPU per call")  # fmt: skip
        rounds = []
        for number in range(1, args.rounds + 1):
            found = measure_round(lanes, chosen, args)
            rounds.append(found)
            print(f"\nround {number} of {args.rounds}, {time.strftime('%H:%M:%S')}")
            print_round(found, chosen, neo4j=bool(args.neo4j), load=uptime())
        print_summary(rounds, chosen, [name for name, *_ in lanes])
        print(f"  {uptime()}")
        if args.in_process:
            in_process(checkouts, homes, chosen, args)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", default="floor,code", help=f"comma-separated sets: {', '.join(cases.SETS)}")
    parser.add_argument("--only", default="", help="comma-separated parts of case labels")
    parser.add_argument("--calls", type=int, default=200, help="timed calls per case, variant and round")
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=1, help="measure every case this many times; medians at the end")
    parser.add_argument("--corpus", default="django", help="django, django-sdist, requests or a directory "
                        "(--compare-answers: a comma-separated list, default requests,django)")  # fmt: skip
    parser.add_argument("--against", metavar="REF", action="append", default=[],
                        help="also serve REF (git ref or checkout directory), interleaved; repeatable")  # fmt: skip
    parser.add_argument("--protocol", choices=[*PROTOCOLS, "both"], default="legacy",
                        help="legacy: 2025-06-18 clients; modern: 2026-07-28 (mcp 2.3 Client); both: alternated")  # fmt: skip
    parser.add_argument("--client", choices=CLIENTS, default="lean", help="lean: http.client (little client CPU); httpx")
    parser.add_argument("--dispatch", choices=["inprocess", "invoke-api"], default="inprocess")
    parser.add_argument("--neo4j", nargs="?", const="bolt://127.0.0.1:7687", help="the graph in this Neo4j server")
    parser.add_argument("--in-process", action="store_true", help="also the tool handler alone, per checkout")
    parser.add_argument("--compare-answers", metavar="REF", help="compare the tools' answers of REF and this checkout")
    parser.add_argument("--database", metavar="URL", help="--compare-answers: the relational store on this "
                        "PostgreSQL server (a fresh database per run), not embedded SQLite")  # fmt: skip
    parser.add_argument("--keep", metavar="DIR", help="--compare-answers: write both answer sets into DIR")
    parser.add_argument("--questions", action="store_true", help="score search and query_graph on bench/questions.json")
    parser.add_argument("--show", action="store_true", help="--questions: every question's rank and top hits")
    parser.add_argument("--semantic", action="store_true", help="--questions: then again with semantic ranking on")
    parser.add_argument("--set", choices=questions.SETS, help="--questions: only this set (default: both)")
    args = parser.parse_args()
    if args.calls < 1 or args.rounds < 1:
        parser.error("--calls and --rounds must be at least 1")
    if args.questions:
        questions.score_answers(neo4j=args.neo4j, show=args.show, semantic=args.semantic, chosen=args.set)
        return
    if args.compare_answers:
        corpora = args.corpus if args.corpus != "django" or "--corpus" in sys.argv else "requests,django"
        chosen = [part for part in corpora.split(",") if part]
        sys.exit(answers.main(args.compare_answers, chosen, args.keep, neo4j_env(args.neo4j), args.database))
    latency(args)


if __name__ == "__main__":
    main()
