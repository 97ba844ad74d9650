"""Neo4j: the lookups behind the code-context tools (nodes of a file, edges around a node set).

A part of Neo4jGraphStore: it reads with the client's bounded `_read()` (auto-commit read,
server-side timeout). The answers match the SQLite backend's exactly, order included.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rhumbline.stores.graph import rows
from rhumbline.stores.graph.model import MODULE, Direction, EdgeView, FileBundle, FileQuery, LinkedEdge, Node, RelationEdges
from rhumbline.stores.graph.neo4j.client import Neo4jClient
from rhumbline.stores.graph.neo4j.cypher import EDGE_FIELDS, extra_properties

# Nodes and edges are answered as lists, not maps: a map ships every key with every value.
_N = rows.node_list_cypher("n")
# An edge's other properties: null for a code edge (none), else all of them (filtered in _linked).
_EXTRA = (
    "CASE WHEN all(k IN keys(r) WHERE k IN ["
    + ", ".join(f"'{f}'" for f in sorted(EDGE_FIELDS))
    + "]) THEN null ELSE properties(r) END"
)

# The (project, file) index finds the file's nodes; coalesce sorts line-less nodes first, as SQLite.
NODES_IN_FILE = f"""
MATCH (n:CodeNode) WHERE n.project = $project AND n.file = $path
  AND n.kind IS NOT NULL AND n.kind <> 'File' AND ($kinds IS NULL OR n.kind IN $kinds)
WITH n ORDER BY coalesce(n.start_line, 0), n.id
WITH collect({_N}) AS found
RETURN size(found) AS total, found[$offset..$offset + $limit] AS page
"""

# One side of the edges around the nodes bound to `me`, grouped by relation: per relation sorted,
# counted, and only the first `{limit}` turned into maps (a hub's thousands of callers are counted,
# not shipped). `{pattern}` is the direction, `{limit}` the page-size parameter.
_GROUPED_PAGES = (
    """
MATCH (me){pattern}(o:CodeNode)
WHERE $relations IS NULL OR type(r) IN $relations
WITH me, r, o ORDER BY type(r), me.id, o.id
WITH type(r) AS relation, collect([me.id, r, o]) AS found
WITH relation, size(found) AS total, found[0..{limit}] AS page
UNWIND page AS x
WITH relation, total, x[0] AS node_id, x[1] AS r, x[2] AS o
WITH relation, total, collect([
    node_id, relation, r.confidence, r.confidence_score, r.explanation, r.file, r.line, """
    + _EXTRA
    + """,
    o.id, coalesce(o.kind, 'Unknown'), coalesce(o.name, o.id),
    CASE WHEN o.kind IS NULL THEN null ELSE """
    + rows.node_list_cypher("o")
    + """ END
]) AS page
"""
)
# UNWIND then MATCH on both keys: one index seek per id (`me.id IN $ids` makes the planner scan the
# whole (project, id) index).
_AROUND = (
    "UNWIND $ids AS asked\nMATCH (me:CodeNode {project: $project, id: asked})"
    + _GROUPED_PAGES.replace("{limit}", "$limit")
    + "RETURN relation, total, page\nORDER BY relation\n"
)
# One side of edges around a list of nodes held in `{nodes}`, as _AROUND groups them, collected
# into one list of groups (an aggregate without keys: one row even when there are no edges).
_AROUND_HELD = (
    "UNWIND {nodes} AS me"
    + _GROUPED_PAGES.replace("{limit}", "$link_limit")
    + "RETURN collect({relation: relation, total: total, page: page}) AS groups\n"
)
# `context` in one statement: the File node by its (project, id) index, its nodes by the
# (project, file) index, then the edges around them both ways (GraphStore.file_bundle's composition
# is the definition this must equal: same subjects, same order, same caps).
FILE_BUNDLE = f"""
MATCH (f:CodeNode {{project: $project, id: $id}}) WHERE f.kind = 'File'
CALL (f) {{
    MATCH (n:CodeNode) WHERE n.project = $project AND n.file = coalesce(f.file, f.qualified_name)
      AND n.kind IN $kinds
    WITH n ORDER BY coalesce(n.start_line, 0), n.id
    WITH collect(n) AS found
    WITH [n IN found WHERE n.kind = 'Module'] AS modules, [n IN found WHERE n.kind <> 'Module'] AS defined
    RETURN modules[0..$module_limit] AS modules, size(defined) AS total, defined[$offset..$offset + $limit] AS page
}}
WITH f, modules, total, page, [f] + modules AS own
WITH f, modules, total, page, own + page AS inside, own + [d IN page WHERE d.kind IN $section_kinds] AS outside
CALL (inside) {{{_AROUND_HELD.replace("{nodes}", "inside").replace("{pattern}", "<-[r]-")}}}
WITH f, modules, total, page, outside, groups AS inward
CALL (outside) {{{_AROUND_HELD.replace("{nodes}", "outside").replace("{pattern}", "-[r]->")}}}
OPTIONAL MATCH (g:GraphMeta {{project: $project}})
RETURN {rows.node_list_cypher("f")} AS file, [n IN modules | {_N}] AS modules, total,
       [n IN page | {_N}] AS page, inward, groups AS outward, g.version AS version
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


def _linked(direction: Direction, item: list[Any]) -> LinkedEdge:
    """A LinkedEdge from one list of _GROUPED_PAGES' page."""
    node_id, relation, confidence, score, explanation, file, line, stored, other_id, other_kind, other_name, other = item
    edge = EdgeView(
        relation=relation, direction=direction, confidence=confidence, confidence_score=score,
        explanation=explanation, file=file, line=line, other_id=other_id, other_kind=other_kind,
        other_name=other_name, properties=extra_properties(stored),
    )  # fmt: skip
    return LinkedEdge(node_id=node_id, edge=edge, other=rows.node_at(other) if other is not None else None)


def _groups(direction: Direction, groups: list[dict[str, Any]]) -> dict[str, RelationEdges]:
    return {
        group["relation"]: RelationEdges(
            edges=[_linked(direction, item) for item in group["page"]], total=group["total"]
        )
        for group in sorted(groups, key=lambda g: g["relation"])
    }


class Neo4jLookups(Neo4jClient):
    """nodes_in_file, edges_around, degrees and file_bundle in one statement (see GraphStore for
    each one's contract)."""

    def nodes_in_file(
        self, project: str, path: str, *, kinds: Sequence[str] | None = None, limit: int, offset: int = 0
    ) -> tuple[list[Node], int]:
        rows.check_page(limit, offset)
        found = self._read(
            NODES_IN_FILE, project=project, path=path, kinds=list(kinds) if kinds is not None else None,
            limit=limit, offset=offset,
        )[0]  # fmt: skip
        return [rows.node_at(n) for n in found["page"]], found["total"]

    def _edges_around(
        self, project: str, node_ids: Sequence[str], direction: Direction, relations: Sequence[str] | None, limit: int
    ) -> dict[str, RelationEdges]:
        found = self._read(
            EDGES_AROUND[direction],
            project=project,
            ids=list(node_ids),
            relations=list(relations) if relations is not None else None,
            limit=limit,
        )
        return {
            record["relation"]: RelationEdges(
                edges=[_linked(direction, item) for item in record["page"]], total=record["total"]
            )
            for record in found
        }

    def file_bundle(self, project: str, file_id: str, query: FileQuery) -> FileBundle | None:
        found = self._read(
            FILE_BUNDLE, project=project, id=file_id, kinds=[*query.definition_kinds, MODULE], limit=query.limit,
            offset=query.offset, module_limit=query.module_limit, section_kinds=list(query.section_kinds),
            relations=list(query.relations), link_limit=query.link_limit,
        )  # fmt: skip
        if not found:
            return None
        record = found[0]
        return FileBundle(
            file=rows.node_at(record["file"]),
            modules=[rows.node_at(n) for n in record["modules"]],
            definitions=[rows.node_at(n) for n in record["page"]],
            definitions_total=record["total"],
            inward=_groups("in", record["inward"]),
            outward=_groups("out", record["outward"]),
            version=record["version"],
        )

    def _degrees(
        self, project: str, node_ids: Sequence[str], direction: Direction, relations: Sequence[str] | None
    ) -> list[tuple[str, str, int]]:
        found = self._read(
            DEGREES[direction],
            project=project,
            ids=list(node_ids),
            relations=list(relations) if relations is not None else None,
        )
        return [(record["node_id"], record["relation"], record["c"]) for record in found]
