"""Betweenness centrality of a project's dependency graph, computed once per graph version.

blast_radius ranks what depends on a node by how much of the graph's traffic flows through each
dependent (betweenness). Computing that is a whole-graph job (Brandes: one BFS per source node),
far too slow for a call, so it is never done per call:

- after a successful ingest, `refresh(...)` computes it and stores it in the relational store
  (`graph_centrality`, keyed by project and graph version) — the ingest pipeline calls it;
- on a call, `scores(...)` reads it: from this process's memory (warm), else the stored row (one
  read, then kept in memory), else — a graph ingested before this existed, or whose refresh
  failed — it is computed once, stored, and reused by every later call and every other function.

A new graph version has a new key: scores of an older graph are never served for a newer one,
except when the ingest proved the dependency topology identical (`refresh(same_topology_as=...)`):
then the older version's stored scores become the new one's (re-keyed in place, not recomputed).

Approximation: on large graphs the BFS sources are a seeded random sample (Brandes & Pich 2007),
as many as fit in a time budget; the estimate is scaled by n / sources. With every node a source
the values are exact. Managed Neo4j may lack the GDS plugin, so this runs in Python on the edges
the store exports (`GraphStore.edge_pairs`), the same for both backends; an ingest that has just
written its whole graph hands over the same pairs from memory (`dependency_pairs`) instead, as
exporting a large graph's edges back from Neo4j takes longer than the computation. The scores
depend on the set of pairs alone, never on the order either source lists them in.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from rhumbline.stores.graph.model import Edge, Leg, Node

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from rhumbline.stores.graph.protocol import GraphStore

log = logging.getLogger(__name__)

# "B depends on A": B -R-> A for these relations; DECORATES points the other way (the decorator
# at what it decorates), so its dependents are reached over outgoing edges.
DEPENDS_ON = ("CALLS", "IMPORTS", "INHERITS", "IMPLEMENTS", "REFERENCES")
DEPENDED_ON_BY = ("DECORATES",)
DEPENDENTS: tuple[Leg, ...] = (("in", DEPENDS_ON), ("out", DEPENDED_ON_BY))

MAX_EDGES = 3_000_000
MAX_STORED = 50_000  # the highest scores kept; the rest are treated as 0
EXACT_UP_TO = 2_000  # nodes: up to this many, every node is a source (exact values)
REFRESH_SECONDS = 10.0  # after an ingest
LAZY_SECONDS = 4.0  # on a call that finds no stored scores
_MEMORY_SLOTS = 8


@dataclass(frozen=True)
class Scores:
    key: str  # which graph: "v<version stamp>", or a fingerprint of an unversioned graph
    values: dict[str, float]  # node id -> normalized betweenness (absent: 0)
    exact: bool
    sources: int
    node_count: int
    edge_count: int
    seconds: float = 0.0  # what computing them took
    computed_at: datetime | None = None

    def of(self, node_id: str) -> float:
        return self.values.get(node_id, 0.0)


# -- the algorithm -----------------------------------------------------------------------------


def betweenness(
    edges: Sequence[tuple[str, str]],
    *,
    max_sources: int | None = None,
    seconds: float | None = None,
    seed: str = "",
) -> tuple[dict[str, float], int, bool]:
    """Brandes' betweenness of a directed, unweighted graph, normalized by (n-1)(n-2).

    Returns (scores of the nodes above 0, sources used, exact). Sources run in a seeded random
    order until `max_sources` or `seconds` is reached; partial sums are scaled by n / sources.
    The nodes are numbered in id order and each one's successors sorted, so the result depends on
    the set of edges only, not on the order they come in.
    """
    unique = set(edges)
    names = sorted({end for pair in unique for end in pair})
    n = len(names)
    if n < 3:
        return {}, n, True
    index = {name: number for number, name in enumerate(names)}
    successors: list[list[int]] = [[] for _ in range(n)]
    for source, target in unique:
        if source != target:
            successors[index[source]].append(index[target])
    del unique, index
    for following in successors:
        following.sort()
    order = list(range(n))
    random.Random(f"{seed}:{n}:{sum(map(len, successors))}").shuffle(order)
    limit = n if max_sources is None else max(1, min(n, max_sources))
    deadline = time.monotonic() + seconds if seconds is not None else None
    totals = [0.0] * n
    work = _Work(n)
    used = 0
    for source in order[:limit]:
        if successors[source]:  # a source that reaches nothing adds nothing (most of a code graph)
            work.accumulate(source, successors, totals)
        used += 1
        if deadline is not None and time.monotonic() > deadline:
            break
    scale = (n / used) / ((n - 1) * (n - 2))
    values = {names[i]: total * scale for i, total in enumerate(totals) if total > 0}
    return values, used, used == n


class _Work:
    """One source of Brandes' algorithm at a time, over arrays indexed by node number that are
    allocated once per graph and reset only where a BFS wrote (most BFSs reach few nodes): dicts
    per source cost more than the traversal itself."""

    def __init__(self, n: int) -> None:
        self.sigma = [0] * n  # shortest paths from the source
        self.distance = [-1] * n  # -1: not reached
        self.delta = [0.0] * n
        self.predecessors: list[list[int] | None] = [None] * n

    def accumulate(self, source: int, successors: list[list[int]], totals: list[float]) -> None:
        """BFS counting shortest paths, then back-propagation; the same float operations in the
        same order as the textbook version, so the same values."""
        sigma, distance, delta, predecessors = self.sigma, self.distance, self.delta, self.predecessors
        sigma[source], distance[source], predecessors[source] = 1, 0, []
        visited = [source]  # also the BFS queue: visited[position:] is still to expand
        position = 0
        while position < len(visited):
            v = visited[position]
            position += 1
            next_distance = distance[v] + 1
            paths = sigma[v]
            for w in successors[v]:
                found = distance[w]
                if found < 0:
                    distance[w] = next_distance
                    sigma[w] = paths
                    predecessors[w] = [v]
                    visited.append(w)
                elif found == next_distance:
                    sigma[w] += paths
                    predecessors[w].append(v)  # type: ignore[union-attr]
        for w in reversed(visited):
            coefficient = (1.0 + delta[w]) / sigma[w]
            for v in predecessors[w]:  # type: ignore[union-attr]
                delta[v] += sigma[v] * coefficient
            if w != source:
                totals[w] += delta[w]
        for w in visited:
            sigma[w], distance[w], delta[w], predecessors[w] = 0, -1, 0.0, None


# -- caching per graph version -----------------------------------------------------------------

_memory: OrderedDict[tuple[str, str], Scores] = OrderedDict()
_lock = threading.Lock()


def graph_key(graph: GraphStore, project: str) -> str:
    version = graph.graph_version(project)
    if version is not None:
        return f"v{version}"
    # A graph written without a version stamp (tests, tools that write directly): its shape.
    counts = graph.counts(project)
    relations = ",".join(f"{r}={c}" for r, c in sorted(counts.edges_by_relation.items()))
    return f"u{counts.nodes}:{relations}"[:100]


def scores(
    graph: GraphStore, engine: Engine, project: str, *, seconds: float = LAZY_SECONDS, version: int | None = None
) -> Scores:
    """The scores of the project's current graph: memory, else stored, else computed once.
    `version`: the graph's version stamp when the caller has just read it (saves a round trip)."""
    key = f"v{version}" if version is not None else graph_key(graph, project)
    with _lock:
        found = _memory.get((project, key))
        if found is not None:
            _memory.move_to_end((project, key))
            return found
    stored = _load(engine, project, key)
    if stored is None:
        stored = _compute(graph, project, key, seconds)
        _save(engine, project, stored)
    _remember(project, stored)
    return stored


def refresh(
    graph: GraphStore,
    engine: Engine,
    project: str,
    *,
    seconds: float = REFRESH_SECONDS,
    same_topology_as: int | None = None,
    pairs: Sequence[tuple[str, str]] | None = None,
) -> Scores | None:
    """Compute and store the scores of the project's current graph (the ingest hook). Never
    raises: a failure is logged and the first call that needs the scores computes them.

    `same_topology_as`: a version whose dependency edges (the (source, target) pairs of the
    relations above) are exactly the current graph's: the caller diffed the two. Betweenness
    depends on nothing else, so that version's stored scores are re-keyed to the new version
    instead of recomputed (a body-only edit or a no-change re-ingest costs one UPDATE).
    `pairs`: the current graph's dependency_pairs when the caller holds its whole graph (an
    ingest that built it): they are not read back from the store."""
    try:
        key = graph_key(graph, project)
        if _load(engine, project, key) is not None:
            return None
        if same_topology_as is not None and _rekey(engine, project, f"v{same_topology_as}", key):
            return None
        computed = _compute(graph, project, key, seconds, pairs)
        _save(engine, project, computed)
        _remember(project, computed)
        return computed
    except Exception:  # noqa: BLE001 - an ingest that succeeded must not fail here
        log.warning("computing centrality of %s failed; it will be computed on first use", project, exc_info=True)
        return None


def _rekey(engine: Engine, project: str, old: str, new: str) -> bool:
    """Move the stored scores of graph `old` to graph `new` (one UPDATE: the scores are not read
    or rewritten; older graphs' scores are never read again anyway). False if `old` has none."""
    from sqlalchemy import select, update

    from rhumbline.stores.relational.schema.exploration import GraphCentrality
    from rhumbline.stores.relational.schema.core import Project
    from rhumbline.stores.relational.session import session_scope

    if old == new:
        return False
    with session_scope(engine) as session:
        owner = select(Project.id).where(Project.slug == project).scalar_subquery()
        moved = session.execute(
            update(GraphCentrality)
            .where(GraphCentrality.project_id == owner, GraphCentrality.graph_key == old)
            .values(graph_key=new)
        )
        return moved.rowcount == 1


def forget() -> None:
    """Drop this process's cached scores (tests)."""
    with _lock:
        _memory.clear()


def _remember(project: str, found: Scores) -> None:
    with _lock:
        _memory[(project, found.key)] = found
        _memory.move_to_end((project, found.key))
        while len(_memory) > _MEMORY_SLOTS:
            _memory.popitem(last=False)


def dependency_pairs(nodes: Iterable[Node], edges: Iterable[Edge]) -> list[tuple[str, str]]:
    """The pairs `_compute` reads from a store holding exactly `nodes` and `edges`: each edge of
    the relations above between two of the nodes (GraphStore.edge_pairs: stubs are no nodes),
    as "depends on" (DECORATES flipped), each group of relations capped at MAX_EDGES as there."""
    ids = {node.id for node in nodes}
    groups: dict[str, list[tuple[str, str]]] = {relation: [] for relation in (*DEPENDS_ON, *DEPENDED_ON_BY)}
    for edge in edges:
        group = groups.get(edge.relation)
        if group is not None and edge.source in ids and edge.target in ids:
            group.append((edge.source, edge.target))
    del ids
    found: list[tuple[str, str]] = []
    for relations, flip in ((DEPENDS_ON, False), (DEPENDED_ON_BY, True)):
        pairs = [pair for relation in relations for pair in groups.pop(relation)]
        _warn_capped(len(pairs), relations)
        found.extend((t, s) if flip else (s, t) for s, t in pairs[:MAX_EDGES])
    return found


def _warn_capped(total: int, relations: Sequence[str], project: str = "") -> None:
    if total > MAX_EDGES:
        log.warning("centrality of %s uses %d of its %d %s edges", project or "a graph", MAX_EDGES, total, relations)


def _exported(graph: GraphStore, project: str) -> list[tuple[str, str]]:
    """The project's dependency pairs as the store holds them: every edge as "depends on",
    DECORATES pairs flipped."""
    edges: list[tuple[str, str]] = []
    for relations, flip in ((DEPENDS_ON, False), (DEPENDED_ON_BY, True)):
        pairs, total = graph.edge_pairs(project, relations=list(relations), limit=MAX_EDGES)
        _warn_capped(total, relations, project)
        edges.extend((t, s) if flip else (s, t) for s, t in pairs)
    return edges


def _compute(
    graph: GraphStore, project: str, key: str, seconds: float, pairs: Sequence[tuple[str, str]] | None = None
) -> Scores:
    from rhumbline.stores.relational.schema.base import utcnow

    started = time.monotonic()
    edges = _exported(graph, project) if pairs is None else pairs
    nodes = len({end for pair in edges for end in pair})
    # Small graphs get exact values; large ones as many sampled sources as the budget allows.
    budget = None if nodes <= EXACT_UP_TO else max(0.1, seconds - (time.monotonic() - started))
    values, used, exact = betweenness(edges, seconds=budget, seed=project)
    best = dict(sorted(values.items(), key=lambda item: (-item[1], item[0]))[:MAX_STORED])
    elapsed = time.monotonic() - started
    log.info("centrality of %s (%s): %d nodes, %d edges, %d sources, %.2f s", project, key, nodes,
             len(edges), used, elapsed)  # fmt: skip
    return Scores(
        key=key,
        values={k: float(f"{v:.6g}") for k, v in best.items()},
        exact=exact,
        sources=used,
        node_count=nodes,
        edge_count=len(edges),
        seconds=round(elapsed, 3),
        computed_at=utcnow(),
    )


def _load(engine: Engine, project: str, key: str) -> Scores | None:
    from sqlalchemy import select

    from rhumbline.stores.relational.schema.exploration import GraphCentrality
    from rhumbline.stores.relational.schema.core import Project
    from rhumbline.stores.relational.session import session_scope

    with session_scope(engine) as session:
        row = session.scalar(
            select(GraphCentrality)
            .join(Project, Project.id == GraphCentrality.project_id)
            .where(Project.slug == project, GraphCentrality.graph_key == key)
        )
        if row is None:
            return None
        return Scores(
            key=key, values=dict(row.scores), exact=row.exact, sources=row.sources,
            node_count=row.node_count, edge_count=row.edge_count, seconds=row.seconds,
            computed_at=row.computed_at,
        )  # fmt: skip


def _save(engine: Engine, project: str, found: Scores) -> None:
    from sqlalchemy import delete
    from sqlalchemy.exc import IntegrityError

    from rhumbline.stores.relational import projects
    from rhumbline.stores.relational.schema.exploration import GraphCentrality
    from rhumbline.stores.relational.schema.base import utcnow
    from rhumbline.stores.relational.session import session_scope

    try:
        with session_scope(engine) as session:
            owner = projects.get_or_create(session, project)
            # Older graphs' scores are never read again.
            session.execute(
                delete(GraphCentrality).where(
                    GraphCentrality.project_id == owner.id, GraphCentrality.graph_key != found.key
                )
            )
            session.add(GraphCentrality(
                project_id=owner.id, graph_key=found.key, computed_at=found.computed_at or utcnow(), node_count=found.node_count,
                edge_count=found.edge_count, sources=found.sources, exact=found.exact,
                seconds=found.seconds, scores=found.values,
            ))  # fmt: skip
    except IntegrityError:
        # Another function computed the same graph's scores first: theirs are as good.
        log.info("centrality of %s (%s) was stored concurrently", project, found.key)
