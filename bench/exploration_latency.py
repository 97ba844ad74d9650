"""Warm latency of the graph-exploration tools on Django, through the local HTTP endpoint.

    .venv/bin/python bench/exploration_latency.py [--calls 100] [--neo4j [bolt://127.0.0.1:7687]]

Ingests Django 5.1's `django/` package (bench/.corpus, fetched by bench/ingest.py's
ensure_corpus) into a temporary embedded home as graph version 1, edits a few files and ingests
again as version 2 (so graph_diff compares two real versions), starts a real `rhumbline serve`,
and times tools/call for each tool from one keep-alive client, cycling through several realistic
arguments per tool after a warm-up. Prints p50/p99/max per tool against the targets:

    get_node ≤ 5 ms p50, query_graph ≤ 30 ms, trace_path ≤ 20 ms, blast_radius (depth 2) ≤ 50 ms,
    graph_diff ≤ 1 s; with --neo4j (graph in Neo4j, password RHUMBLINE_TEST_NEO4J_PASSWORD or
    rhumbline-test: the ingested graph is copied there in batches, see copy_to_neo4j), within 3x.

The path measured: API Gateway stand-in -> authorizer (cached) -> gateway handler -> tool, in
process (`--dispatch inprocess`). Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
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
from http_latency import CLIENTS, PROTOCOLS, RHUMBLINE, percentile, rpc, serving_client, start_serve  # noqa: E402
from ingest import TARGETS, ensure_corpus  # noqa: E402

TARGET_MS = {"get_node": 5, "query_graph": 30, "trace_path": 20, "blast_radius": 50, "graph_diff": 1000}
NEO4J_FACTOR = 3
# Edits between version 1 and version 2: (file, old text, new text). Each must apply exactly once.
EDITS = [
    ("shortcuts.py", "def get_object_or_404(klass, *args, **kwargs):",
     "def get_object_or_404(klass, *args, using=None, **kwargs):"),
    ("utils/text.py", "def slugify(value, allow_unicode=False):",
     "def slugify(value, allow_unicode=False, max_length=None):"),
    ("utils/html.py", "def escape(text):\n", "def escape(text):\n    \"\"\"Escape, benchmark edition.\"\"\"\n"),
]  # fmt: skip
NEW_MODULE = ("utils/bench_extra.py", "".join(f"def extra_{i}(value):\n    return value + {i}\n\n\n" for i in range(40)))
# (tool, arguments) cases; names are resolved to node ids before the server starts.
NAMES = {
    "QuerySet": "django.db.models.query.QuerySet",
    "filter": "QuerySet.filter",
    "get": "QuerySet.get",
    "g404": "django.shortcuts.get_object_or_404",
    "render": "django.shortcuts.render",
    "Template.render": "django.template.base.Template.render",
    "HttpResponse": "django.http.response.HttpResponse",
    "Redirect": "HttpResponseRedirect",
    "reverse": "django.urls.base.reverse",
    "escape": "django.utils.html.escape",
    "Signal.send": "Signal.send",
    "Model": "django.db.models.base.Model",
    "Q": "Q",
    "Csrf": "CsrfViewMiddleware",
    "render_to_string": "django.template.loader.render_to_string",
}
QUESTIONS = [
    "how does QuerySet filter work",
    "get_object_or_404",
    "template rendering context",
    "url reverse resolver",
    "csrf token middleware",
    "migration autodetector changes",
]
PATHS = [
    ("render", "Template.render"), ("render_to_string", "Template.render"), ("Redirect", "HttpResponse"),
    ("g404", "get"), ("escape", "Q"), ("filter", "Q"),
]  # fmt: skip
BLAST = ["filter", "g404", "reverse", "escape", "HttpResponse", "Signal.send", "Q", "render_to_string"]


def cli(env: dict[str, str], *arguments: str) -> str:
    done = subprocess.run([str(RHUMBLINE), *arguments], env=env, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"rhumbline {' '.join(arguments)} failed:\n{done.stderr}")
    return done.stdout.strip()


def edit_tree(tree: Path) -> None:
    for path, old, new in EDITS:
        target = tree / path
        text = target.read_text()
        if text.count(old) != 1:
            raise SystemExit(f"benchmark edit does not apply to {path}: Django changed?")
        target.write_text(text.replace(old, new))
    (tree / NEW_MODULE[0]).write_text(NEW_MODULE[1])


def copy_to_neo4j(env: dict[str, str], project: str, *, version: int) -> None:
    """The ingested graph, written into Neo4j in batches and stamped with its version.

    The versions, snapshots (graph_diff) and centrality stay in the embedded relational store,
    keyed by the same version. Ingesting straight into Neo4j writes a first ingest as ONE
    transaction, which needs db.memory.transaction.max around 1 GiB (scripts/services/neo4j.sh
    configures that); copying in batches also runs against a server left at 128 MiB.
    """
    import sqlite3

    from rhumbline.stores.graph.model import Edge, GraphBatch, Node
    from rhumbline.stores.graph.rows import NODE_FIELDS

    started = time.perf_counter()
    store = open_store(env)
    db = sqlite3.connect(Path(env["RHUMBLINE_HOME"]) / "graph.sqlite3")
    columns = ", ".join(NODE_FIELDS)
    nodes = [Node(*row) for row in db.execute(
        f"SELECT {columns} FROM nodes WHERE project = ? AND kind IS NOT NULL ORDER BY rid", (project,))]  # fmt: skip
    edges = [
        Edge(s, t, r, c, cs, x, f, ln, json.loads(p) if p else None)
        for s, t, r, c, cs, x, f, ln, p in db.execute(
            "SELECT s.id, t.id, e.relation, e.confidence, e.confidence_score, e.explanation, e.file, e.line,"
            " e.properties FROM edges e JOIN nodes s ON s.rid = e.source JOIN nodes t ON t.rid = e.target"
            " WHERE s.project = ?", (project,))
    ]  # fmt: skip
    store.delete_project(project)
    chunk = 5_000
    for start in range(0, len(nodes), chunk):
        store.apply(project, GraphBatch(nodes=nodes[start : start + chunk]))
    for start in range(0, len(edges), chunk):
        store.apply(project, GraphBatch(edges=edges[start : start + chunk]))
    store.apply(project, GraphBatch(version=version))
    counts = store.counts(project)
    store.close()
    print(f"copied to neo4j: {counts.nodes} nodes, {counts.edges} edges, {time.perf_counter() - started:.1f} s")


def open_store(env: dict[str, str]):  # type: ignore[no-untyped-def]
    if env.get("RHUMBLINE_GRAPH_BACKEND") == "neo4j":
        from rhumbline.stores.graph.neo4j.store import Neo4jGraphStore

        return Neo4jGraphStore(env["RHUMBLINE_NEO4J_URI"], "neo4j", env["RHUMBLINE_NEO4J_PASSWORD"], timeout=300)
    from rhumbline.stores.graph.sqlite.store import SqliteGraphStore

    return SqliteGraphStore(Path(env["RHUMBLINE_HOME"]) / "graph.sqlite3")


def cases(store, project: str) -> dict[str, list[dict]]:  # type: ignore[no-untyped-def]
    ids = {}
    for key, name in NAMES.items():
        found, _ = store.find_by_name(project, name, limit=1)
        if not found:
            raise SystemExit(f"no node named {name} in the ingested Django")
        ids[key] = found[0].id
    return {
        "get_node": [{"project": project, "node_id": ids[k]} for k in ("QuerySet", "filter", "HttpResponse", "g404", "Model", "reverse")],
        "query_graph": [{"project": project, "question": q} for q in QUESTIONS],
        "trace_path": [{"project": project, "from_node": ids[a], "to_node": ids[b], "max_paths": 3} for a, b in PATHS],
        "blast_radius": [{"project": project, "node_id": ids[k], "depth": 2} for k in BLAST],
        "graph_diff": [{"project": project}],
    }


def measure(http: Any, tool: str, argument_sets: list[dict], calls: int) -> list[float]:
    timings = []
    for n in range(calls):
        body = rpc("tools/call", {"name": tool, "arguments": argument_sets[n % len(argument_sets)]}, n)
        started = time.perf_counter()
        response = http.post("/mcp", json=body)
        timings.append((time.perf_counter() - started) * 1000)
        result = response.json().get("result", {})
        if response.status_code != 200 or result.get("isError"):
            raise SystemExit(f"{tool} failed: {response.text[:500]}")
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100, help="timed calls per tool (graph_diff: a fifth)")
    parser.add_argument("--neo4j", nargs="?", const=os.environ.get("RHUMBLINE_TEST_NEO4J_URI", "bolt://127.0.0.1:7687"),
                        help="keep the graph in this Neo4j server instead of SQLite")  # fmt: skip
    parser.add_argument("--client", choices=CLIENTS, default="lean", help="the HTTP client (see http_latency.py)")
    parser.add_argument(
        "--protocol", choices=tuple(PROTOCOLS), default="legacy",
        help="legacy: 2025-06-18 clients (Claude Code, Inspector); modern: 2026-07-28 (mcp 2.3 Client)",
    )  # fmt: skip
    args = parser.parse_args()
    ensure_corpus()
    project = f"bench/django{uuid.uuid4().hex[:6]}"
    with tempfile.TemporaryDirectory(prefix="rhumbline-explore-") as directory:
        root = Path(directory)
        tree = root / "django"
        shutil.copytree(TARGETS["django"], tree)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("RHUMBLINE_", "AWS_"))}
        env["RHUMBLINE_HOME"] = str(root / "home")
        if args.neo4j:
            env.update(
                RHUMBLINE_GRAPH_BACKEND="neo4j", RHUMBLINE_NEO4J_URI=args.neo4j, RHUMBLINE_NEO4J_USER="neo4j",
                RHUMBLINE_NEO4J_PASSWORD=os.environ.get("RHUMBLINE_TEST_NEO4J_PASSWORD", "rhumbline-test"),
                RHUMBLINE_GRAPH_TIMEOUT="300",
            )  # fmt: skip
        backend = "neo4j" if args.neo4j else "sqlite"
        ingest_env = {k: v for k, v in env.items() if not k.startswith("RHUMBLINE_NEO4J")}
        ingest_env.pop("RHUMBLINE_GRAPH_BACKEND", None)
        for version in (1, 2):
            started = time.perf_counter()
            summary = json.loads(cli(ingest_env, "ingest", str(tree), "--project", project, "--json"))
            print(f"ingest v{version} (sqlite): {summary['node_count']} nodes, {summary['edge_count']} edges, "
                  f"{time.perf_counter() - started:.1f} s (centrality included)")  # fmt: skip
            if version == 1:
                edit_tree(tree)
        if args.neo4j:
            copy_to_neo4j(env, project, version=2)
        token = cli(env, "token", "create", "--principal", "bench", "--projects", project, "--scopes", "read")
        store = open_store(env)
        try:
            all_cases = cases(store, project)
            port, server = start_serve(env)
            try:
                database = Path(env["RHUMBLINE_HOME"]) / "rhumbline.sqlite3"
                run(port, token, all_cases, args.calls, backend, database, client=args.client, protocol=args.protocol, pid=server.pid)
            finally:
                server.send_signal(signal.SIGINT)
                server.wait(10)
        finally:
            if args.neo4j:
                store.delete_project(project)
            store.close()


def server_side(database: Path, tool: str, calls: int) -> list[float]:
    """The gateway's own latency of the last `calls` calls of a tool (audit_log.latency_ms):
    dispatch + tool, without HTTP, the API Gateway stand-in and the client."""
    import sqlite3

    with sqlite3.connect(database) as db:
        rows = db.execute(
            "SELECT latency_ms FROM audit_log WHERE tool = ? ORDER BY id DESC LIMIT ?", (tool, calls)
        ).fetchall()
    return [row[0] for row in rows]


def cpu_ms(pid: int) -> float:
    """CPU time the server process has used (all threads), in ms: barely moved by other processes."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def run(
    port: int, token: str, all_cases: dict[str, list[dict]], calls: int, backend: str, database: Path, *,
    client: str, protocol: str, pid: int,
) -> None:
    with serving_client(port, token, client=client, protocol=protocol) as http:
        for tool, argument_sets in all_cases.items():
            measure(http, tool, argument_sets, 2 * len(argument_sets))  # warm-up: modules, caches
        factor = NEO4J_FACTOR if backend == "neo4j" else 1
        print(f"\nbackend={backend} calls={calls} per tool (ms, warm, one keep-alive {client} client, {PROTOCOLS[protocol]}, HTTP end to end)")
        print("(server: the same calls as the gateway timed them, from audit_log: dispatch + tool; "
              "cpu: the server process's CPU per call)")  # fmt: skip
        print(f"{'tool':<14}{'p50':>9}{'p99':>9}{'max':>9}{'mean':>9}{'cpu':>9}{'server p50':>12}{'server p99':>12}"
              f"{'target p50':>12}  verdict")  # fmt: skip
        for tool, argument_sets in all_cases.items():
            count = max(10, calls // 5) if tool == "graph_diff" else calls
            before = cpu_ms(pid)
            timings = measure(http, tool, argument_sets, count)
            cpu = (cpu_ms(pid) - before) / count
            server = server_side(database, tool, count)
            p50 = percentile(timings, 0.5)
            target = TARGET_MS[tool] * factor
            print(
                f"{tool:<14}{p50:>9.2f}{percentile(timings, 0.99):>9.2f}{max(timings):>9.2f}"
                f"{statistics.fmean(timings):>9.2f}{cpu:>9.2f}{percentile(server, 0.5):>12.2f}{percentile(server, 0.99):>12.2f}"
                f"{target:>12}  {'ok' if p50 <= target else 'SLOW'}"
            )
        load = os.getloadavg()[0]
        print(f"load average (1 min) at the end: {load:.2f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
