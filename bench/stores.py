"""The graph stores on their own: load and query timings, the query tool's Cypher on both backends,
Bolt round trips per tool call, and the cost of Neo4j's physical-key guard.

    .venv/bin/python bench/stores.py [--nodes 100000] [--edges 400000] [--neo4j bolt://127.0.0.1:7687]

A synthetic code graph (default 100k nodes / 400k edges) loaded into SQLite (a temporary file) and,
with --neo4j, into Neo4j (a project of its own, deleted afterwards): loading (SQLite: one atomic
`apply`; Neo4j: batches of --neo4j-batch-rows, as one transaction must fit its memory limit), p50 /
p95 over many calls of get_node, edges_of, search and find_by_name, replacing one file, counts,
delete_project.

    .venv/bin/python bench/stores.py --cypher [--runs 15] [--neo4j URI]

The `query` tool's Cypher on Django 5.1's `django/` (ingested into both stores): p50 of each of
CYPHER_QUERIES on the embedded store (compiled to SQL) and on Neo4j (the scoped text), alternated,
with the answers' row counts checked equal.

    .venv/bin/python bench/stores.py --round-trips --home DIR [--project bench/django] [--neo4j URI] [-v]

Round trips to Neo4j per warm tool call (Bolt socket writes: the driver writes, then waits) and the
Bolt messages sent, through the tool handler in process, for bench/calls.py's cases. DIR is a home
with Django's `django/` ingested into Neo4j (RHUMBLINE_GRAPH_BACKEND=neo4j ... rhumbline ingest).
The budgets that must not regress are tests (tests/performance/test_neo4j_round_trips.py).

    .venv/bin/python bench/stores.py --key-guard [--neo4j URI] [--runs 300]

What the physical-key guard (stores/graph/neo4j/keys.py) costs a read: the same statements with
`$project` bound to the physical key directly and through the store's binding, alternated call by
call; per statement the median client wall time and the mean server time, in ms.

Password: --neo4j-password (default RHUMBLINE_TEST_NEO4J_PASSWORD or rhumbline-test). Not part of
the test suite: timings depend on the machine.
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from harness import cases as bench_cases
from harness import corpus
from harness.stats import uptime

from rhumbline.stores.graph.model import Edge, GraphBatch, Node
from rhumbline.stores.graph.protocol import GraphStore

WORDS = (
    "get set query model field form view user order item cart price http request response "
    "cache session token parse render build load save update delete create filter object list "
    "manager handler router client server config path file stream event signal task queue"
).split()
NODES_PER_FILE = 50


def synthetic_graph(node_count: int, edge_count: int, seed: int = 7) -> tuple[list[Node], list[Edge]]:
    """Files of 50 definitions (classes, methods, functions with snake/camel names), each file
    DEFINES its nodes; the rest of the edges are CALLS and IMPORTS between random nodes."""
    rng = random.Random(seed)
    nodes: list[Node] = []
    edges: list[Edge] = []
    file_count = max(1, node_count // NODES_PER_FILE)
    for f in range(file_count):
        package = f"pkg{f % 40}.{rng.choice(WORDS)}_{f}"
        path = package.replace(".", "/") + ".py"
        file_node = Node(f"file:{path}", "File", path.rsplit("/", 1)[-1], package, path, 1, 500, "python")
        nodes.append(file_node)
        cls = None
        for i in range(NODES_PER_FILE - 1):
            a, b = rng.choice(WORDS), rng.choice(WORDS)
            if i % 10 == 0:
                name = f"{a.title()}{b.title()}{i}"
                cls = Node(f"class:{path}:{name}", "Class", name, f"{package}.{name}", path, i * 10,
                           i * 10 + 9, "python", f"class {name}", f"The {a} {b} of a {rng.choice(WORDS)}.")
                nodes.append(cls)
                edges.append(Edge(file_node.id, cls.id, "DEFINES", "EXTRACTED", 1.0, "defined here", path, i * 10))
                continue
            name = f"{a}_{b}_{i}" if i % 2 else f"{a}{b.title()}{i}"
            assert cls is not None
            qualified = f"{cls.qualified_name}.{name}"
            method = Node(f"method:{path}:{cls.name}.{name}", "Method", name, qualified, path, i * 10,
                          i * 10 + 8, "python", f"def {name}(self)", f"Return the {a} for {b}.")
            nodes.append(method)
            edges.append(Edge(cls.id, method.id, "DEFINES", "EXTRACTED", 1.0, "defined in class", path, i * 10))
    nodes = nodes[:node_count]
    ids = [n.id for n in nodes]
    files = [n for n in nodes if n.kind == "File"]
    while len(edges) < edge_count:
        if rng.random() < 0.85:
            s, t = rng.choice(ids), rng.choice(ids)
            edges.append(Edge(s, t, "CALLS", "INFERRED", 0.8, "call resolved by name", None, 1))
        else:
            s, t = rng.choice(files).id, rng.choice(files).id
            edges.append(Edge(s, t, "IMPORTS", "EXTRACTED", 1.0, "import statement", None, 1))
    return nodes, edges[:edge_count]


def timed(call: Callable[[], object], runs: int) -> tuple[float, float]:
    """p50 and p95 in milliseconds."""
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        samples.append((time.perf_counter() - started) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.95) - 1]


def load(store: GraphStore, project: str, nodes: list[Node], edges: list[Edge], batch_rows: int) -> None:
    """One atomic batch, or (batch_rows > 0) node batches then edge batches of that many rows."""
    if not batch_rows:
        store.apply(project, GraphBatch(nodes=nodes, edges=edges, clear=True))
        return
    for start in range(0, len(nodes), batch_rows):
        store.apply(project, GraphBatch(nodes=nodes[start : start + batch_rows]))
    for start in range(0, len(edges), batch_rows):
        store.apply(project, GraphBatch(edges=edges[start : start + batch_rows]))


def run(
    store: GraphStore, project: str, nodes: list[Node], edges: list[Edge], runs: int, batch_rows: int
) -> None:
    rng = random.Random(11)
    started = time.perf_counter()
    load(store, project, nodes, edges, batch_rows)
    how = f"in batches of {batch_rows:,} rows" if batch_rows else "in one atomic batch"
    print(f"  apply {len(nodes):,} nodes + {len(edges):,} edges {how}: "
          f"{time.perf_counter() - started:.1f} s")

    sample = [rng.choice(nodes) for _ in range(runs)]
    cursor = iter(sample * 20)
    queries = [
        *(n.name for n in sample[:20]),  # exact names
        *(n.name[:4] for n in sample[20:40]),  # short prefixes (many candidates)
        "query set", "http response", "getObject", "return the order", "cache",
    ]
    qcursor = iter(queries * runs)

    def report(label: str, call: Callable[[], object]) -> None:
        p50, p95 = timed(call, runs)
        print(f"  {label:<28} p50 {p50:7.2f} ms   p95 {p95:7.2f} ms")

    report("get_node", lambda: store.get_node(project, next(cursor).id))
    report("edges_of out (limit 50)", lambda: store.edges_of(project, next(cursor).id, "out", limit=50))
    report("edges_of in (limit 50)", lambda: store.edges_of(project, next(cursor).id, "in", limit=50))
    report("search (mixed queries)", lambda: store.search([project], next(qcursor), limit=20))
    report("search exact name", lambda: store.search([project], next(cursor).name, limit=20))
    report("find_by_name Class.method", lambda: store.find_by_name(
        project, ".".join(next(cursor).qualified_name.rsplit(".", 2)[-2:])))
    for query in ("get", "query set", "return the order"):
        p50, _ = timed(lambda q=query: store.search([project], q, limit=20), 20)
        _, total = store.search([project], query, limit=20)
        print(f"  search {query!r:<21} p50 {p50:7.2f} ms   ({total:,} matches)")

    path = nodes[len(nodes) // 2].file
    file_nodes = [n for n in nodes if n.file == path]
    ids = {n.id for n in file_nodes}
    file_edges = [e for e in edges if e.source in ids]
    started = time.perf_counter()
    store.apply(project, GraphBatch(remove_files=[path], nodes=file_nodes, edges=file_edges))
    print(f"  replace one file ({len(file_nodes)} nodes, {len(file_edges)} edges): "
          f"{(time.perf_counter() - started) * 1000:.0f} ms")
    started = time.perf_counter()
    counts = store.counts(project)
    print(f"  counts ({counts.nodes:,} nodes, {counts.edges:,} edges): "
          f"{(time.perf_counter() - started) * 1000:.0f} ms")
    started = time.perf_counter()
    store.delete_project(project)
    print(f"  delete_project: {time.perf_counter() - started:.1f} s")


CYPHER_QUERIES = [
    "MATCH (n:CodeNode) RETURN count(n) AS c",
    "MATCH (n:CodeNode) RETURN n.kind AS kind, count(*) AS c ORDER BY c DESC, kind",
    "MATCH (c)-[:CALLS]->(f:CodeNode {name: 'get_queryset'}) RETURN c.qualified_name AS caller ORDER BY caller",
    "MATCH (f:CodeNode {qualified_name: 'django.db.models.query.QuerySet.filter'})-[:CALLS]->(g) RETURN g.qualified_name AS callee ORDER BY callee",
    "MATCH (c:CodeNode {kind: 'Class'})-[:INHERITS]->(:CodeNode {name: 'Model'}) RETURN c.qualified_name AS cls ORDER BY cls",
    "MATCH (c:CodeNode {kind: 'Class'})-[:INHERITS*1..3]->(:CodeNode {name: 'Field'}) RETURN count(DISTINCT c) AS fields",
    "MATCH (f:CodeNode {kind: 'File'})-[:IMPORTS]->(m:CodeNode {qualified_name: 'django.db.models'}) RETURN f.file AS file ORDER BY file",
    "MATCH (:CodeNode)-[:CALLS]->(f:CodeNode) RETURN f.qualified_name AS f, count(*) AS calls ORDER BY calls DESC, f LIMIT 10",
    "MATCH (f:CodeNode {kind: 'Function'}) WHERE NOT EXISTS { (f)<-[:CALLS]-() } RETURN count(f) AS unused",
    "MATCH p = shortestPath((a:CodeNode {qualified_name: 'django.shortcuts.render'})-[:CALLS*..4]->(b:CodeNode {name: 'render_to_string'})) RETURN length(p) AS hops",
    "CALL db.labels()",
    "CALL db.relationshipTypes()",
    "CALL db.propertyKeys()",
    "MATCH (c:CodeNode {kind: 'Class', name: 'QuerySet'})-[:DEFINES]->(m) RETURN m.name AS method ORDER BY method",
    "MATCH (n:CodeNode) WHERE n.name STARTS WITH 'get_' RETURN count(n) AS c",
    "MATCH (f:CodeNode {kind: 'File'}) RETURN f.file AS file, f.end_line AS lines ORDER BY lines DESC, file LIMIT 10",
    "MATCH (d:CodeNode {kind: 'Decorator'})-[:APPLIES_TO]->(f) RETURN d.name AS decorator, count(*) AS uses ORDER BY uses DESC, decorator LIMIT 10",
    "MATCH (n:CodeNode {id: 'class:db/models/query.py:QuerySet'}) RETURN n",
    "MATCH (a)-[:CALLS]->(b)-[:CALLS]->(c:CodeNode {name: 'save'}) RETURN count(*) AS c",
    "MATCH (c:CodeNode {kind: 'Class', name: 'QuerySet'}) OPTIONAL MATCH (c)-[:DEFINES]->(m) RETURN c.qualified_name AS cls, count(m) AS members",
]


def cypher_bench(args: argparse.Namespace) -> None:
    """p50 per query, embedded vs Neo4j, alternated in one run (see the module docstring)."""
    from rhumbline.cypher.sqlite import runner as sql_runner
    from rhumbline.cypher.parser import parse
    from rhumbline.cypher.neo4j.scoping import scoped
    from rhumbline.cypher.sqlite.compiler import compile_query
    from rhumbline.ingest.build import build_graph
    from rhumbline.stores.graph.sqlite.store import SqliteGraphStore

    project = f"bench/django{uuid.uuid4().hex[:6]}"
    built = build_graph(corpus.django(), project, history=False)
    batch = GraphBatch(nodes=list(built.nodes), edges=list(built.edges), clear=True)
    print(f"django/: {len(batch.nodes):,} nodes, {len(batch.edges):,} edges")
    with tempfile.TemporaryDirectory() as tmp:
        store = SqliteGraphStore(Path(tmp) / "graph.sqlite3", timeout=600)
        store.ensure_schema()
        store.apply(project, batch)
        params = {"project": project, "projects": [project]}
        compiled = [compile_query(parse(q), params) for q in CYPHER_QUERIES]
        backends: dict[str, Callable[[int], int]] = {
            "embedded": lambda i: len(
                sql_runner.run(store, compiled[i], scope=[project], limit=1000, timeout=30).rows
            )
        }
        neo = runner = None
        if args.neo4j:
            from rhumbline.cypher.neo4j.runner import CypherRunner, Scope
            from rhumbline.stores.graph.factory import Neo4jCredentials
            from rhumbline.stores.graph.neo4j.store import Neo4jGraphStore

            neo = Neo4jGraphStore(args.neo4j, args.neo4j_user, args.neo4j_password, timeout=600)
            neo.ensure_schema()
            neo.apply(project, batch)
            credentials = Neo4jCredentials(args.neo4j, args.neo4j_user, args.neo4j_password, "neo4j")
            runner = CypherRunner(credentials, dedicated=False, connect_timeout=10)
            texts = [scoped(parse(q)) for q in CYPHER_QUERIES]
            scope = Scope(projects=(project,), project=project)
            backends["neo4j"] = lambda i: len(
                runner.run(texts[i], {}, limit=1000, timeout=30, visible={project}, scope=scope).rows  # type: ignore[union-attr]
            )
        try:
            names = list(backends)
            print(f"{uptime()}; {args.runs} runs per query, backends alternated")
            print(f"  {'#':>2} " + " ".join(f"{name + ' p50 ms':>16}" for name in names) + "  rows  query")
            medians: dict[str, list[float]] = {name: [] for name in names}
            for i, text in enumerate(CYPHER_QUERIES):
                samples: dict[str, list[float]] = {name: [] for name in names}
                rows = {name: backends[name](i) for name in names}  # warm-up, and the answers agree
                for _ in range(args.runs):
                    for name in names:
                        started = time.perf_counter()
                        backends[name](i)
                        samples[name].append((time.perf_counter() - started) * 1000)
                for name in names:
                    medians[name].append(statistics.median(samples[name]))
                agree = "" if len(set(rows.values())) == 1 else f"  ROWS DIFFER {rows}"
                print(f"  {i + 1:>2} " + " ".join(f"{medians[n][-1]:16.2f}" for n in names)
                      + f"  {rows['embedded']:>4}  {text[:70]}{agree}")
            print("  median of the p50s: " + ", ".join(f"{n} {statistics.median(medians[n]):.2f} ms" for n in names))
            if "neo4j" in medians:
                faster = sum(e <= n for e, n in zip(medians["embedded"], medians["neo4j"]))
                print(f"  embedded no slower than Neo4j on {faster} of {len(CYPHER_QUERIES)} queries")
            print(uptime())
        finally:
            store.close()
            if runner is not None:
                runner.close()
            if neo is not None:
                neo.delete_project(project)
                neo.close()


class _BoltMessages(logging.Handler):
    """The driver's debug lines for Bolt messages: ` C: RUN ...` (client), ` S: SUCCESS ...`."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        line = record.getMessage()
        for side in (" C: ", " S: "):
            if side in line:
                self.lines.append(line[line.find(side) :].strip()[:100])


def round_trips_bench(args: argparse.Namespace) -> None:
    """Socket writes and Bolt messages of one warm call per case, through the tool handler."""
    if not args.home:
        raise SystemExit("--round-trips needs --home DIR (a home with the project ingested into Neo4j)")
    os.environ.update(
        RHUMBLINE_HOME=args.home, POWERTOOLS_METRICS_DISABLED="true", RHUMBLINE_GRAPH_BACKEND="neo4j",
        RHUMBLINE_NEO4J_URI=args.neo4j or "bolt://127.0.0.1:7687", RHUMBLINE_NEO4J_PASSWORD=args.neo4j_password,
    )  # fmt: skip
    # The driver's socket class is private: a bench may lean on it, the product does not.
    from neo4j._async_compat.network._bolt_socket import BoltSocketBase

    from rhumbline.contract import INVOCATION_CONTRACT
    from rhumbline.runtime.handler import handle

    writes = [0]
    send = BoltSocketBase.sendall

    def counted(self, data):  # type: ignore[no-untyped-def]
        writes[0] += 1
        return send(self, data)

    BoltSocketBase.sendall = counted  # type: ignore[method-assign]
    messages = _BoltMessages()
    driver_log = logging.getLogger("neo4j")
    driver_log.setLevel(logging.DEBUG)
    driver_log.addHandler(messages)
    caller = {"principal": "bench", "token_id": "tk_bench", "projects": [args.project], "scopes": ["read", "cypher"]}
    print(f"{'call':<32}{'trips':>6}{'sent':>6}   (socket writes; Bolt messages sent)")
    chosen = [c for c in bench_cases.FLOOR + bench_cases.CODE + bench_cases.QUERY if c.tool != "tools/list"]
    for case in chosen:
        event = {
            "contract": INVOCATION_CONTRACT, "tool": case.tool, "arguments": bench_cases.with_project(case, args.project),
            "caller": caller, "request_id": "bench", "deadline_ms": int((time.time() + 3600) * 1000),
        }  # fmt: skip
        for _ in range(3):
            handle(case.tool, event)
        writes[0] = 0
        messages.lines.clear()
        outcome = handle(case.tool, event)
        if not outcome["ok"]:
            raise SystemExit(f"{case.label} failed: {outcome['error']}")
        sent = sum(line.startswith("C:") for line in messages.lines)
        print(f"{case.label:<32}{writes[0]:>6}{sent:>6}")
        if args.v:
            for line in messages.lines:
                print("    " + line)


def key_guard_bench(args: argparse.Namespace) -> None:
    """Each statement raw (the physical key bound directly) and guarded, alternated call by call."""
    from rhumbline.stores.graph.neo4j import cypher
    from rhumbline.stores.graph.neo4j.keys import KeyBinder
    from rhumbline.stores.graph.neo4j.lookups import NODES_IN_FILE
    from rhumbline.stores.graph.neo4j.store import Neo4jGraphStore

    store = Neo4jGraphStore(args.neo4j or "bolt://127.0.0.1:7687", args.neo4j_user, args.neo4j_password, timeout=60.0)
    store.ensure_schema()
    project = f"bench/guard{uuid.uuid4().hex[:8]}"
    nodes, edges = synthetic_graph(4_000, 12_000)
    store.apply(project, GraphBatch(nodes=nodes, edges=edges, clear=True, version=1))
    physical = store._keys.active([project])[project]
    binder = KeyBinder(lambda graphs: {g: physical for g in graphs})
    some = nodes[len(nodes) // 2]
    statements = {
        "get_node": (cypher.GET_NODE, {"id": some.id}),
        "node_with_edges": (cypher.NODE_WITH_EDGES, {"id": some.id, "limit": 20, "out_offset": 0, "in_offset": 0}),
        "find_by_name": (cypher.FIND_BY_NAME, {"name": some.name, "suffix": ("." + some.name)[::-1], "kinds": None, "limit": 20}),
        "nodes_in_file": (NODES_IN_FILE, {"path": some.file, "kinds": None, "limit": 50, "offset": 0}),
    }
    runs = args.runs if args.runs != 500 else 300
    try:
        with store._session(write=False) as session:
            print(f"project {physical}: {len(nodes)} nodes, {len(edges)} edges; {runs} calls each")
            print(f"{'statement':18} {'wall raw':>9} {'wall guard':>11} {'server raw':>11} {'server guard':>13}")
            for name, (text, params) in statements.items():
                timings: dict[str, tuple[list[float], list[float]]] = {"raw": ([], []), "guard": ([], [])}
                guarded_text, guarded, _ = binder.bind(text, {"project": project, **params})
                variants = {"raw": (text, {"project": physical, **params}), "guard": (guarded_text, guarded)}
                for call in range(runs + 20):
                    for variant, (statement, values) in variants.items():
                        started = time.perf_counter()
                        result = session.run(statement, values)
                        list(result)
                        summary = result.consume()
                        wall = (time.perf_counter() - started) * 1000
                        if call >= 20:  # warm-up: plans cached, pages in memory
                            timings[variant][0].append(wall)
                            timings[variant][1].append(summary.result_available_after + summary.result_consumed_after)
                (raw_wall, raw_server), (guard_wall, guard_server) = timings["raw"], timings["guard"]
                print(f"{name:18} {statistics.median(raw_wall):9.2f} {statistics.median(guard_wall):11.2f}"
                      f" {statistics.mean(raw_server):11.2f} {statistics.mean(guard_server):13.2f}")
            print(uptime())
    finally:
        store.delete_project(project)
        store.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--edges", type=int, default=400_000)
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--neo4j", help="Bolt URI of a Neo4j server to measure too")
    parser.add_argument("--neo4j-user", default="neo4j")
    parser.add_argument("--neo4j-password", default=os.environ.get("RHUMBLINE_TEST_NEO4J_PASSWORD", "rhumbline-test"))
    parser.add_argument(
        "--neo4j-batch-rows", type=int, default=20_000,
        help="rows per apply on Neo4j (one transaction each must fit db.memory.transaction.max)",
    )
    parser.add_argument("--cypher", action="store_true", help="the query tool's Cypher on Django, embedded vs Neo4j")
    parser.add_argument("--round-trips", action="store_true", help="Bolt round trips per warm tool call (with --home)")
    parser.add_argument("--home", help="--round-trips: a home with the project ingested into Neo4j")
    parser.add_argument("--project", default="bench/django", help="--round-trips: the project in --home")
    parser.add_argument("-v", action="store_true", help="--round-trips: print every Bolt message of the counted call")
    parser.add_argument("--key-guard", action="store_true", help="the physical-key guard's cost per Neo4j read")
    args = parser.parse_args()
    if args.round_trips:
        round_trips_bench(args)
        return 0
    if args.key_guard:
        key_guard_bench(args)
        return 0
    if args.cypher:
        if args.runs == parser.get_default("runs"):
            args.runs = 15
        cypher_bench(args)
        return 0

    started = time.perf_counter()
    nodes, edges = synthetic_graph(args.nodes, args.edges)
    print(f"synthetic graph: {len(nodes):,} nodes, {len(edges):,} edges "
          f"({time.perf_counter() - started:.1f} s to generate)")

    from rhumbline.stores.graph.sqlite.store import SqliteGraphStore

    with tempfile.TemporaryDirectory() as tmp:
        store = SqliteGraphStore(Path(tmp) / "graph.sqlite3", timeout=600)
        store.ensure_schema()
        print("sqlite")
        run(store, "bench/sqlite", nodes, edges, args.runs, batch_rows=0)
        store.close()

    if args.neo4j:
        from rhumbline.stores.graph.neo4j.store import Neo4jGraphStore

        neo = Neo4jGraphStore(args.neo4j, args.neo4j_user, args.neo4j_password, timeout=60)
        neo.ensure_schema()
        print(f"neo4j ({args.neo4j})")
        project = f"bench/{uuid.uuid4().hex[:8]}"
        try:
            run(neo, project, nodes, edges, args.runs, args.neo4j_batch_rows)
        finally:
            neo.delete_project(project)
            neo.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
