"""Correctness guard for ingest speed work: digests of everything a full ingest produces.

    PYTHONPATH=<checkout>/layers/shared .venv/bin/python bench/ingest_identity.py [TREE] [--neo4j URI]

Ingests TREE (default: Django 5.1's `django/`, bench/.corpus) into fresh stores and prints one
JSON object of SHA-256 digests: the built graph (every node and edge attribute, sorted), the
stored graph read back from the store (every stored column but the SQLite row ids, stubs
included), the version's snapshot (decoded, so a different compression still compares equal),
the facts cache (decoded) and the centrality scores. Run it with the main checkout and with a
branch on the PYTHONPATH: the outputs must be identical.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from hashlib import sha256
from pathlib import Path

DEFAULT_TREE = Path(__file__).resolve().parent / ".corpus" / "Django-5.1" / "django"


def _digest(rows: object) -> str:
    return sha256(repr(rows).encode("utf-8", "surrogatepass")).hexdigest()


def _ordered(facts: object) -> object:
    """Facts with their call sites sorted: tree-sitter lists two calls that start at the same
    byte (`super().m(...)` and its inner `super()`) in either order from run to run, which
    changes no edge."""
    calls = getattr(facts, "calls", None)
    return facts._replace(calls=tuple(sorted(calls))) if calls is not None else facts


def _sqlite_rows(path: Path, project: str) -> tuple[list, list]:
    import sqlite3

    conn = sqlite3.connect(path)
    columns = [r[1] for r in conn.execute("SELECT * FROM pragma_table_info('nodes')") if r[1] != "rid"]
    nodes = sorted(
        conn.execute(f"SELECT {', '.join(columns)} FROM nodes WHERE project = ?", (project,)),
        key=lambda r: r[columns.index("id")],
    )
    edges = sorted(
        conn.execute(
            "SELECT s.id, e.relation, t.id, e.confidence, e.confidence_score, e.explanation,"
            " e.file, e.line, e.properties FROM edges AS e JOIN nodes AS s ON s.rid = e.source"
            " JOIN nodes AS t ON t.rid = e.target WHERE s.project = ?",
            (project,),
        ),
        key=lambda r: r[:3],
    )
    fts = conn.execute(
        "SELECT count(*) FROM node_fts WHERE rowid IN (SELECT rid FROM nodes WHERE project = ?)",
        (project,),
    ).fetchone()[0]
    conn.close()
    return nodes, edges + [("fts rows", fts)]


def _neo4j_rows(store, project: str) -> tuple[list, list]:
    nodes = store._read(  # noqa: SLF001 — a guard script may look inside
        "MATCH (n:CodeNode {project: $project}) RETURN properties(n) AS p", project=project
    )
    edges = store._read(  # noqa: SLF001
        "MATCH (s:CodeNode {project: $project})-[r]->(t:CodeNode)"
        " RETURN s.id AS s, type(r) AS rel, t.id AS t, properties(r) AS p",
        project=project,
    )
    return (
        sorted((_logical(r["p"]) for r in nodes), key=repr),
        sorted(((r["s"], r["rel"], r["t"], _logical(r["p"])) for r in edges), key=repr),
    )


def _logical(properties: dict) -> list:
    """Sorted properties, `project` as the project's slug: a full write stages the graph under a
    physical key of its own (`owner/name@<version>.<token>`, a random token: neo4j/staged.py)."""
    return sorted({**properties, "project": properties["project"].split("@", 1)[0]}.items())


def identity(tree: Path, neo4j_uri: str | None) -> dict[str, object]:
    from rhumbline import centrality
    from rhumbline.ingest.snapshots import storage
    from rhumbline.ingest.build import build_graph
    from rhumbline.ingest.facts_codec import decode_facts
    from rhumbline.ingest.snapshots.facts_cache import FactCache
    from rhumbline.ingest.pipeline import ingest_local
    from rhumbline.stores.relational.engine import create_engine_from_url
    from rhumbline.stores.relational.migrate import upgrade

    # A fixed slug: node attributes (the repository's name) depend on it.
    project = "bench/identity"
    figures: dict[str, object] = {}
    built = build_graph(tree, project, workers=2)
    figures["built_nodes"] = _digest(sorted(repr(n) for n in built.nodes))
    figures["built_edges"] = _digest(sorted(repr(e) for e in built.edges))
    with tempfile.TemporaryDirectory(prefix="rhumbline-identity-") as scratch:
        engine = create_engine_from_url(f"sqlite:///{Path(scratch) / 'rhumbline.sqlite3'}")
        upgrade(engine)
        if neo4j_uri:
            from rhumbline.stores.graph.neo4j.store import Neo4jGraphStore

            password = os.environ.get("RHUMBLINE_TEST_NEO4J_PASSWORD", "rhumbline-test")
            store = Neo4jGraphStore(neo4j_uri, "neo4j", password, timeout=300.0)
        else:
            from rhumbline.stores.graph.sqlite.store import SqliteGraphStore

            store = SqliteGraphStore(Path(scratch) / "graph.sqlite3", timeout=120.0)
        store.ensure_schema()
        if neo4j_uri:
            store.delete_project(project)  # left over by an interrupted run
        try:
            summary = ingest_local(tree, project, store=store, engine=engine, workers=2)
            figures["counts"] = [summary.node_count, summary.edge_count]
            if neo4j_uri:
                nodes, edges = _neo4j_rows(store, project)
            else:
                nodes, edges = _sqlite_rows(Path(scratch) / "graph.sqlite3", project)
            figures["stored_nodes"], figures["stored_edges"] = _digest(nodes), _digest(edges)
            snapshot = storage.load(engine, project, summary.version)
            figures["snapshot"] = _digest((sorted(snapshot.nodes.items()), sorted(snapshot.edges.items(), key=repr)))
            cache = FactCache.load(engine, project)
            figures["facts_cache"] = _digest(
                sorted((key, _ordered(decode_facts(blob))) for key, blob in cache._blobs.items())  # noqa: SLF001
            )
            scores = centrality.scores(store, engine, project)
            figures["centrality"] = _digest(sorted(scores.values.items()))
            figures["centrality_exact"] = scores.exact
        finally:
            if neo4j_uri:
                store.delete_project(project)
            store.close()
            engine.dispose()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tree", nargs="?", type=Path, default=DEFAULT_TREE)
    parser.add_argument("--neo4j", help="bolt URI: ingest into Neo4j instead of SQLite")
    args = parser.parse_args()
    import rhumbline

    print(f"# rhumbline from {Path(rhumbline.__file__).parent}", file=sys.stderr)
    print(json.dumps(identity(args.tree.resolve(), args.neo4j), indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
