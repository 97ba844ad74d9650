"""Graph store load and query timings on a synthetic code graph (default 100k nodes / 400k edges).

    .venv/bin/python bench/graph_store.py [--nodes 100000] [--edges 400000]
        [--neo4j bolt://127.0.0.1:7687 --neo4j-password rhumbline-test]

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
    args = parser.parse_args()

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
