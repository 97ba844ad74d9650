"""Search text of a clearing SQLite write's nodes, computed by a helper process: the first nodes'
while the parent resolves the calls, the others' while it writes the edges
(stores/graph/texts_ahead.py takes both).

Phase 2 resolves in one process: for the sdist's 2.7 s the second core idled. Every structure
node and every Python definition node (Module, Class, Function, Method, Variable: 54k of the
sdist's 77k) exists before the resolution starts, and their search text
(words.node_text_values) depends on nothing else. The helper computes it meanwhile and sends it
back (the text only). Once phase 2 is done it gets the later nodes (Import, Decorator, other
languages, documents: 24k), whose text it computes with its word caches warm while the write
inserts the edges. The write (sqlite_bulk.insert_cleared) then computes no text at all, and the
snapshot child none either: the write was the critical path of the store phase, the text its
largest Python cost.

The helper is forked when the ingest starts, while the parent is small, and receives the nodes'
fields (name, qualified name, file, docstring) through a pipe. A child forked from the parent
holding the parsed facts (about 400 MB on the sdist) cost the parent 0.2-0.5 CPU s of
copy-on-write faults while it resolved: about what the text saves.

Exact: the helper orders the nodes as the store does (write_order) and runs the same function;
the write uses a first node's text only for the very node object it was computed from
(TextsAhead.own) and checks the shape of the later nodes' (TextsAhead.take). Fails soft as
forked.py does: no fork, no room, a dead or late helper: the write (or, with no first text, the
snapshot child) computes the text.
"""

from __future__ import annotations

import logging
import multiprocessing
from collections.abc import Iterator, Sequence
from multiprocessing.connection import Connection

from rhumbline import forked
from rhumbline.stores.graph.protocol import Node
from rhumbline.stores.graph.texts_ahead import Early, Texts, TextsAhead, write_order
from rhumbline.stores.graph.words import node_text_values

log = logging.getLogger(__name__)

# The helper lives through phase 1 and phase 2; this bounds waiting for a stuck one at the end.
SECONDS = 900.0

# What the helper needs of a node: words.node_text_values' arguments.
Fields = tuple[str, str, str | None, str | None]


class Hook:
    """build_graph's `defined`: sends the first nodes to the helper when phase 2 has built
    them; `finish` once phase 2 is done (before the snapshot child is forked); `close` in any
    case (idempotent)."""

    def __init__(self) -> None:
        self._first: list[Node] = []
        self._sending: Connection | None = None
        self._helper: forked.Forked | None = None
        try:
            receiving, self._sending = multiprocessing.get_context("fork").Pipe(duplex=False)
        except OSError:
            log.info("no pipe for the nodes' search text; the write computes it")
            return
        self._helper = forked.start(
            _serve, (receiving, self._sending), seconds=SECONDS, expected=tuple,
            what="the nodes' search text",
        )  # fmt: skip
        receiving.close()  # the helper's end

    def __call__(self, nodes: Sequence[Node]) -> None:
        if self._helper is None or self._first:
            return
        first = list(write_order(nodes).values())
        if self._send([_fields(n) for n in first]):
            self._first = first

    def finish(self, nodes: Sequence[Node]) -> TextsAhead | None:
        """The write's handle on the text of `nodes` (the whole graph, whose first nodes phase 2
        handed over): the first nodes' text now, the others' when the write takes it. None: the
        helper failed or was never given the first nodes (the caller computes the text)."""
        if self._helper is None or not self._first:
            self.close()
            return None
        later = list(write_order(nodes).values())[len(self._first) :]
        fields = [_fields(n) for n in later]
        if not self._send((len(self._first), later[0].id if later else "", fields)):
            return None
        texts = self._helper.take(list)
        if texts is None or len(texts) != len(self._first):
            self.close()
            return None
        early: Early = (self._first, texts)
        return TextsAhead(self._later, early)

    def _later(self) -> object | None:
        helper, self._helper = self._helper, None
        found = None if helper is None else helper.result()
        self.close()
        return found

    def _send(self, value: object) -> bool:
        try:
            self._sending.send(value)  # type: ignore[union-attr]  # open while the helper lives
        except OSError:  # the helper died: the text is computed without it
            log.warning("the helper computing the nodes' search text is gone", exc_info=True)
            self.close()
            return False
        return True

    def close(self) -> None:
        """Stop the helper if it still runs. Idempotent."""
        if self._helper is not None:
            self._helper.close()
            self._helper = None
        if self._sending is not None:
            self._sending.close()
            self._sending = None


def _fields(node: Node) -> Fields:
    return node.name, node.qualified_name, node.file, node.docstring


def _serve(receiving: Connection, sending: Connection) -> Iterator[object]:
    """Run by the helper: the first nodes' text, then the later nodes' (start, first id, text)."""
    sending.close()  # the parent's end: its copy here would keep the pipe open if the parent died
    first: list[Fields] = receiving.recv()
    yield [node_text_values(*node) for node in first]
    start, first_id, later = receiving.recv()
    texts: Texts = (start, first_id, [node_text_values(*node) for node in later])
    yield texts
