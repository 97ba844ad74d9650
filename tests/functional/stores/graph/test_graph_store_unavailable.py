"""Unreachable, silent, locked or slow backends fail fast with GraphUnavailable."""

from __future__ import annotations

import socket
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from rhumbline.stores.graph.model import GraphBatch
from rhumbline.stores.graph.protocol import GraphStore, GraphUnavailable
from rhumbline.stores.graph.sqlite.store import SqliteGraphStore
from tests.functional.stores.graph.graph_samples import node

TIMEOUT = 1.0
CALLS: dict[str, Callable[[GraphStore], object]] = {
    "ensure_schema": lambda store: store.ensure_schema(),
    "apply": lambda store: store.apply("test/p", GraphBatch(nodes=[node("Function", "f")])),
    "get_node": lambda store: store.get_node("test/p", "x"),
    "edges_of": lambda store: store.edges_of("test/p", "x", "out", limit=10),
    "search": lambda store: store.search(["test/p"], "x"),
    "find_by_name": lambda store: store.find_by_name("test/p", "x"),
    "counts": lambda store: store.counts("test/p"),
    "delete_project": lambda store: store.delete_project("test/p"),
}


def _fails_within(call: Callable[[], object], seconds: float, match: str) -> None:
    started = time.monotonic()
    with pytest.raises(GraphUnavailable, match=match):
        call()
    assert time.monotonic() - started < seconds


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def silent_port() -> Iterator[int]:
    """Accepts TCP connections (the kernel does) but never says a word: a hung server."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield listener.getsockname()[1]


def _neo4j(port: int) -> GraphStore:
    from rhumbline.stores.graph.neo4j.store import Neo4jGraphStore

    return Neo4jGraphStore(f"bolt://127.0.0.1:{port}", "neo4j", "unused", timeout=TIMEOUT)


@pytest.mark.parametrize("operation", CALLS)
def test_neo4j_on_a_closed_port_is_unavailable(closed_port: int, operation: str) -> None:
    store = _neo4j(closed_port)
    try:
        _fails_within(lambda: CALLS[operation](store), TIMEOUT + 2, "unreachable")
    finally:
        store.close()


@pytest.mark.parametrize("operation", ["get_node", "apply", "search"])
def test_neo4j_that_never_answers_is_unavailable_after_the_timeout(
    silent_port: int, operation: str
) -> None:
    store = _neo4j(silent_port)
    try:
        _fails_within(lambda: CALLS[operation](store), TIMEOUT + 2, "unreachable")
    finally:
        store.close()


@pytest.mark.neo4j
def test_a_neo4j_query_past_its_timeout_is_unavailable(neo4j_server: dict[str, str]) -> None:
    from rhumbline.stores.graph.neo4j.store import Neo4jGraphStore

    store = Neo4jGraphStore(
        neo4j_server["uri"], neo4j_server["user"], neo4j_server["password"], timeout=0.5
    )
    # No public call is reliably slow on a small graph: drive the bounded read path directly.
    slow = "UNWIND range(1, 2000000000) AS x WITH x WHERE x < 0 RETURN count(*) AS c"
    try:
        # The server checks the deadline periodically: allow it a few seconds on a busy machine.
        _fails_within(lambda: store._read(slow), 0.5 + 5, "exceeded its 0.5 s timeout")
    finally:
        store.close()


def test_sqlite_locked_by_another_writer_is_unavailable_after_the_timeout(tmp_path: Path) -> None:
    path = tmp_path / "graph.sqlite3"
    store = SqliteGraphStore(path, timeout=0.3)
    store.ensure_schema()
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        _fails_within(lambda: CALLS["apply"](store), 0.3 + 2, "locked")
        assert store.counts("test/p").nodes == 0  # readers are not blocked (WAL)
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    CALLS["apply"](store)
    assert store.counts("test/p").nodes == 1
    store.close()


def test_a_sqlite_query_past_its_deadline_is_interrupted(tmp_path: Path) -> None:
    path = tmp_path / "graph.sqlite3"
    store = SqliteGraphStore(path)
    store.ensure_schema()
    store.apply("test/p", GraphBatch(nodes=[node("Function", f"m.f{i}", "m.py") for i in range(3000)]))
    impatient = SqliteGraphStore(path, timeout=1e-6)  # any statement of some length overruns it

    _fails_within(lambda: impatient.search(["test/p"], "f"), 2, "exceeded")
    _fails_within(lambda: impatient.delete_project("test/p"), 2, "exceeded")

    assert store.counts("test/p").nodes == 3000
    impatient.close()
    store.close()
