"""Search text of a clearing write's later nodes, computed by the snapshot child while the parent
writes the rest.

The search text of the node rows (words.node_text_values) is the largest Python cost of a SQLite
clearing write (the full Django sdist: about 1.1 CPU s of 4). The forked child of
ingest/snapshot_ahead.py holds the same graph and has room before its own work becomes the
critical path, so it computes the text of the later CHILD_SHARE of the nodes (in write order)
first and sends it (a few MB: the text only, not the rows), then goes on with the snapshot and
the scores. Meanwhile the parent writes the edges (their rids need no node row), then the earlier
nodes with text of its own, and takes the child's text for the rest.

Exact: both sides order the nodes the same way (`write_order`, the store's last-wins dedup) and
run the same function; the parent checks the shape of what it receives. Fails soft: no child, a
child that died, was late or sent something else: the parent computes the text itself.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from rhumbline.stores.graph.protocol import Node
from rhumbline.stores.graph.words import node_text_values

log = logging.getLogger(__name__)

# The later half: the parent's own half plus all the row inserts then end about when the child's
# text, snapshot and scores do (sdist, idle second core).
CHILD_SHARE = 0.5

# What the child sends: (first write position covered, that node's id, the text of each node
# from there on).
Texts = tuple[int, str, list[tuple[str, ...]]]


def write_order(nodes: Sequence[Node]) -> dict[str, Node]:
    """A batch's nodes by id as the store writes them: first-seen order, the last of each id."""
    return {node.id: node for node in nodes}


def first_of_child(count: int) -> int:
    """Write position of the first node whose text the child computes."""
    return count - int(count * CHILD_SHARE)


def compute(nodes: Sequence[Node]) -> Texts:
    """Run by the child: the text of the nodes from first_of_child on, in write order."""
    latest = list(write_order(nodes).values())
    start = first_of_child(len(latest))
    rest = latest[start:]
    return start, rest[0].id if rest else "", [
        node_text_values(n.name, n.qualified_name, n.file, n.docstring) for n in rest
    ]


class TextsAhead:
    """The parent's handle on the child's text: `take` once, when the write needs it."""

    def __init__(self, receive: Callable[[], object | None]) -> None:
        self._receive = receive
        self._taken = False

    def take(self, nodes: Sequence[Node]) -> list[tuple[str, ...]] | None:
        """The child's text for `nodes[first_of_child(len(nodes)):]` (a write's distinct nodes,
        in write order), or None (then compute it)."""
        if self._taken:
            return None
        self._taken = True
        found = self._receive()
        start = first_of_child(len(nodes))
        if (
            isinstance(found, tuple)
            and len(found) == 3
            and found[0] == start < len(nodes)
            and found[1] == nodes[start].id
            and isinstance(found[2], list)
            and len(found[2]) == len(nodes) - start
        ):
            return found[2]
        if found is not None:
            log.warning("node text computed ahead has the wrong shape; computing it now")
        return None

    def drain(self) -> None:
        """Read the text past if no write took it (the child's next value follows it)."""
        if not self._taken:
            self._taken = True
            self._receive()
