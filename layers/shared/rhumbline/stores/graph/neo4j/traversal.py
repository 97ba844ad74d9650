"""The Neo4j side of traversals (see traversal.py): set-based Cypher inside one read transaction.

Each breadth-first level is one statement: `UNWIND $frontier` seeks every frontier node by its
(project, id) key and follows its relationships once. No variable-length pattern: those enumerate
paths, not nodes, and blow up on the dense parts of a code graph (hub modules, base classes).
Relationship types are part of the pattern text (types cannot be parameters), from names checked
by rows.check_relation; the planner then reads only those relationship chains.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from rhumbline.stores.graph import rows
from rhumbline.stores.graph.neo4j.begin import begin_pipelined
from rhumbline.stores.graph.neo4j.keys import GUARD, KeyBinder, is_moved
from rhumbline.stores.graph.neo4j.cypher import extra_properties
from rhumbline.stores.graph.model import Leg, Node
from rhumbline.stores.graph.traversal import EdgeFacts, EdgeKey, Expansion, WalkDirection

if TYPE_CHECKING:
    from neo4j import Session, Transaction

_NODE_MAP = "{" + ", ".join(f".{f}" for f in rows.NODE_FIELDS) + "}"

# Every statement answers ONE record holding a list: the Python driver's cost is per record, so
# one collected list decodes far faster than as many records.
NODES = f"""
UNWIND $ids AS node_id
MATCH (n:CodeNode {{project: $project, id: node_id}}) WHERE n.kind IS NOT NULL
RETURN collect(n {_NODE_MAP}) AS found
"""
_PATTERNS = {"out": "-[r{types}]->", "in": "<-[r{types}]-", "both": "-[r{types}]-"}
_SEEN_AS = {
    "out": "'out'",
    "in": "'in'",
    # An undirected pattern: which way the relationship points, seen from the frontier node.
    "both": "CASE WHEN startNode(r) = p THEN 'out' ELSE 'in' END",
}
EDGES = """
UNWIND $keys AS key
MATCH (a:CodeNode {project: $project, id: key[0]})-[r]->(b:CodeNode {project: $project, id: key[2]})
WHERE type(r) = key[1]
RETURN collect([key[0], key[1], key[2], properties(r)]) AS found
"""
# nodes() and edges() in one statement (one round trip instead of two): each part a subquery
# that collects into one list, an empty input giving an empty list.
DETAILS = f"""
CALL () {{
    UNWIND $ids AS node_id
    MATCH (n:CodeNode {{project: $project, id: node_id}}) WHERE n.kind IS NOT NULL
    RETURN collect(n {_NODE_MAP}) AS nodes
}}
CALL () {{
    UNWIND $keys AS key
    MATCH (a:CodeNode {{project: $project, id: key[0]}})-[r]->(b:CodeNode {{project: $project, id: key[2]}})
    WHERE type(r) = key[1]
    RETURN collect([key[0], key[1], key[2], properties(r)]) AS edges
}}
RETURN nodes, edges
"""
AMONG = """
MATCH (a:CodeNode)-[r]->(b:CodeNode)
WHERE a.project = $project AND a.id IN $ids AND b.project = $project AND b.id IN $ids
  AND a.kind IS NOT NULL AND b.kind IS NOT NULL AND ($relations IS NULL OR type(r) IN $relations)
RETURN collect([a.id, type(r), b.id]) AS found
"""
_PAIRS = """
MATCH (a:CodeNode)-[r:{types}]->(b:CodeNode)
WHERE a.project = $project AND a.id IS NOT NULL AND a.kind IS NOT NULL AND b.kind IS NOT NULL
"""


@lru_cache(maxsize=128)
def expand_cypher(legs: tuple[tuple[WalkDirection, tuple[str, ...] | None], ...]) -> str:
    """One statement for every leg: a UNION ALL per frontier node, all rows in one list."""
    branches = []
    for direction, relations in legs:
        types = ":" + "|".join(f"`{r}`" for r in relations) if relations else ""
        pattern = _PATTERNS[direction].format(types=types)
        branches.append(
            f"MATCH (p){pattern}(o:CodeNode) WHERE o.kind IS NOT NULL"
            f" RETURN type(r) AS relation, o.id AS other, {_SEEN_AS[direction]} AS seen_as,"
            " coalesce(r.confidence_score, 0.0) AS score"
        )
    return f"""
UNWIND $frontier AS parent_id
MATCH (p:CodeNode {{project: $project, id: parent_id}})
CALL (p) {{ {" UNION ALL ".join(branches)} }}
RETURN collect([parent_id, relation, other, seen_as, score]) AS found
"""


@lru_cache(maxsize=32)
def pairs_cypher(relations: tuple[str, ...]) -> tuple[str, str]:
    text = _PAIRS.format(types="|".join(f"`{r}`" for r in relations))
    return (
        f"{text} WITH a, b LIMIT $limit RETURN collect([a.id, b.id]) AS found",
        f"{text} RETURN count(*) AS total",
    )


class Neo4jReader:
    """One read transaction (one server-side timeout) for a whole traversal, on the project's
    active physical graph (keys.py): the first statement carries the key's guard; if the
    project was flipped since the key was cached, the transaction is begun again on the new key
    (nothing was read yet). Later statements stay on the key the first one checked: a flip
    during the traversal leaves that graph in place for the grace period (staged.py)."""

    def __init__(self, session: Session, graph: str, keys: KeyBinder, timeout: float) -> None:
        self._session = session
        self._graph = graph
        self._keys = keys
        self._timeout = timeout
        self._tx: Transaction | None = None
        self._project = graph

    def _run(self, text: str, **params: Any) -> list[Any]:
        if self._tx is not None:
            return list(self._tx.run(text, project=self._project, **params))
        for attempt in (1, 2):
            self._project = self._keys.active([self._graph])[self._graph]
            self._tx = begin_pipelined(self._session, timeout=self._timeout)
            try:
                graph = self._keys.namespace.graph(self._graph)
                return list(self._tx.run(GUARD + text, graph=graph, project=self._project, **params))
            except Exception as error:  # a Neo4jError; the driver is imported lazily
                self.close()
                if attempt == 2 or not is_moved(error):
                    raise
                self._keys.forget([self._graph])
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self._tx is not None:
            self._tx.close()
            self._tx = None

    def _one(self, text: str, **params: Any) -> list[Any]:
        """The list a collecting statement answers."""
        found: list[Any] = self._run(text, **params)[0]["found"]
        return found

    def nodes(self, ids: Sequence[str]) -> dict[str, Node]:
        if not ids:
            return {}
        found = self._one(NODES, ids=list(ids))
        return {node["id"]: rows.node_from_row(node) for node in found}

    def expand(self, frontier: Sequence[str], legs: Sequence[Leg]) -> list[Expansion]:
        wanted = tuple(
            (direction, tuple(relations) if relations is not None else None)
            for direction, relations in legs
            if relations is None or relations
        )
        if not wanted or not frontier:
            return []
        return [tuple(row) for row in self._one(expand_cypher(wanted), frontier=list(frontier))]

    def edges(self, keys: Sequence[EdgeKey]) -> dict[EdgeKey, EdgeFacts]:
        if not keys:
            return {}
        return _facts(self._one(EDGES, keys=[list(key) for key in keys]))

    def details(self, ids: Sequence[str], keys: Sequence[EdgeKey]) -> tuple[dict[str, Node], dict[EdgeKey, EdgeFacts]]:
        if not ids or not keys:
            return self.nodes(ids), self.edges(keys)
        [record] = self._run(DETAILS, ids=list(ids), keys=[list(key) for key in keys])
        return {node["id"]: rows.node_from_row(node) for node in record["nodes"]}, _facts(record["edges"])

    def among(self, ids: Sequence[str], relations: Sequence[str] | None) -> list[EdgeKey]:
        found = self._one(AMONG, ids=list(ids), relations=list(relations) if relations is not None else None)
        return [(source, relation, target) for source, relation, target in found]

    def pairs(self, relations: Sequence[str], limit: int) -> tuple[list[tuple[str, str]], int]:
        page, count = pairs_cypher(tuple(relations))
        found = [(source, target) for source, target in self._one(page, limit=limit)]
        if len(found) < limit:
            return found, len(found)
        return found, self._run(count)[0]["total"]


def _facts(found: Sequence[Any]) -> dict[EdgeKey, EdgeFacts]:
    """EdgeFacts by key from collected [source, relation, target, properties(r)] rows."""
    facts = {}
    for source, relation, target, stored in found:
        facts[(source, relation, target)] = EdgeFacts(
            confidence=stored["confidence"],
            confidence_score=stored["confidence_score"],
            explanation=stored["explanation"],
            file=stored.get("file"),
            line=stored.get("line"),
            properties=extra_properties(stored),
        )
    return facts
