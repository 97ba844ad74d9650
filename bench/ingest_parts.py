"""CPU seconds of the parts of a full ingest, on one built graph: comparable on a loaded machine.

    PYTHONPATH=<checkout>/layers/shared .venv/bin/python bench/ingest_parts.py [--target django|sdist]
        [--repeat 3] [--neo4j bolt://127.0.0.1:7687]

Builds the target's graph once (bench/.corpus, as bench/ingest.py), then times, best of
--repeat, this process's CPU (time.process_time) and wall for: indexed text of every node
(words.node_text), betweenness of the dependency edges, and a clearing `apply` into a fresh SQLite
file (and into Neo4j with --neo4j: client CPU; the server's work shows in the wall time only).
Phase 1 is measured as the CPU of parsing every file in this process plus the pickling a pool
hop costs (what the workers send back, and the parent's loading of it).
Run it with two checkouts on the PYTHONPATH, back to back, to compare them.
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ingest import TARGETS, ensure_corpus  # noqa: E402 — bench/ingest.py, beside this file


def _best(repeat: int, run: Callable[[], object]) -> tuple[float, float]:
    """(CPU, wall) seconds of the fastest of `repeat` runs, by CPU."""
    found = []
    for _ in range(repeat):
        cpu, wall = time.process_time(), time.perf_counter()
        run()
        found.append((time.process_time() - cpu, time.perf_counter() - wall))
    return min(found)


def _phase_one(root: Path) -> Callable[[], object]:
    from rhumbline.ingest import parallel
    from rhumbline.ingest.discover.walk import discover

    paths = discover(root, ()).paths
    encoded = getattr(parallel, "read_all_encoded", None)

    def run() -> object:
        if encoded is not None:  # this checkout's pool hop: bytes of encoded facts
            from rhumbline.ingest.discover.read import read_sources_encoded

            sent = pickle.dumps(read_sources_encoded(str(root), paths), protocol=5)
            return [parallel._decoded(pickle.loads(sent))]  # noqa: SLF001
        from rhumbline.ingest.facts_codec import encode_facts
        from rhumbline.ingest.discover.read import read_sources

        outcomes = pickle.loads(pickle.dumps(read_sources(str(root), paths), protocol=5))
        return [encode_facts(o.code) for o in outcomes if getattr(o, "code", None) is not None]

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", choices=sorted(TARGETS), default="django")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--neo4j", help="bolt URI: also a clearing apply into Neo4j")
    args = parser.parse_args()
    ensure_corpus()

    import rhumbline
    from rhumbline import centrality
    from rhumbline.ingest.build import build_graph
    from rhumbline.stores.graph.model import GraphBatch
    from rhumbline.stores.graph.sqlite.store import SqliteGraphStore
    from rhumbline.stores.graph.words import node_text

    print(f"# rhumbline from {Path(rhumbline.__file__).parent}")
    root = TARGETS[args.target].resolve()
    built = build_graph(root, "bench/parts", workers=2, history=False)
    nodes, edges = built.nodes, built.edges
    print(f"{args.target}: {len(nodes)} nodes, {len(edges)} edges")
    pairs = [(e.source, e.target) for e in edges if e.relation in centrality.DEPENDS_ON]
    pairs += [(e.target, e.source) for e in edges if e.relation in centrality.DEPENDED_ON_BY]

    def sqlite_apply() -> None:
        with tempfile.TemporaryDirectory(prefix="rhumbline-parts-") as scratch:
            store = SqliteGraphStore(Path(scratch) / "graph.sqlite3", timeout=120.0)
            store.ensure_schema()
            store.apply("bench/parts", GraphBatch(nodes=nodes, edges=edges, clear=True, version=1))
            store.close()

    parts: dict[str, Callable[[], object]] = {
        "phase 1 (parse, one process + pool hop)": _phase_one(root),
        "node text (words.node_text)": lambda: [
            node_text(n.name, n.qualified_name, n.file, n.docstring) for n in nodes
        ],
        "betweenness": lambda: centrality.betweenness(pairs, seconds=60.0, seed="bench/parts"),
        "sqlite apply (clear)": sqlite_apply,
    }
    if args.neo4j:
        from rhumbline.stores.graph.neo4j.store import Neo4jGraphStore

        password = os.environ.get("RHUMBLINE_TEST_NEO4J_PASSWORD", "rhumbline-test")
        neo4j = Neo4jGraphStore(args.neo4j, "neo4j", password, timeout=600.0)
        neo4j.ensure_schema()
        project = f"bench/parts-{uuid.uuid4().hex[:8]}"

        def neo4j_apply() -> None:
            neo4j.apply(project, GraphBatch(nodes=nodes, edges=edges, clear=True, version=1))

        parts["neo4j apply (clear; client CPU)"] = neo4j_apply
    try:
        print(f"{'part':<42}{'cpu s':>8}{'wall s':>8}")
        for name, run in parts.items():
            cpu, wall = _best(args.repeat, run)
            print(f"{name:<42}{cpu:>8.3f}{wall:>8.3f}")
    finally:
        if args.neo4j:
            neo4j.delete_project(project)
            neo4j.close()


if __name__ == "__main__":
    main()
