"""Betweenness of a graph being written, computed in a forked process while the store writes it.

A full write (a first ingest, a `clear` rebuild) always needs new scores, and they depend only on
the dependency edges, which the ingest holds in memory before the store has them. So the scores
are computed by a child process from those edges while the parent writes the store (two cores:
the write on one, the BFSs on the other), and centrality.refresh takes them instead of reading
the edges back and computing after the write.

The child sees the edges GraphStore.edge_pairs would give once the write is done: each edge key
once, of the dependency relations, between two nodes of the batch (never a stub end), at most
MAX_EDGES per relation group. Pair order may differ from a store's (which is unspecified), so
sampled sources on a graph too large for the time budget may too, as between two backends.

Fails soft: no fork on this platform, no room for a copy of this process (in the worst case every
page is copied while the child lives: twice the resident memory must fit the Lambda function's
memory, or the machine's), a child that dies or runs late, and refresh computes in-process as
before. The child runs pure Python on copies of plain tuples and exits without
touching the parent's connections (multiprocessing's fork start ends it with os._exit).
"""

from __future__ import annotations

import gc
import logging
import multiprocessing
import os
import time
from collections.abc import Sequence
from multiprocessing.connection import Connection
from typing import Any

from rhumbline import centrality
from rhumbline.stores.graph.protocol import Edge, Node

log = logging.getLogger(__name__)

# How long refresh waits for the child past its own time budget before computing in-process.
_GRACE_SECONDS = 5.0


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


class Ahead:
    """A child computing centrality.Scores (key left empty: the version is stamped later)."""

    def __init__(self, process: Any, receiving: Connection, seconds: float) -> None:
        self._process = process
        self._receiving = receiving
        self._deadline = time.monotonic() + seconds + _GRACE_SECONDS

    def result(self) -> centrality.Scores | None:
        """The child's scores, or None (it failed, or is late: the caller computes them)."""
        try:
            if self._receiving.poll(max(0.0, self._deadline - time.monotonic())):
                found = self._receiving.recv()
                if isinstance(found, centrality.Scores):
                    return found
            log.warning("centrality computed ahead is missing; computing it now")
        except (EOFError, OSError):
            log.warning("the centrality child process failed; computing it now", exc_info=True)
        finally:
            self.close()
        return None

    def close(self) -> None:
        """Stop the child if it still runs (a failed write needs no scores). Idempotent."""
        if self._process.is_alive():
            self._process.terminate()
        self._process.join(timeout=5)
        self._receiving.close()


def start(
    project: str,
    nodes: Sequence[Node],
    edges: Sequence[Edge],
    *,
    seconds: float = centrality.REFRESH_SECONDS,
) -> Ahead | None:
    """Fork a child computing the scores of this graph; None where processes cannot be forked
    or a copy of this process might not fit in memory."""
    if not _room_for_a_copy():
        log.info("no memory to spare for a forked copy; centrality is computed after the write")
        return None
    try:
        context = multiprocessing.get_context("fork")
        receiving, sending = context.Pipe(duplex=False)
        pairs = dependency_pairs(nodes, edges)
        process = context.Process(
            target=_child, args=(pairs, project, seconds, time.monotonic(), sending), daemon=True
        )
        process.start()
    except Exception:  # noqa: BLE001 — no fork here (or a daemonic parent): refresh computes it
        log.info("cannot fork to compute centrality ahead; it is computed after the write", exc_info=True)
        return None
    sending.close()  # the child's end: the parent sees EOF if the child dies
    return Ahead(process, receiving, seconds)


def _room_for_a_copy() -> bool:
    """Worst case, every page either process writes while the child lives is copied: fork only
    when twice this process's resident memory fits what it may use (the Lambda function's
    memory, else the machine's). False when that cannot be read."""
    try:
        page = os.sysconf("SC_PAGE_SIZE")
        lambda_mb = os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE")
        limit = int(lambda_mb) * 2**20 if lambda_mb else page * os.sysconf("SC_PHYS_PAGES")
        with open("/proc/self/statm", encoding="ascii") as statm:
            resident = int(statm.read().split()[1]) * page
    except (OSError, ValueError):
        return False
    return 2 * resident < limit


def _child(
    pairs: list[tuple[str, str]], project: str, seconds: float, started: float, sending: Connection
) -> None:
    # The parent's objects (the whole graph) are shared copy-on-write: a cyclic collection would
    # walk them all, copying their pages, for nothing (the child builds no cycles).
    gc.disable()
    sending.send(centrality.scores_of(pairs, project, "", seconds, started))
    sending.close()
