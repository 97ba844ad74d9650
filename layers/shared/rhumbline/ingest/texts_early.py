"""Search text of the nodes phase 2 builds first, computed by a forked child while the parent
resolves the calls (a clearing SQLite write; stores/graph/texts_ahead.py takes it).

Phase 2 resolves in one process: for the sdist's 2.7 s the second core idles. Every structure
node and every Python definition node (Module, Class, Function, Method, Variable: 54k of the
sdist's 77k) exists before the resolution starts, and their search text
(words.node_text_values) depends on nothing else. A child forked then computes it and sends it
back (the text only); the write (sqlite_bulk.insert_cleared) inserts those nodes with it instead
of computing it, and the snapshot child computes the text of every later node. The write was the
critical path of the store phase, the text its largest Python cost.

Exact: the child orders the nodes as the store does (write_order) and runs the same function;
the write uses a text only for the very node object it was computed from (TextsAhead.own). Fails
soft as forked.py does: no fork, no room, a dead or late child: the write computes the text.
"""

from __future__ import annotations

from collections.abc import Sequence

from rhumbline import forked
from rhumbline.stores.graph.protocol import Node
from rhumbline.stores.graph.texts_ahead import Early, write_order
from rhumbline.stores.graph.words import node_text_values

# The sdist's 54k nodes take well under a second: this bounds a stuck child, not the work.
SECONDS = 60.0


class Hook:
    """build_graph's `defined`: forks the child when phase 2 has built the first nodes; then
    `result` once phase 2 is done (before the snapshot child is forked: one child at a time)."""

    def __init__(self) -> None:
        self._nodes: list[Node] = []
        self._child: forked.Forked | None = None

    def __call__(self, nodes: Sequence[Node]) -> None:
        self._child = forked.start(
            _texts, (nodes,), seconds=SECONDS, expected=list, what="the first nodes' search text"
        )
        if self._child is not None:
            self._nodes = list(write_order(nodes).values())

    def result(self) -> Early | None:
        """The first nodes (in write order) and their text, or None (the write computes it)."""
        if self._child is None:
            return None
        texts, self._child = self._child.result(), None
        if texts is None or len(texts) != len(self._nodes):
            return None
        return self._nodes, texts

    def close(self) -> None:
        """Stop the child if it still runs (a failed phase 2). Idempotent."""
        if self._child is not None:
            self._child.close()
            self._child = None


def _texts(nodes: Sequence[Node]) -> list[tuple[str, ...]]:
    return [
        node_text_values(n.name, n.qualified_name, n.file, n.docstring)
        for n in write_order(nodes).values()
    ]
