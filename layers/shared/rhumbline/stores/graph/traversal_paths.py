"""Shortest paths for traversal.py's GraphStore.shortest_paths, on any backend's Reader.

Bidirectional breadth-first search, one set-based query per level, always growing the smaller
frontier. Every way a node is reached at its shortest distance is kept (all its parents), so the
number of shortest paths is exact and the first `max_paths` are enumerated lazily, in order: by
meeting node id, then each side by sorted (parent, relation, direction).

Why stopping at the first level where the frontiers meet is exact: before that level no node was
seen from both ends, so any path is longer than (forward depth - 1) + backward depth; every
meeting node gives a path of exactly forward depth + backward depth: that is the shortest length,
and every shortest path crosses the just-grown level at one of the meeting nodes, once.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal

from rhumbline.stores.graph.model import GraphPath, PathHop, PathResult
from rhumbline.stores.graph.traversal import MAX_PATH_VISITED, Reader

# Every way a node was reached at its shortest distance: (parent, relation, direction from parent).
Parents = dict[str, list[tuple[str, str, str]]]


def shortest_paths(
    reader: Reader,
    source: str,
    target: str,
    direction: Literal["out", "both"],
    max_paths: int,
    max_depth: int,
    relations: Sequence[str] | None,
) -> PathResult:
    ends = reader.nodes([source, target])
    if source not in ends or target not in ends:
        return PathResult(paths=[], length=None, total=0)
    if source == target:
        return PathResult(paths=[GraphPath(nodes=[ends[source]], hops=[])], length=0, total=1)
    # Forward from the source, backward from the target; always grow the smaller frontier.
    sides: list[dict[str, Any]] = [
        {"parents": {source: []}, "frontier": [source], "depth": 0,
         "direction": direction},
        {"parents": {target: []}, "frontier": [target], "depth": 0,
         "direction": "in" if direction == "out" else "both"},
    ]  # fmt: skip
    meets: list[str] = []
    limited = False
    while all(side["frontier"] for side in sides):
        if sides[0]["depth"] + sides[1]["depth"] >= max_depth:
            break
        if len(sides[0]["parents"]) + len(sides[1]["parents"]) > MAX_PATH_VISITED:
            limited = True
            break
        grow, other = (0, 1) if len(sides[0]["frontier"]) <= len(sides[1]["frontier"]) else (1, 0)
        side = sides[grow]
        parents: Parents = side["parents"]
        new: Parents = {}
        for parent, relation, node_id, seen_as, _ in reader.expand(
            side["frontier"], [(side["direction"], relations)]
        ):
            if node_id not in parents:
                new.setdefault(node_id, []).append((parent, relation, seen_as))
        for node_id, options in new.items():
            parents[node_id] = sorted(set(options))
        side["frontier"] = sorted(new)
        side["depth"] += 1
        meets = [node_id for node_id in side["frontier"] if node_id in sides[other]["parents"]]
        if meets:
            break
    if not meets:
        return PathResult(paths=[], length=None, total=0, limited=limited)
    forward, backward = sides[0]["parents"], sides[1]["parents"]
    count_f, count_b = _counter(forward), _counter(backward)
    total = sum(count_f(m) * count_b(m) for m in meets)
    chosen = list(itertools.islice(_paths(forward, backward, meets), max_paths))
    ids = sorted({end for hops in chosen for hop in hops for end in (hop[0], hop[2])})
    keys = [hop[:3] for hops in chosen for hop in hops]
    nodes, facts = reader.details(ids, keys)
    paths = []
    for hops in chosen:
        walked = [hops[0][0] if hops[0][3] else hops[0][2]]
        built = []
        for src, relation, dst, forward_hop in hops:
            fact = facts[(src, relation, dst)]
            walked.append(dst if forward_hop else src)
            built.append(PathHop(
                source=src, target=dst, relation=relation, forward=forward_hop,
                confidence=fact.confidence, confidence_score=fact.confidence_score,
                explanation=fact.explanation, file=fact.file, line=fact.line,
            ))  # fmt: skip
        paths.append(GraphPath(nodes=[nodes[i] for i in walked], hops=built))
    length = sides[0]["depth"] + sides[1]["depth"]
    return PathResult(paths=paths, length=length, total=total)


def _counter(parents: Parents) -> Callable[[str], int]:
    """Number of shortest paths from the side's root to a node (memoized, iterative)."""
    memo: dict[str, int] = {}

    def count(node_id: str) -> int:
        stack = [node_id]
        while stack:
            current = stack[-1]
            if current in memo:
                stack.pop()
                continue
            pending = [p for p, _, _ in parents[current] if p not in memo]
            if pending:
                stack.extend(pending)
                continue
            options = parents[current]
            memo[current] = sum(memo[p] for p, _, _ in options) if options else 1
            stack.pop()
        return memo[node_id]

    return count


# A hop as (edge source, relation, edge target, walked forwards?).
Hop = tuple[str, str, str, bool]


def _paths(forward: Parents, backward: Parents, meets: list[str]) -> Iterator[list[Hop]]:
    for meet in sorted(meets):
        for head in _hops(forward, meet, forward=True):
            for tail in _hops(backward, meet, forward=False):
                yield head + tail


def _hops(parents: Parents, node_id: str, *, forward: bool) -> Iterator[list[Hop]]:
    """The hops between a side's root and node_id, in the order the path walks them: root →
    node_id on the forward side (a parent is one step nearer the source), node_id → root on the
    backward side (a parent is one step nearer the target)."""
    if not parents[node_id]:
        yield []
        return
    for parent, relation, seen_as in parents[node_id]:
        source, target = (parent, node_id) if seen_as == "out" else (node_id, parent)  # seen from the parent
        # The path walks parent -> node on the forward side, node -> parent on the backward side.
        hop = (source, relation, target, source == (parent if forward else node_id))
        for rest in _hops(parents, parent, forward=forward):
            yield rest + [hop] if forward else [hop] + rest
