"""The snapshot of a clearing write, encoded by a forked child while the store writes the graph.

A clearing write (first ingest, `clear`, or a stored version without a snapshot) has nothing to
diff against: its snapshot is needed only to be stored, for the next ingest and graph_diff. So
the pipeline no longer encodes it before the write (one core busy, the other idle): a child
(rhumbline/forked.py) encodes it from the graph the parent holds while the parent writes the
store, and the parent stores the child's bytes once the write is done. The bytes are those
`encode` gives in-process (the fallback when there is no child, or it failed).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rhumbline import forked
from rhumbline.ingest.partitioned import Partitioned
from rhumbline.ingest.snapshots import Snapshot
from rhumbline.stores.graph.protocol import Edge, Node

# Encoding the sdist's 77k nodes takes a few seconds: this bounds a stuck child, not the work.
SECONDS = 60.0

# (blob, node count, edge count): counts of distinct node ids and edge keys, as the snapshot's.
Encoded = tuple[bytes, int, int]


def encode(nodes: Sequence[Node], edges: Sequence[Edge], inputs: dict[str, Any]) -> Encoded:
    """The stored snapshot (partitioned.py, format 2) of a graph built from `inputs` (files,
    unresolved, context, read_ns: see Partitioned)."""
    snapshot = Snapshot.of(nodes, edges)
    blob = Partitioned.of(snapshot.nodes, snapshot.edges, **inputs).encode()
    return blob, len(snapshot.nodes), len(snapshot.edges)


def start(
    nodes: Sequence[Node], edges: Sequence[Edge], inputs: dict[str, Any], *, copies: int = 2
) -> forked.Forked | None:
    """A child encoding the snapshot, or None (then `result` encodes it in-process)."""
    return forked.start(
        encode, (nodes, edges, inputs), seconds=SECONDS, expected=tuple, what="the snapshot",
        copies=copies,
    )  # fmt: skip


def result(
    child: forked.Forked | None, nodes: Sequence[Node], edges: Sequence[Edge], inputs: dict[str, Any]
) -> Encoded:
    """The child's encoding, or this process's when there is none."""
    found = child.result() if child is not None else None
    return found if found is not None else encode(nodes, edges, inputs)
