"""Traversals (walk, reach, shortest paths) written once for both graph backends.

A backend supplies a `Reader`: a handful of set-based queries run inside one read transaction
(one snapshot). The breadth-first logic lives here, so SQLite and Neo4j give identical answers by
construction: each level is one query per leg over the whole frontier (never one per node), and
the choices that make an answer deterministic (which parent, which order) are made here.

Determinism rules:
- a node is reached once, at its shortest distance, through the most certain of the edges that
  reach it from the previous level (highest confidence score), then the smallest
  (relation, parent id, direction);
- walk steps are ordered by depth, then most certain edge first, then (relation, id): a
  listing capped at 20 shows a function's certain callers before the ambiguous ones;
- shortest paths are listed meeting node by meeting node (by id), each side by sorted parents.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from rhumbline.stores.graph.protocol import (
    Edge,
    EdgeView,
    Leg,
    Node,
    PathResult,
    WalkResult,
    WalkStep,
)

WalkDirection = Literal["in", "out", "both"]
# Bounds: a traversal answers an agent's question, it never exports the graph.
MAX_DEPTH = 10
MAX_WALK_LIMIT = 10_000
MAX_IDS = 10_000
MAX_PATHS = 50
# A path search that has visited this many nodes gives up (PathResult.limited) rather than sweep
# a large graph: undirected searches through hubs (a Repository, a popular Module) grow fast.
MAX_PATH_VISITED = 50_000
MAX_EDGE_PAIRS = 5_000_000

# (parent id, relation, other id, direction of the edge seen from the parent, its confidence score)
Expansion = tuple[str, str, str, Literal["in", "out"], float]
EdgeKey = tuple[str, str, str]  # (source, relation, target): an edge's identity


@dataclass(frozen=True, slots=True)
class EdgeFacts:
    confidence: Any
    confidence_score: float
    explanation: str
    file: str | None
    line: int | None
    properties: dict[str, Any] | None


class Reader(Protocol):
    """Set-based reads over one project, inside one snapshot."""

    def nodes(self, ids: Sequence[str]) -> dict[str, Node]: ...

    def expand(self, frontier: Sequence[str], legs: Sequence[Leg]) -> list[Expansion]:
        """Every edge between a frontier node and a real (non-stub) node, over each leg (its
        direction, its relations: all when None, none when empty). One round trip for all legs."""

    def edges(self, keys: Sequence[EdgeKey]) -> dict[EdgeKey, EdgeFacts]: ...

    def details(self, ids: Sequence[str], keys: Sequence[EdgeKey]) -> tuple[dict[str, Node], dict[EdgeKey, EdgeFacts]]:
        """`nodes(ids)` and `edges(keys)` at once: one round trip where a round trip costs (Neo4j)."""

    def among(self, ids: Sequence[str], relations: Sequence[str] | None) -> list[EdgeKey]:
        """Every edge with both ends among `ids` (real nodes), in no particular order."""

    def pairs(self, relations: Sequence[str], limit: int) -> tuple[list[tuple[str, str]], int]: ...


class TraversalMixin:
    """The traversal half of GraphStore, for any store that can open a Reader."""

    def _traversal_reader(self, project: str) -> AbstractContextManager[Reader]:
        raise NotImplementedError

    def nodes(self, project: str, node_ids: Sequence[str]) -> dict[str, Node]:
        ids = _checked_ids(node_ids)
        if not ids:
            return {}
        with self._traversal_reader(project) as reader:
            return reader.nodes(ids)

    def walk(
        self,
        project: str,
        start: Sequence[str],
        *,
        direction: WalkDirection,
        depth: int,
        limit: int,
        relations: Sequence[str] | None = None,
    ) -> WalkResult:
        relations = _check_walk(direction, depth, relations)
        if not 1 <= limit <= MAX_WALK_LIMIT:
            raise ValueError(f"limit must be between 1 and {MAX_WALK_LIMIT}, not {limit}")
        with self._traversal_reader(project) as reader:
            return walk(reader, _checked_ids(start), direction, depth, limit, relations)

    def reach(
        self, project: str, start: Sequence[str], *, legs: Sequence[Leg], depth: int
    ) -> dict[str, int]:
        if not legs:
            raise ValueError("reach needs at least one leg")
        checked = [(d, _check_walk(d, depth, relations)) for d, relations in legs]
        with self._traversal_reader(project) as reader:
            starts = reader.nodes(_checked_ids(start))
            found = _bfs(reader, sorted(starts), checked, depth)
        return {node_id: step[0] for node_id, step in found.items()}

    def shortest_paths(
        self,
        project: str,
        source: str,
        target: str,
        *,
        direction: Literal["out", "both"],
        max_paths: int,
        max_depth: int,
        relations: Sequence[str] | None = None,
    ) -> PathResult:
        if direction not in ("out", "both"):
            raise ValueError(f"direction must be 'out' or 'both', not {direction!r}")
        relations = _check_walk(direction, max_depth, relations)
        if not 1 <= max_paths <= MAX_PATHS:
            raise ValueError(f"max_paths must be between 1 and {MAX_PATHS}, not {max_paths}")
        from rhumbline.stores.graph.traversal_paths import shortest_paths

        with self._traversal_reader(project) as reader:
            return shortest_paths(reader, source, target, direction, max_paths, max_depth, relations)

    def edges_among(
        self, project: str, node_ids: Sequence[str], *, limit: int, relations: Sequence[str] | None = None
    ) -> tuple[list[Edge], int]:
        ids = _checked_ids(node_ids)
        relations = _check_walk("out", 0, relations)
        if not 1 <= limit <= MAX_WALK_LIMIT:
            raise ValueError(f"limit must be between 1 and {MAX_WALK_LIMIT}, not {limit}")
        with self._traversal_reader(project) as reader:
            keys = sorted(set(reader.among(ids, relations)) if relations is None or relations else ())
            facts = reader.edges(keys[:limit])
        edges = [
            Edge(source=s, target=t, relation=r, confidence=f.confidence, confidence_score=f.confidence_score,
                 explanation=f.explanation, file=f.file, line=f.line, properties=f.properties)
            for (s, r, t), f in ((key, facts[key]) for key in keys[:limit])
        ]  # fmt: skip
        return edges, len(keys)

    def edge_pairs(
        self, project: str, *, relations: Sequence[str], limit: int
    ) -> tuple[list[tuple[str, str]], int]:
        if not relations:
            raise ValueError("edge_pairs needs at least one relation")
        if not 1 <= limit <= MAX_EDGE_PAIRS:
            raise ValueError(f"limit must be between 1 and {MAX_EDGE_PAIRS}, not {limit}")
        with self._traversal_reader(project) as reader:
            return reader.pairs(_checked_relations(relations) or [], limit)


# -- breadth-first search ----------------------------------------------------------------------

# A reached node: (depth, parent id, relation, direction seen from the parent, minus the edge's
# confidence score); start nodes have (0, None, None, None, 0.0).
Reached = tuple[int, "str | None", "str | None", "str | None", float]


def _bfs(reader: Reader, start: list[str], legs: Sequence[Leg], depth: int) -> dict[str, Reached]:
    found: dict[str, Reached] = {node_id: (0, None, None, None, 0.0) for node_id in start}
    frontier = start
    for level in range(1, depth + 1):
        if not frontier:
            break
        best: dict[str, tuple[float, str, str, str]] = {}
        for parent, relation, other, seen_as, score in reader.expand(frontier, legs):
            if other in found:
                continue
            choice = (-score, relation, parent, seen_as)
            if other not in best or choice < best[other]:
                best[other] = choice
        for other, (uncertainty, relation, parent, seen_as) in best.items():
            found[other] = (level, parent, relation, seen_as, uncertainty)
        frontier = sorted(best)
    return found


def walk(
    reader: Reader,
    start: list[str],
    direction: WalkDirection,
    depth: int,
    limit: int,
    relations: Sequence[str] | None,
) -> WalkResult:
    starts = reader.nodes(start)
    found = _bfs(reader, sorted(starts), [(direction, relations)], depth)
    order = sorted(found, key=lambda i: (found[i][0], found[i][4], found[i][2] or "", i))
    page = order[:limit]
    keys = {i: _edge_key(i, found[i]) for i in page if found[i][1] is not None}
    reached, facts = reader.details([i for i in page if i not in starts], list(keys.values()))
    nodes = {**starts, **reached}
    steps = []
    for node_id in page:
        level, parent, relation, seen_as, _ = found[node_id]
        via = None
        if parent is not None:
            fact = facts[keys[node_id]]
            node = nodes[node_id]
            via = EdgeView(
                relation=relation or "",
                direction=seen_as,  # type: ignore[arg-type]
                confidence=fact.confidence,
                confidence_score=fact.confidence_score,
                explanation=fact.explanation,
                file=fact.file,
                line=fact.line,
                other_id=node.id,
                other_kind=node.kind,
                other_name=node.name,
                properties=fact.properties,
            )
        steps.append(WalkStep(node=nodes[node_id], depth=level, parent=parent, via=via))
    return WalkResult(steps=steps, total=len(found), truncated=len(found) > limit)


def _edge_key(node_id: str, reached: Reached) -> EdgeKey:
    _, parent, relation, seen_as, _ = reached
    assert parent is not None and relation is not None
    return (parent, relation, node_id) if seen_as == "out" else (node_id, relation, parent)


# -- argument checks ---------------------------------------------------------------------------


def _checked_ids(ids: Sequence[str]) -> list[str]:
    if isinstance(ids, str):
        raise ValueError("pass a sequence of node ids, not one string")
    unique = sorted({i for i in ids if isinstance(i, str) and i})
    if len(unique) > MAX_IDS:
        raise ValueError(f"at most {MAX_IDS} node ids at once, not {len(unique)}")
    return unique


def _checked_relations(relations: Sequence[str] | None) -> list[str] | None:
    if relations is None:
        return None
    from rhumbline.stores.graph.rows import check_relation

    return sorted({check_relation(r) for r in relations})


def _check_walk(direction: str, depth: int, relations: Sequence[str] | None) -> list[str] | None:
    """Checks a traversal's arguments; the relations, validated (they may become Cypher text)."""
    if direction not in ("in", "out", "both"):
        raise ValueError(f"direction must be 'in', 'out' or 'both', not {direction!r}")
    if not 0 <= depth <= MAX_DEPTH:
        raise ValueError(f"depth must be between 0 and {MAX_DEPTH}, not {depth}")
    if isinstance(relations, str):
        raise ValueError("relations must be a sequence of relation names, not one string")
    return _checked_relations(relations)
