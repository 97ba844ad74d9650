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
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from rhumbline.stores.graph.model import Direction, EdgeView, Leg, Node, WalkResult, WalkStep
from rhumbline.stores.graph.rows import check_relation

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
Expansion = tuple[str, str, str, Direction, float]
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


# -- breadth-first search ----------------------------------------------------------------------

# A reached node: (depth, parent id, relation, direction seen from the parent, minus the edge's
# confidence score); start nodes have (0, None, None, None, 0.0).
Reached = tuple[int, "str | None", "str | None", "Direction | None", float]


def bfs(reader: Reader, start: list[str], legs: Sequence[Leg], depth: int) -> dict[str, Reached]:
    found: dict[str, Reached] = {node_id: (0, None, None, None, 0.0) for node_id in start}
    frontier = start
    for level in range(1, depth + 1):
        if not frontier:
            break
        best: dict[str, tuple[float, str, str, Direction]] = {}
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
    found = bfs(reader, sorted(starts), [(direction, relations)], depth)
    order = sorted(found, key=lambda i: (found[i][0], found[i][4], found[i][2] or "", i))
    page = order[:limit]
    keys = {i: _edge_key(i, found[i]) for i in page if found[i][1] is not None}
    reached, facts = reader.details([i for i in page if i not in starts], list(keys.values()))
    nodes = {**starts, **reached}
    steps = []
    for node_id in page:
        level, parent, relation, seen_as, _ = found[node_id]
        via = None
        if parent is not None and seen_as is not None:  # both set together, on every node but a start
            fact = facts[keys[node_id]]
            node = nodes[node_id]
            via = EdgeView(
                relation=relation or "",
                direction=seen_as,
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


def checked_ids(ids: Sequence[str]) -> list[str]:
    if isinstance(ids, str):
        raise ValueError("pass a sequence of node ids, not one string")
    unique = sorted({i for i in ids if isinstance(i, str) and i})
    if len(unique) > MAX_IDS:
        raise ValueError(f"at most {MAX_IDS} node ids at once, not {len(unique)}")
    return unique


def checked_relations(relations: Sequence[str] | None) -> list[str] | None:
    if relations is None:
        return None
    return sorted({check_relation(r) for r in relations})


def check_walk(direction: str, depth: int, relations: Sequence[str] | None) -> list[str] | None:
    """Checks a traversal's arguments; the relations, validated (they may become Cypher text)."""
    if direction not in ("in", "out", "both"):
        raise ValueError(f"direction must be 'in', 'out' or 'both', not {direction!r}")
    if not 0 <= depth <= MAX_DEPTH:
        raise ValueError(f"depth must be between 0 and {MAX_DEPTH}, not {depth}")
    if isinstance(relations, str):
        raise ValueError("relations must be a sequence of relation names, not one string")
    return checked_relations(relations)
