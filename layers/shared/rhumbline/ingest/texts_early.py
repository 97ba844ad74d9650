"""Search text of the nodes phase 2 builds first, computed by a helper process while the parent
resolves the calls (a clearing SQLite write; stores/graph/texts_ahead.py takes it).

Phase 2 resolves in one process: for the sdist's 2.7 s the second core idled. Every structure
node and every Python definition node (Module, Class, Function, Method, Variable: 54k of the
sdist's 77k) exists before the resolution starts, and their search text
(words.node_text_values) depends on nothing else. A helper computes it meanwhile and sends it
back (the text only); the write (sqlite_bulk.insert_cleared) inserts those nodes with it instead
of computing it, and the snapshot child computes the text of every later node. The write was the
critical path of the store phase, the text its largest Python cost.

The helper is forked when the ingest starts, while the parent is small, and waits for the nodes'
fields (name, qualified name, file, docstring), which the parent sends through a pipe. A child
forked from the parent holding the parsed facts (about 400 MB on the sdist) cost the parent
0.2-0.5 CPU s of copy-on-write faults while it resolved: about what the text saves.

Exact: the helper orders the nodes as the store does (write_order) and runs the same function;
the write uses a text only for the very node object it was computed from (TextsAhead.own). Fails
soft as forked.py does: no fork, no room, a dead or late helper: the write computes the text.
"""

from __future__ import annotations

import logging
import multiprocessing
from collections.abc import Sequence
from multiprocessing.connection import Connection

from rhumbline import forked
from rhumbline.stores.graph.protocol import Node
from rhumbline.stores.graph.texts_ahead import Early, write_order
from rhumbline.stores.graph.words import node_text_values

log = logging.getLogger(__name__)

# The helper lives through phase 1 and phase 2; this bounds waiting for a stuck one at the end.
SECONDS = 900.0

# What the helper needs of a node: words.node_text_values' arguments.
Fields = tuple[str, str, str | None, str | None]


class Hook:
    """build_graph's `defined`: sends the first nodes to the helper when phase 2 has built
    them; `result` once phase 2 is done (before the snapshot child is forked); `close` in any
    case (idempotent)."""

    def __init__(self) -> None:
        self._nodes: list[Node] = []
        self._sending: Connection | None = None
        self._helper: forked.Forked | None = None
        try:
            receiving, self._sending = multiprocessing.get_context("fork").Pipe(duplex=False)
        except OSError:
            log.info("no pipe for the first nodes' search text; the write computes it")
            return
        self._helper = forked.start(
            _serve, (receiving, self._sending), seconds=SECONDS, expected=list,
            what="the first nodes' search text",
        )  # fmt: skip
        receiving.close()  # the helper's end

    def __call__(self, nodes: Sequence[Node]) -> None:
        if self._helper is None or self._sending is None or self._nodes:
            return
        latest = list(write_order(nodes).values())
        fields = [(n.name, n.qualified_name, n.file, n.docstring) for n in latest]
        try:
            self._sending.send(fields)
        except OSError:  # the helper died: the write computes the text
            log.warning("the helper computing the first nodes' search text is gone", exc_info=True)
            self.close()
            return
        self._nodes = latest

    def result(self) -> Early | None:
        """The first nodes (in write order) and their text, or None (the write computes it)."""
        if self._helper is None or not self._nodes:
            self.close()
            return None
        texts = self._helper.result()
        self._helper = None
        self.close()
        if texts is None or len(texts) != len(self._nodes):
            return None
        return self._nodes, texts

    def close(self) -> None:
        """Stop the helper if it still runs. Idempotent."""
        if self._helper is not None:
            self._helper.close()
            self._helper = None
        if self._sending is not None:
            self._sending.close()
            self._sending = None


def _serve(receiving: Connection, sending: Connection) -> list[tuple[str, ...]]:
    """Run by the helper: wait for the nodes' fields, return their text."""
    sending.close()  # the parent's end: its copy here would keep the pipe open if the parent died
    fields: list[Fields] = receiving.recv()
    return [node_text_values(*node) for node in fields]
