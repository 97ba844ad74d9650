"""A staged Neo4j write run by concurrent writers (neo4j/writers.py, neo4j/staged.py) on the real
Neo4j, on a real repository (this project's `rhumbline/stores` package, ingested):

- it builds exactly the graph one writer builds: every node with its properties and labels, every
  stub, every relationship with its properties, none twice, while its transactions really overlap;
- a writer failing on the server fails the version cleanly: the others stop, the stage is dropped,
  the version is recorded failed and every reader keeps the previous version, whole.
"""

from __future__ import annotations

import shutil
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from rhumbline.ingest.pipeline import ingest_local
from rhumbline.stores.graph.neo4j import bulk as neo4j_bulk, staged as neo4j_staged
from rhumbline.stores.graph.neo4j.store import Neo4jGraphStore
from rhumbline.stores.relational import versions
from rhumbline.stores.relational.session import session_scope
from tests.functional.ingest.conftest import engine  # noqa: F401 - a fixture used by name
from tests.functional.ingest.graph_dump import dump

pytestmark = pytest.mark.neo4j

PACKAGE = Path(__file__).parents[2] / "layers" / "shared" / "rhumbline" / "stores"
# Small transactions: each phase of this repository's write is dozens of them, for 4 writers.
TX_ROWS = 150
WRITERS = 4
MEET_SECONDS = 30.0


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    root = tmp_path / "stores"
    shutil.copytree(PACKAGE, root, ignore=shutil.ignore_patterns("__pycache__"))
    return root


@pytest.fixture
def projects() -> list[str]:
    return []


@pytest.fixture
def writers(neo4j_server: dict[str, str], projects: list[str]) -> Iterator[Callable[[int], Neo4jGraphStore]]:
    """Stores of their own with `n` concurrent writers; the test's projects deleted after."""
    opened: list[Neo4jGraphStore] = []

    def make(n: int) -> Neo4jGraphStore:
        store = Neo4jGraphStore(
            neo4j_server["uri"], neo4j_server["user"], neo4j_server["password"], timeout=20.0,
            tx_rows=TX_ROWS, writers=n,
        )  # fmt: skip
        store.ensure_schema()
        opened.append(store)
        return store

    yield make
    for project in projects:
        opened[0].delete_project(project)
    for store in opened:
        store.close()


def _project(projects: list[str]) -> str:
    projects.append(f"test/w{uuid.uuid4().hex[:12]}")
    return projects[-1]


class Overlap:
    """Wraps the staged write's transactions: how many ran at once, at most, and the phase of
    each one started before and after a failure (`fail`: the transaction to fail on the server).
    `meet`: that many first transactions each wait until all of them have started, so they run
    at once whatever the machine's load (a write that runs one at a time never gets past them)."""

    def __init__(
        self, monkeypatch: pytest.MonkeyPatch, fail: Callable[[str, int], bool] | None = None, meet: int = 0
    ) -> None:
        self.running = self.most = 0
        self._started = 0
        meeting = threading.Barrier(meet) if meet else None
        self.phases: list[str] = []
        self.after_failure: list[str] = []
        self.failed = self._doomed = False
        self._lock = threading.Lock()
        real = neo4j_staged._run_transaction

        def run(store: Neo4jGraphStore, steps: list[Any]) -> list[Any]:
            phase = _phase(steps)
            with self._lock:
                (self.after_failure if self.failed else self.phases).append(phase)
                self.running += 1
                self.most = max(self.most, self.running)
                self._started += 1
                waits = meeting is not None and self._started <= meet
                doomed = fail is not None and not self._doomed and fail(phase, self.phases.count(phase))
                self._doomed |= doomed
            try:
                if waits:
                    assert meeting is not None
                    meeting.wait(timeout=MEET_SECONDS)  # BrokenBarrierError: they never ran at once
                if not doomed:
                    return real(store, steps)
                try:  # a real server error in one writer's transaction, after its edges were sent
                    return real(store, [*steps, ("RETURN 1 / $zero AS x", {"zero": 0}, 0)])
                finally:
                    with self._lock:
                        self.failed = True
            finally:
                with self._lock:
                    self.running -= 1

        monkeypatch.setattr(neo4j_staged, "_run_transaction", run)


def _phase(steps: list[Any]) -> str:
    text = steps[-1][0]
    if text in (neo4j_bulk.CREATE_NODES, neo4j_bulk.CREATE_STUBS):
        return "nodes"
    if text.startswith(neo4j_bulk.SET_KINDS.split("{label}")[0]):
        return "kinds"
    return "edges" if "CREATE (a)-[r:" in text else "stamp"


def _dump(store: Neo4jGraphStore, project: str) -> tuple[dict[str, tuple], dict[tuple[str, str, str], tuple]]:
    """dump(), the project's name (its Repository node's) written as `<project>`."""
    nodes, edges = dump(store, project)
    return {key: tuple("<project>" if v == project else v for v in fields) for key, fields in nodes.items()}, edges


def _shape(store: Neo4jGraphStore, project: str) -> tuple[Any, ...]:
    """What dump() leaves out: every node's labels (stubs included), and relationships counted by
    type (dump keys them, so a relationship written twice would not show there)."""
    labels = store._read(
        "MATCH (n:CodeNode {project: $project}) RETURN n.id AS id, labels(n) AS labels ORDER BY id", project=project
    )
    relations = store._read(
        "MATCH (:CodeNode {project: $project})-[r]->() RETURN type(r) AS t, count(r) AS c ORDER BY t", project=project
    )
    return [(r["id"], sorted(r["labels"])) for r in labels], [(r["t"], r["c"]) for r in relations]


def test_concurrent_writers_build_exactly_the_graph_one_writer_builds(
    repository: Path, engine: Engine, writers: Callable[[int], Neo4jGraphStore], projects: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    serial, parallel = writers(1), writers(WRITERS)
    one, many = _project(projects), _project(projects)
    alone = Overlap(monkeypatch)
    first = ingest_local(repository, one, store=serial, engine=engine, workers=1)
    monkeypatch.undo()
    together = Overlap(monkeypatch, meet=WRITERS)
    second = ingest_local(repository, many, store=parallel, engine=engine, workers=1)

    assert alone.most == 1 and together.most == WRITERS  # the second write's transactions overlapped
    assert alone.phases.count("edges") > 2 * WRITERS  # every phase had work for every writer
    assert (first.node_count, first.edge_count) == (second.node_count, second.edge_count)
    assert first.node_count > 1_000 and first.edge_count > first.node_count
    nodes, edges = _dump(serial, one)
    assert (nodes, edges) == _dump(parallel, many) and len(nodes) == first.node_count
    assert _shape(serial, one) == _shape(parallel, many)
    assert serial.counts(one) == parallel.counts(many)
    assert sum(c for _, c in _shape(parallel, many)[1]) == second.edge_count
    assert parallel.graph_version(many) == serial.graph_version(one) == 1


def test_a_writer_failing_fails_the_version_and_leaves_the_previous_one_served(
    repository: Path, engine: Engine, writers: Callable[[int], Neo4jGraphStore], projects: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    store, reader = writers(WRITERS), writers(1)  # the reader: another container
    project = _project(projects)
    ingest_local(repository, project, store=store, engine=engine, workers=1)
    before = (dump(reader, project), _shape(reader, project), reader.counts(project))
    (repository / "graph" / "added.py").write_text("def added_after_the_first_version():\n    return 1\n")

    # The third edge transaction fails on the server while other writers are writing theirs.
    overlap = Overlap(monkeypatch, fail=lambda phase, number: phase == "edges" and number == 3)
    with pytest.raises(Exception, match="/ by zero") as failed:
        ingest_local(repository, project, store=store, engine=engine, workers=1, clear=True)
    assert not isinstance(failed.value, AssertionError)

    assert overlap.failed and overlap.most > 1
    # The others stopped: the transactions queued for the writers were cancelled (a writer ending
    # its own in the instant before may have started one more), and no kinds phase ran.
    assert "kinds" not in overlap.phases + overlap.after_failure
    assert len(overlap.after_failure) < WRITERS
    # No partial head: the previous version, whole, to every reader, and the stage gone.
    assert (dump(reader, project), _shape(reader, project), reader.counts(project)) == before
    assert reader.graph_version(project) == 1
    assert reader.find_by_name(project, "added_after_the_first_version")[1] == 0
    graph = reader._keys.namespace.graph(project)
    keys = reader._read_raw(
        "MATCH (n:CodeNode) WHERE n.project STARTS WITH $prefix RETURN DISTINCT n.project AS key", prefix=graph + "@"
    )
    assert [r["key"] for r in keys] == [reader._keys.active([project])[project]]
    with session_scope(engine) as session:
        listed = versions.list_for(session, project)
        assert [(v.version, v.status) for v in listed] == [(2, "failed"), (1, "completed")]
        assert "/ by zero" in (listed[0].error or "")
