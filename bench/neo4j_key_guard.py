"""What the physical-key guard costs a Neo4j read (stores/graph/neo4j/keys.py).

    PYTHONPATH=layers/shared .venv/bin/python bench/neo4j_key_guard.py [--neo4j URI] [--calls 300]

Writes a synthetic project (staged, as a full ingest does), then runs the same read statements
with `$project` bound to the physical key directly (no guard: what the statement cost before) and
through the store's binding (guard prefix), alternating call by call so that machine load hits
both alike. Prints, per statement, the median client wall time and the mean server time
(Neo4j's result_available_after + result_consumed_after, whole milliseconds each) of each, in ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import uuid

from rhumbline.stores.graph.neo4j import cypher
from rhumbline.stores.graph.neo4j.keys import KeyBinder
from rhumbline.stores.graph.neo4j.lookups import NODES_IN_FILE
from rhumbline.stores.graph.neo4j.store import Neo4jGraphStore
from rhumbline.stores.graph.model import Edge, GraphBatch, Node


def _graph(files: int) -> tuple[list[Node], list[Edge]]:
    nodes, edges = [], []
    for f in range(files):
        path = f"pkg/m{f}.py"
        file_id = f"file:{path}"
        nodes.append(Node(id=file_id, kind="File", name=f"m{f}.py", qualified_name=path, file=path))
        for i in range(20):
            fid = f"function:{path}:f{i}"
            nodes.append(Node(id=fid, kind="Function", name=f"f{i}", qualified_name=f"pkg.m{f}.f{i}", file=path))
            edges.append(Edge(source=file_id, target=fid, relation="DEFINES", confidence="EXTRACTED",
                              confidence_score=1.0, explanation="defined"))
            if i:
                edges.append(Edge(source=f"function:{path}:f{i - 1}", target=fid, relation="CALLS",
                                  confidence="EXTRACTED", confidence_score=1.0, explanation="call"))
    return nodes, edges


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--neo4j", default=os.environ.get("RHUMBLINE_TEST_NEO4J_URI", "bolt://127.0.0.1:7687"))
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    password = os.environ.get("RHUMBLINE_TEST_NEO4J_PASSWORD", "rhumbline-test")
    store = Neo4jGraphStore(args.neo4j, "neo4j", password, timeout=60.0)
    store.ensure_schema()
    project = f"bench/guard{uuid.uuid4().hex[:8]}"
    nodes, edges = _graph(200)
    store.apply(project, GraphBatch(nodes=nodes, edges=edges, clear=True, version=1))
    physical = store._keys.active([project])[project]
    binder = KeyBinder(lambda graphs: {g: physical for g in graphs})
    statements = {
        "get_node": (cypher.GET_NODE, {"id": "function:pkg/m7.py:f3"}),
        "node_with_edges": (cypher.NODE_WITH_EDGES, {"id": "function:pkg/m7.py:f3", "limit": 20,
                                                     "out_offset": 0, "in_offset": 0}),
        "find_by_name": (cypher.FIND_BY_NAME, {"name": "f3", "suffix": ".f3"[::-1], "kinds": None, "limit": 20}),
        "nodes_in_file": (NODES_IN_FILE, {"path": "pkg/m7.py", "kinds": None, "limit": 50, "offset": 0}),
    }
    try:
        with store._session(write=False) as session:
            print(f"project {physical}: {len(nodes)} nodes, {len(edges)} edges; {args.calls} calls each,"
                  f" load average {os.getloadavg()[0]:.2f}")
            print(f"{'statement':18} {'wall raw':>9} {'wall guard':>11} {'server raw':>11} {'server guard':>13}")
            for name, (text, params) in statements.items():
                timings: dict[str, tuple[list[float], list[float]]] = {"raw": ([], []), "guard": ([], [])}
                guarded_text, guarded, _ = binder.bind(text, {"project": project, **params})
                variants = {"raw": (text, {"project": physical, **params}), "guard": (guarded_text, guarded)}
                for call in range(args.calls + 20):
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
            print(f"load average at the end {os.getloadavg()[0]:.2f}")
    finally:
        store.delete_project(project)
        store.close()


if __name__ == "__main__":
    main()
