"""Betweenness of a graph being written, computed in a forked process while the store writes it.

A full write (a first ingest, a `clear` rebuild) always needs new scores, and they depend only on
the dependency edges, which the ingest holds in memory before the store has them. So the scores
are computed by a child process from those edges while the parent writes the store (two cores:
the write on one, the BFSs on the other), and centrality.refresh takes them instead of reading
the edges back and computing after the write. The child is the one that encodes the write's
snapshot first (ingest/snapshot_ahead.py): one copy-on-write copy of the process, not two.

The child sees the edges GraphStore.edge_pairs would give once the write is done: each edge key
once, of the dependency relations, between two nodes of the batch (never a stub end), at most
MAX_EDGES per relation group. Pair order may differ from a store's (which is unspecified), so
sampled sources on a graph too large for the time budget may too, as between two backends.

The child also derives the pairs from the nodes and edges (the parent's, copy-on-write): that
is work the parent's critical path (the write) no longer does.

Fails soft (rhumbline/forked.py): no fork on this platform, no room for the copy, a child that
dies or runs late, and refresh computes in-process as before.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

from rhumbline import centrality
from rhumbline.stores.graph.model import Edge, Node

log = logging.getLogger(__name__)


def dependency_pairs(nodes: Sequence[Node], edges: Sequence[Edge]) -> list[tuple[str, str]]:
    """The "depends on" pairs of a graph, as centrality._compute reads them from a store."""
    real = {node.id for node in nodes}
    keys = dict.fromkeys(  # each key once, in first-seen order (deterministic, unlike a set)
        (e.source, e.relation, e.target) for e in edges if e.source in real and e.target in real
    )
    pairs: list[tuple[str, str]] = []
    for relations, flip in ((centrality.DEPENDS_ON, False), (centrality.DEPENDED_ON_BY, True)):
        group = [(s, t) for s, relation, t in keys if relation in relations]
        if len(group) > centrality.MAX_EDGES:
            log.warning("centrality uses %d of %d %s edges", centrality.MAX_EDGES, len(group), relations)
            group = group[: centrality.MAX_EDGES]
        pairs.extend((t, s) if flip else (s, t) for s, t in group)
    return pairs


def scores(
    project: str, nodes: Sequence[Node], edges: Sequence[Edge], seconds: float = centrality.REFRESH_SECONDS
) -> centrality.Scores:
    """What refresh would compute after the write (key left empty: the version is stamped later),
    within `seconds` from now. Run by the forked child of ingest/snapshot_ahead.py."""
    return centrality.scores_of(dependency_pairs(nodes, edges), project, "", seconds, time.monotonic())


class Ahead:
    """Scores computed ahead (or None: the child failed, refresh computes them), in the shape
    centrality.refresh takes."""

    def __init__(self, found: centrality.Scores | None) -> None:
        self._found = found

    def result(self) -> centrality.Scores | None:
        return self._found
