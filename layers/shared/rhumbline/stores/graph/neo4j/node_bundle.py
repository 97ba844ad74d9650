"""Neo4j: a node's bundle (`GraphStore.node_bundle`) as ONE statement — the node, the edges
around it, the far ends' degrees, its and their edges to themselves (loops) and breadth-first
walks from it — where the composed form
(GraphStore.node_bundle's composition) costs a round trip per read and per walk level.

A walk is one `ANY SHORTEST` search with an unbound end (a breadth-first search inside the
server, through real nodes only): every reachable node at its shortest distance, with a plan the
same size whatever the depth (unrolling one subquery per level made Neo4j's planning time grow
with the depth: seconds for class's two 10-level walks). Which parent a node keeps follows
traversal.py's rule, the most certain edge (highest confidence score), then the smallest
(relation, parent id, direction), among the edges from nodes one hop nearer: candidates and
reached nodes are grouped on (node, distance), a hash join rather than a list-membership test
per candidate, and only for nodes that can be in the page. An
around's `Keep` (class's methods in file order) cuts its page inside the statement, so the other
members are neither shipped nor have their degrees counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from rhumbline.stores.graph import rows
from rhumbline.stores.graph.bundles import check_keep, checked_loops
from rhumbline.stores.graph.model import Around, Edge, EdgeView, Node, NodeBundle, Walk, WalkResult, WalkStep
from rhumbline.stores.graph.neo4j.client import Neo4jClient
from rhumbline.stores.graph.neo4j.cypher import FOUND_BY_NAME, by_name_params, extra_properties
from rhumbline.stores.graph.neo4j.lookups import _EXTRA, _GROUPED_PAGES, _groups
from rhumbline.stores.graph.traversal import MAX_WALK_LIMIT, check_walk

_PATTERNS = {"out": "-[r]->", "in": "<-[r]-"}
_WALK_PATTERNS = {"out": "-[r{types}]->", "in": "<-[r{types}]-", "both": "-[r{types}]-"}
_SEEN_AS = {"out": "'out'", "in": "'in'", "both": "CASE WHEN startNode(r) = p THEN 'out' ELSE 'in' END"}

# Shapes (what the statement text depends on; everything else is a parameter).
AroundShape = tuple[str, str | None, bool]  # (direction, far-degree direction, keep)
WalkShape = tuple[str, tuple[str, ...] | None, int]  # (direction, checked relations, levels)
LoopsShape = tuple[str, ...]  # checked relations


# Where _GROUPED_PAGES turns each page's rows into lists: a Keep cuts the rows just before.
_PAGE_ROWS = "WITH relation, total, x[0] AS node_id, x[1] AS r, x[2] AS o\nWITH relation, total, collect(["
# bundles.Keep: real far ends of $a{i}_kinds (a stub's null kind is never IN), in file order, the
# first $a{i}_keep, and how many matched (`kept`).
_KEEP_ROWS = """WITH relation, total, x[0] AS node_id, x[1] AS r, x[2] AS o
WHERE o.kind IN $a{i}_kinds
WITH relation, total, node_id, r, o ORDER BY coalesce(o.start_line, 0), o.id
WITH relation, total, collect([node_id, r, o]) AS matched
WITH relation, total, size(matched) AS kept, matched[0..$a{i}_keep] AS matched
UNWIND matched AS x
WITH relation, total, kept, x[0] AS node_id, x[1] AS r, x[2] AS o
WITH relation, total, kept, collect(["""


def _around(i: int, direction: str, keep: bool) -> str:
    """edges_around of the node bound to `n` (lookups.py's grouped pages), as `a{i}`."""
    grouped = (
        _GROUPED_PAGES.replace("{pattern}", _PATTERNS[direction])
        .replace("{limit}", f"$a{i}_limit")
        .replace("$relations", f"$a{i}_relations")
    )
    if _PAGE_ROWS not in grouped:
        raise AssertionError("lookups._GROUPED_PAGES changed: update _PAGE_ROWS")
    fields = "relation: relation, total: total, page: page"
    if keep:
        grouped = grouped.replace(_PAGE_ROWS, _KEEP_ROWS.replace("{i}", str(i)))
        fields += ", kept: kept"
    collected = f"RETURN collect({{{fields}}}) AS a{i}"
    return f"CALL (n) {{\nUNWIND [n] AS me{grouped}{collected}\n}}\n"


def _far_degrees(i: int, direction: str) -> str:
    """For each real node at the far end of `a{i}`'s pages (a page's item: lookups.py's
    _GROUPED_PAGES list, [8] the other id, [11] the other node or null for a stub): its edges
    that way over $d{i}_relations."""
    pattern = _PATTERNS[direction]
    return f"""CALL (a{i}) {{
    UNWIND a{i} AS g
    UNWIND g.page AS x
    WITH x WHERE x[11] IS NOT NULL
    WITH DISTINCT x[8] AS other_id
    MATCH (o:CodeNode {{project: $project, id: other_id}})
    WITH o, COUNT {{ (o){pattern}() WHERE type(r) IN $d{i}_relations }} AS c WHERE c > 0
    RETURN collect([o.id, c]) AS d{i}
}}
"""


def _loops(arounds: int, relations: tuple[str, ...]) -> str:
    """NodeBundle.loops as `loops`: the edges from `n`, and from each real far end of the
    arounds' pages (a page's item: [8] the other id, [11] null for a stub), to itself."""
    pages = " + ".join(f"a{i}" for i in range(arounds)) or "[]"
    types = "|".join(f"`{r}`" for r in relations)
    return f"""CALL (n{"".join(f", a{i}" for i in range(arounds))}) {{
    UNWIND [n.id] + reduce(ids = [], g IN {pages} | ids + [x IN g.page WHERE x[11] IS NOT NULL | x[8]]) AS other_id
    WITH DISTINCT other_id
    MATCH (o:CodeNode {{project: $project, id: other_id}})-[r:{types}]->(o)
    RETURN collect([o.id, type(r), r.confidence, r.confidence_score, r.explanation, r.file, r.line, {_EXTRA}]) AS loops
}}
"""


# The walk's edge seen from the parent `p` (its end nearer the start) towards `o`; `{types}`: the relations.
_PARENT_EDGE = {"out": "(o)<-[r{types}]-(p)", "in": "(o)-[r{types}]->(p)", "both": "(o)-[r{types}]-(p)"}


def _walk(j: int, direction: str, relations: tuple[str, ...] | None, levels: int) -> str:
    """A breadth-first walk from `n` as `w{j}_total`, `w{j}_steps`. The distances come from one
    shortest-path search (a breadth-first search inside the server, through real nodes only);
    each reached node's parent is then its most certain, then smallest (relation, parent id,
    seen_as), edge from a node one hop nearer, found by grouping candidates and reached nodes on
    (parent, distance).

    Only nodes that can be in the page get parents looked up: the page is ordered by (distance,
    certainty of the chosen edge, relation, id), so it holds the nodes nearer than its last one's
    distance and some at that distance, which only their edges can pick: every node up to that
    distance is looked up. A hub's 400 callers within depth 4, 55 of them at depth 1, cost 55
    parent lookups for a page of 20, not 400."""
    types = ":" + "|".join(f"`{r}`" for r in relations) if relations else ""
    step = _WALK_PATTERNS[direction].format(types=types).replace("[r", "[")
    reach = (
        "MATCH ANY SHORTEST (n) (()" + step + f"(x:CodeNode WHERE x.kind IS NOT NULL)){{1,{levels}}} (o)\n"
        "        WHERE o <> n\n"
        "        WITH o, size(x) AS k ORDER BY k, o.id\n"
        "        RETURN collect([o, k]) AS found"
        if levels
        else "RETURN [] AS found"
    )
    page = f"$w{j}_page"
    reached = (
        f"CASE WHEN size(found) <= {page} THEN found WHEN {page} = 0 THEN []\n"
        f"        ELSE [x IN found WHERE x[1] <= found[{page} - 1][1]] END"
    )
    return f"""CALL (n) {{
    CALL (n) {{
        {reach}
    }}
    WITH [[n, 0]] + {reached} AS reached, size(found) AS total
    CALL (reached) {{
        CALL (reached) {{
            UNWIND reached AS x
            WITH x[0] AS o, x[1] AS k WHERE k > 0
            MATCH {_PARENT_EDGE[direction].format(types=types)}
            RETURN p, k - 1 AS d,
                   [type(r), p.id, {_SEEN_AS[direction]}, o, r, k, -coalesce(r.confidence_score, 0.0)] AS choice
            UNION ALL
            UNWIND reached AS x
            RETURN x[0] AS p, x[1] AS d, null AS choice
        }}
        // A (p, d) group holds a reached row (its null choice is not collected) iff p is at distance d.
        WITH p, d, collect(choice) AS choices, count(*) AS rows WHERE size(choices) < rows
        UNWIND choices AS c
        WITH c ORDER BY c[6], c[0], c[1], c[2]
        WITH c[3] AS o, collect(c)[0] AS best
        WITH best ORDER BY best[5], best[6], best[0], o.id
        LIMIT $w{j}_page
        WITH best[3] AS o, best[4] AS r, best
        RETURN collect([best[5], {rows.node_list_cypher("o")}, best[0], best[1], best[2],
                        r.confidence, r.confidence_score, r.explanation, r.file, r.line, {_EXTRA}]) AS steps
    }}
    RETURN total + 1 AS w{j}_total, steps AS w{j}_steps
}}
"""


_BY_ID = "MATCH (n:CodeNode {project: $project, id: $id}) WHERE n.kind IS NOT NULL\n"
# named_bundle: find_by_name's page and total, and as `n` the node lookup.names.choose picks from
# them when it picks one (its first three rules: the one qualified name typed exactly, else the
# one spelled with the case typed when the page holds every match, else the only match); null
# otherwise, and the bundle's subqueries then match nothing.
_BY_NAME = (
    FOUND_BY_NAME
    + """WITH size(found) AS named_total, found[0..$limit] AS page
WITH named_total, page, [c IN page WHERE c.qualified_name = $exact] AS exact,
    CASE WHEN size(page) = named_total THEN [c IN page WHERE c.name = $exact OR c.qualified_name = $exact
        OR c.qualified_name ENDS WITH ('.' + $exact)] ELSE [] END AS cased
WITH named_total, page, CASE WHEN size(exact) = 1 THEN exact[0] WHEN size(cased) = 1 THEN cased[0]
    WHEN size(cased) = 0 AND size(page) = 1 THEN page[0] END AS n
"""
)
_NAMED_RETURNS = ("named_total", f"[c IN page | {rows.node_list_cypher('c')}] AS named_page", "n.id AS named_id")


@lru_cache(maxsize=64)
def node_bundle_cypher(
    around: tuple[AroundShape, ...], walks: tuple[WalkShape, ...], loops: LoopsShape, *, named: bool = False
) -> str:
    """The bundle of `n`: the node of `$id`, or with `named` the one `$name` names (_BY_NAME)."""
    parts = [_BY_NAME if named else _BY_ID]
    returned = [*(_NAMED_RETURNS if named else ()), f"{rows.node_list_cypher('n')} AS node"]
    for i, (direction, far, keep) in enumerate(around):
        parts.append(_around(i, direction, keep))
        returned.append(f"a{i}")
        if far is not None:
            parts.append(_far_degrees(i, far))
            returned.append(f"d{i}")
    if loops:
        parts.append(_loops(len(around), loops))
        returned.append("loops")
    for j, (direction, relations, levels) in enumerate(walks):
        parts.append(_walk(j, direction, relations, levels))
        returned.extend((f"w{j}_total", f"w{j}_steps"))
    return "".join(parts) + "RETURN " + ", ".join(returned) + "\n"


def _checked_around(spec: Around) -> None:
    rows.check_page(spec.limit)
    if spec.direction not in _PATTERNS:
        raise ValueError(f"direction must be 'in' or 'out', not {spec.direction!r}")
    if isinstance(spec.relations, str):
        raise ValueError("relations must be a sequence of relation names, not one string")
    if spec.far_degrees is not None and spec.far_degrees[0] not in _PATTERNS:
        raise ValueError(f"far_degrees direction must be 'in' or 'out', not {spec.far_degrees[0]!r}")
    if spec.keep is not None:
        check_keep(spec.keep)


def _checked_walk(spec: Walk) -> WalkShape:
    relations = check_walk(spec.direction, spec.depth, spec.relations)
    if not 1 <= spec.limit <= MAX_WALK_LIMIT:
        raise ValueError(f"limit must be between 1 and {MAX_WALK_LIMIT}, not {spec.limit}")
    # No relation to follow: nothing beyond the start node (as walk's empty leg).
    levels = 0 if relations == [] else spec.depth
    return (spec.direction, tuple(relations) if relations is not None else None, levels)


def _walk_result(start: Node, total: int, found: list[list[Any]], limit: int) -> WalkResult:
    steps = [WalkStep(node=start, depth=0, parent=None, via=None)]
    for depth, values, relation, parent, seen_as, confidence, score, explanation, file, line, stored in found:
        node = rows.node_at(values)
        via = EdgeView(
            relation=relation, direction=seen_as, confidence=confidence, confidence_score=score,
            explanation=explanation, file=file, line=line, other_id=node.id, other_kind=node.kind,
            other_name=node.name, properties=extra_properties(stored),
        )  # fmt: skip
        steps.append(WalkStep(node=node, depth=depth, parent=parent, via=via))
    return WalkResult(steps=steps, total=total, truncated=total > limit)


class Neo4jNodeBundle(Neo4jClient):
    """GraphStore.node_bundle in one statement, and named_bundle."""

    def node_bundle(
        self, project: str, node_id: str, *, around: Sequence[Around] = (), walks: Sequence[Walk] = (),
        loops: Sequence[str] = (),
    ) -> NodeBundle | None:  # fmt: skip
        params, shapes = _bundle_params(around, walks, loops)
        found = self._read(node_bundle_cypher(*shapes), project=project, id=node_id, **params)
        return _bundle_of(found[0], around, walks, loops) if found else None

    def named_bundle(
        self,
        project: str,
        name: str,
        *,
        kinds: Sequence[str] | None,
        limit: int,
        around: Sequence[Around] = (),
        walks: Sequence[Walk] = (),
        loops: Sequence[str] = (),
    ) -> tuple[list[Node], int, NodeBundle | None]:
        """find_by_name's page (at most `limit`) and total for `name`, and the node_bundle of the
        node lookup.names.choose would pick from them (None when it picks none): one statement,
        one round trip, where find_by_name then node_bundle take two."""
        params, shapes = _bundle_params(around, walks, loops)
        params.update(by_name_params(name, kinds, limit), exact=name.strip())
        [record] = self._read(node_bundle_cypher(*shapes, named=True), project=project, **params)
        found = [rows.node_at(values) for values in record["named_page"]]
        bundle = _bundle_of(record, around, walks, loops) if record["named_id"] is not None else None
        return found, record["named_total"], bundle


def _bundle_params(
    around: Sequence[Around], walks: Sequence[Walk], loops: Sequence[str]
) -> tuple[dict[str, Any], tuple[tuple[AroundShape, ...], tuple[WalkShape, ...], LoopsShape]]:
    """The statement's parameters for `around` and `walks`, and its shapes (its text's key)."""
    params: dict[str, Any] = {}
    around_shapes = []
    for i, spec in enumerate(around):
        _checked_around(spec)
        params[f"a{i}_limit"] = spec.limit
        params[f"a{i}_relations"] = list(spec.relations) if spec.relations is not None else None
        if spec.far_degrees is not None:
            params[f"d{i}_relations"] = list(spec.far_degrees[1])
        if spec.keep is not None:
            params[f"a{i}_kinds"], params[f"a{i}_keep"] = list(spec.keep.kinds), spec.keep.limit
        far = spec.far_degrees[0] if spec.far_degrees else None
        around_shapes.append((spec.direction, far, spec.keep is not None))
    walk_shapes = []
    for j, spec in enumerate(walks):
        walk_shapes.append(_checked_walk(spec))
        params[f"w{j}_page"] = spec.limit - 1  # the start node is the walk's first step
    return params, (tuple(around_shapes), tuple(walk_shapes), tuple(checked_loops(loops)))


def _bundle_of(record: Any, around: Sequence[Around], walks: Sequence[Walk], loops: Sequence[str]) -> NodeBundle:
    node = rows.node_at(record["node"])
    return NodeBundle(
        node=node,
        around=[_groups(spec.direction, record[f"a{i}"]) for i, spec in enumerate(around)],
        far_degrees=[
            dict(sorted((node_id, c) for node_id, c in record[f"d{i}"])) if spec.far_degrees else {}
            for i, spec in enumerate(around)
        ],
        kept=[
            {g["relation"]: g["kept"] for g in sorted(record[f"a{i}"], key=lambda g: g["relation"])}
            if spec.keep
            else {}
            for i, spec in enumerate(around)
        ],
        walks=[
            _walk_result(node, record[f"w{j}_total"], record[f"w{j}_steps"], spec.limit)
            for j, spec in enumerate(walks)
        ],
        loops=_loops_of(record["loops"]) if loops else {},
    )


def _loops_of(found: list[list[Any]]) -> dict[str, list[Edge]]:
    loops: dict[str, list[Edge]] = {}
    for node_id, relation, confidence, score, explanation, file, line, stored in sorted(found, key=lambda x: x[:2]):
        loops.setdefault(node_id, []).append(
            Edge(
                source=node_id, target=node_id, relation=relation, confidence=confidence, confidence_score=score,
                explanation=explanation, file=file, line=line, properties=extra_properties(stored),
            )  # fmt: skip
        )
    return dict(sorted(loops.items()))
