"""The whole stored graph of a project, read straight from either backend (test-only)."""

from __future__ import annotations

import json
from typing import Any

from rhumbline.stores.graph.protocol import GraphStore
from rhumbline.stores.graph.rows import NODE_FIELDS

EDGE_FIELDS = ("confidence", "confidence_score", "explanation", "file", "line")


def dump(store: GraphStore, project: str) -> tuple[dict[str, tuple], dict[tuple[str, str, str], tuple]]:
    """({node id: fields}, {(source, relation, target): evidence + properties}); stubs excluded
    from the nodes, dangling edges included."""
    if store.backend == "sqlite":
        return _dump_sqlite(store, project)
    return _dump_neo4j(store, project)


def _dump_sqlite(store: Any, project: str) -> tuple[dict, dict]:
    conn = store._connection()
    columns = ", ".join(NODE_FIELDS)
    nodes = {
        row[0]: tuple(row[1:])
        for row in conn.execute(
            f"SELECT {columns} FROM nodes WHERE project = ? AND kind IS NOT NULL", (project,)
        )
    }
    edges = {}
    for row in conn.execute(
        "SELECT s.id, e.relation, t.id, e.confidence, e.confidence_score, e.explanation, e.file,"
        " e.line, e.properties FROM edges AS e JOIN nodes AS s ON s.rid = e.source"
        " JOIN nodes AS t ON t.rid = e.target WHERE s.project = ?",
        (project,),
    ):
        properties = json.loads(row[8]) if row[8] else None
        edges[(row[0], row[1], row[2])] = (*row[3:8], properties)
    return nodes, edges


def _dump_neo4j(store: Any, project: str) -> tuple[dict, dict]:
    # Through the store's `_read`: `$project` is bound to the graph the project is served from.
    nodes = {
        record["n"]["id"]: tuple(record["n"].get(f) for f in NODE_FIELDS[1:])
        for record in store._read(
            "MATCH (n:CodeNode {project: $project}) WHERE n.kind IS NOT NULL RETURN n", project=project
        )
    }
    edges = {}
    for record in store._read(
        "MATCH (a:CodeNode {project: $project})-[r]->(b:CodeNode)"
        " RETURN a.id AS s, type(r) AS rel, b.id AS t, properties(r) AS p",
        project=project,
    ):
        stored = dict(record["p"])
        evidence = tuple(stored.pop(f, None) for f in EDGE_FIELDS)
        stored.pop("project", None)
        edges[(record["s"], record["rel"], record["t"])] = (*evidence, dict(sorted(stored.items())) or None)
    return nodes, edges
