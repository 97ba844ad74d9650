"""The snapshot and the betweenness of a clearing write, computed by a forked child while the
store writes the graph.

A clearing write (first ingest, `clear`, or a stored version without a snapshot) has nothing to
diff against: its snapshot is needed only to be stored, for the next ingest and graph_diff, and
its betweenness only once it is written (centrality_ahead.py). So the pipeline no longer encodes
the snapshot before the write (one core busy, the other idle): one child (rhumbline/forked.py)
encodes it, then computes the scores, from the graph the parent holds, while the parent writes
the store; the parent stores the child's snapshot bytes once the write is done and hands the
scores to centrality.refresh. One child, not one per job: each copy-on-write child copies the
pages of every object it reads (refcounts), and two took the full sdist's summed PSS past 1 GB.

The snapshot bytes are those `encode` gives in-process (the fallback when there is no child, or it
failed; refresh then computes the scores itself, as before).

For a SQLite store the child first computes the search text of the later half of the nodes and
sends it before the rest (stores/graph/texts_ahead.py): the write takes it with `texts_of`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from rhumbline import centrality, centrality_ahead, forked
from rhumbline.ingest.partitioned import Partitioned
from rhumbline.ingest.snapshots import Snapshot
from rhumbline.stores.graph.model import Edge, Node

if TYPE_CHECKING:  # imported when used: the incremental path never needs the words
    from rhumbline.stores.graph.texts_ahead import TextsAhead

# Encoding the sdist's 77k nodes takes a few seconds: this bounds a stuck child, not the work.
SECONDS = 60.0 + centrality.REFRESH_SECONDS

# (blob, node count, edge count): counts of distinct node ids and edge keys, as the snapshot's.
Encoded = tuple[bytes, int, int]


def encode(nodes: Sequence[Node], edges: Sequence[Edge], inputs: dict[str, Any]) -> Encoded:
    """The stored snapshot (partitioned.py, format 2) of a graph built from `inputs` (files,
    unresolved, context, read_ns: see Partitioned)."""
    snapshot = Snapshot.of(nodes, edges)
    blob = Partitioned.of(snapshot.nodes, snapshot.edges, **inputs).encode()
    return blob, len(snapshot.nodes), len(snapshot.edges)


def start(
    project: str,
    nodes: Sequence[Node],
    edges: Sequence[Edge],
    inputs: dict[str, Any],
    *,
    texts: bool = False,
) -> forked.Forked | None:
    """A child encoding the snapshot, then computing the scores; None (then `result` encodes the
    snapshot in-process and refresh computes the scores). `texts`: first the node text of
    texts_ahead.py, which the write must take (`texts_of`) before `result`."""
    return forked.start(
        _child_with_texts if texts else _child, (project, nodes, edges, inputs),
        seconds=SECONDS, expected=tuple, what="the snapshot and centrality",
    )  # fmt: skip


def texts_of(child: forked.Forked | None) -> TextsAhead | None:
    """The handle a GraphBatch carries to the child's node text (started with `texts=True`)."""
    from rhumbline.stores.graph.texts_ahead import TextsAhead

    if child is None:
        return None
    return TextsAhead(lambda: child.take(tuple))


def result(
    child: forked.Forked | None,
    nodes: Sequence[Node],
    edges: Sequence[Edge],
    inputs: dict[str, Any],
    texts: TextsAhead | None = None,
) -> tuple[Encoded, centrality_ahead.Ahead | None]:
    """The child's snapshot and scores, or this process's snapshot and no scores. `texts`: the
    handle of a child started with `texts=True`, read past if the write did not take it."""
    if texts is not None:
        texts.drain()
    found = child.result() if child is not None else None
    if found is None:
        return encode(nodes, edges, inputs), None
    encoded, scores = found
    return encoded, centrality_ahead.Ahead(scores)


def _child(
    project: str, nodes: Sequence[Node], edges: Sequence[Edge], inputs: dict[str, Any]
) -> tuple[Encoded, centrality.Scores]:
    encoded = encode(nodes, edges, inputs)
    # The scores' time budget starts now, as it did in a child of their own.
    return encoded, centrality_ahead.scores(project, nodes, edges)


def _child_with_texts(
    project: str, nodes: Sequence[Node], edges: Sequence[Edge], inputs: dict[str, Any]
) -> Iterator[object]:
    from rhumbline.stores.graph import texts_ahead

    # The write waits for the text (forked.py sends it while this goes on with the rest).
    yield texts_ahead.compute(nodes)
    yield _child(project, nodes, edges, inputs)
