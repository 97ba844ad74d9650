"""Neo4j: the lookups behind the code-context tools (nodes of a file, edges around a node set).

A mixin of Neo4jGraphStore, kept in its own module so the store stays one readable file: it uses
the store's bounded `_read()` (auto-commit read, server-side timeout) and nothing else of it.
The answers match the SQLite backend's exactly, order included.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rhumbline.stores.graph import rows
from rhumbline.stores.graph.protocol import Direction, EdgeView, LinkedEdge, Node, RelationEdges
from rhumbline.stores.graph.rows import NODE_FIELDS

_NODE_MAP = "{" + ", ".join(f".{f}" for f in NODE_FIELDS) + "}"
# Relationship fields that are the edge's own; any other property is one of Edge.properties.
_EDGE_FIELDS = frozenset({"project", "confidence", "confidence_score", "explanation", "file", "line"})

# The (project, file) index finds the file's nodes; coalesce sorts line-less nodes first, as SQLite.
NODES_IN_FILE = f"""
MATCH (n:CodeNode) WHERE n.project = $project AND n.file = $path
  AND n.kind IS NOT NULL AND n.kind <> 'File' AND ($kinds IS NULL OR n.kind IN $kinds)
WITH n ORDER BY coalesce(n.start_line, 0), n.id
WITH collect(n {_NODE_MAP}) AS found
RETURN size(found) AS total, found[0..$limit] AS page
"""

# UNWIND then MATCH on both keys: one index seek per id (`me.id IN $ids` makes the planner scan the
# whole (project, id) index). Per relation: sorted, counted, and only the first $limit turned into
# maps (a hub's thousands of callers are counted, not shipped).
_AROUND = f"""
UNWIND $ids AS asked
MATCH (me:CodeNode {{project: $project, id: asked}})
MATCH (me){{pattern}}(o:CodeNode)
WHERE $relations IS NULL OR type(r) IN $relations
WITH me, r, o ORDER BY type(r), me.id, o.id
WITH type(r) AS relation, collect([me.id, r, o]) AS found
WITH relation, size(found) AS total, found[0..$limit] AS page
UNWIND page AS x
WITH relation, total, x[0] AS node_id, x[1] AS r, x[2] AS o
WITH relation, total, collect({{
    node_id: node_id, relation: relation, confidence: r.confidence,
    confidence_score: r.confidence_score, explanation: r.explanation, file: r.file, line: r.line,
    properties: properties(r), other_id: o.id, other_kind: coalesce(o.kind, 'Unknown'),
    other_name: coalesce(o.name, o.id), other: CASE WHEN o.kind IS NULL THEN null ELSE o {_NODE_MAP} END
}}) AS page
RETURN relation, total, page
ORDER BY relation
"""
_DEGREES = """
UNWIND $ids AS asked
MATCH (me:CodeNode {project: $project, id: asked})
MATCH (me){pattern}()
WHERE $relations IS NULL OR type(r) IN $relations
RETURN me.id AS node_id, type(r) AS relation, count(*) AS c
"""
_PATTERNS = {"out": "-[r]->", "in": "<-[r]-"}
EDGES_AROUND = {d: _AROUND.replace("{pattern}", p) for d, p in _PATTERNS.items()}
DEGREES = {d: _DEGREES.replace("{pattern}", p) for d, p in _PATTERNS.items()}


def _check_ids(node_ids: Sequence[str], direction: str) -> None:
    if direction not in _PATTERNS:
        raise ValueError(f"direction must be 'in' or 'out', not {direction!r}")
    if len(node_ids) > rows.MAX_PAGE:
        raise ValueError(f"at most {rows.MAX_PAGE} node ids at once, not {len(node_ids)}")


def _linked(direction: Direction, found: dict[str, Any]) -> LinkedEdge:
    stored = found.pop("properties") or {}
    extra = {k: v for k, v in sorted(stored.items()) if k not in _EDGE_FIELDS}
    node_id = found.pop("node_id")
    other = found.pop("other")
    edge = EdgeView(direction=direction, properties=extra or None, **found)
    return LinkedEdge(node_id=node_id, edge=edge, other=rows.node_from_row(other) if other else None)


class Neo4jLookups:
    """Mixed into Neo4jGraphStore (uses its `_read`); see the GraphStore protocol for each
    method's contract."""

    _read: Callable[..., list[Any]]

    def nodes_in_file(
        self, project: str, path: str, *, kinds: Sequence[str] | None = None, limit: int
    ) -> tuple[list[Node], int]:
        rows.check_page(limit)
        found = self._read(
            NODES_IN_FILE, project=project, path=path, kinds=list(kinds) if kinds is not None else None, limit=limit
        )[0]
        return [rows.node_from_row(n) for n in found["page"]], found["total"]

    def edges_around(
        self,
        project: str,
        node_ids: Sequence[str],
        direction: Direction,
        *,
        relations: Sequence[str] | None = None,
        limit: int,
    ) -> dict[str, RelationEdges]:
        rows.check_page(limit)
        _check_ids(node_ids, direction)
        if not node_ids:
            return {}
        found = self._read(
            EDGES_AROUND[direction],
            project=project,
            ids=list(node_ids),
            relations=list(relations) if relations is not None else None,
            limit=limit,
        )
        return {
            record["relation"]: RelationEdges(
                edges=[_linked(direction, dict(item)) for item in record["page"]], total=record["total"]
            )
            for record in found
        }

    def degrees(
        self,
        project: str,
        node_ids: Sequence[str],
        direction: Direction,
        *,
        relations: Sequence[str] | None = None,
    ) -> dict[str, dict[str, int]]:
        _check_ids(node_ids, direction)
        if not node_ids:
            return {}
        found = self._read(
            DEGREES[direction],
            project=project,
            ids=list(node_ids),
            relations=list(relations) if relations is not None else None,
        )
        result: dict[str, dict[str, int]] = {}
        for record in found:
            result.setdefault(record["node_id"], {})[record["relation"]] = record["c"]
        return {node_id: dict(sorted(by.items())) for node_id, by in sorted(result.items())}
