"""Graph store load and query timings on a synthetic code graph (default 100k nodes / 400k edges).

    .venv/bin/python bench/graph_store.py [--nodes 100000] [--edges 400000]
        [--neo4j bolt://127.0.0.1:7687 --neo4j-password rhumbline-test]
    .venv/bin/python bench/graph_store.py --cypher [--runs 15]
        [--neo4j bolt://127.0.0.1:7687 --neo4j-password rhumbline-test]

--cypher: the `query` tool's Cypher on Django 5.1's `django/` (ingested into both stores): p50 of
each of CYPHER_QUERIES on the embedded store (compiled to SQL) and on Neo4j (the scoped text),
alternated in one run, with the answers' row counts checked equal.

SQLite always runs (in a temporary file); Neo4j runs when --neo4j is given, in a project of its
own that is deleted afterwards. Reported: loading the graph (SQLite: one atomic `apply`; Neo4j:
batches of --neo4j-batch-rows, as one transaction must fit its memory limit), per-call latency
(p50 / p95 over many calls) of get_node, edges_of, search and find_by_name, replacing one file
(remove_files + its nodes and edges), counts, and delete_project.

Not part of the test suite: timings depend on the machine.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

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
    import os

    from ingest import SDIST, ensure_corpus  # noqa: E402 - bench/ is the script's directory

    from rhumbline.cypher import sql_runner
    from rhumbline.cypher.parser import parse
    from rhumbline.cypher.scoping import scoped
    from rhumbline.cypher.sql import compile_query
    from rhumbline.ingest.build import build_graph
    from rhumbline.stores.graph.sqlite.store import SqliteGraphStore

    ensure_corpus()
    project = f"bench/django{uuid.uuid4().hex[:6]}"
    built = build_graph(SDIST / "django", project, history=False)
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
            from rhumbline.cypher.runner import CypherRunner, Scope
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
            print(f"load average {os.getloadavg()[0]:.1f}; {args.runs} runs per query, backends alternated")
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
            print(f"load average {os.getloadavg()[0]:.1f} at the end")
        finally:
            store.close()
            if runner is not None:
                runner.close()
            if neo is not None:
                neo.delete_project(project)
                neo.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--edges", type=int, default=400_000)
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--neo4j", help="Bolt URI of a Neo4j server to measure too")
    parser.add_argument("--neo4j-user", default="neo4j")
    parser.add_argument("--neo4j-password", default="rhumbline-test")
    parser.add_argument(
        "--neo4j-batch-rows", type=int, default=20_000,
        help="rows per apply on Neo4j (one transaction each must fit db.memory.transaction.max)",
    )
    parser.add_argument("--cypher", action="store_true", help="the query tool's Cypher on Django, embedded vs Neo4j")
    args = parser.parse_args()
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
