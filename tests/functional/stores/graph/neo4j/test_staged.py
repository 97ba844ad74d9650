"""Staged full writes on the real Neo4j: chunked transactions, one flip, readers never see half.

A full (clearing) write is staged under a physical key of its own in transactions of at most
`tx_rows` rows, then flipped (neo4j/staged.py); readers bind `$project` to the active key with a
guard (neo4j/keys.py). Failures are real: a driver closed between two chunk transactions, and a
version conflict found at the flip.
"""

from __future__ import annotations

import gc
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from rhumbline.stores.graph.neo4j import bulk as neo4j_bulk, staged as neo4j_staged
from rhumbline.stores.graph.neo4j.store import Neo4jGraphStore
from rhumbline.stores.graph.model import Edge, GraphBatch, GraphCounts, Node
from rhumbline.stores.graph.protocol import GraphConflict
from tests.functional.stores.graph.graph_samples import edge, node

pytestmark = pytest.mark.neo4j


def _graph(tag: str, files: int = 6) -> tuple[list[Node], list[Edge]]:
    """Files with functions calling each other, a dangling import (a stub end), an edge with extra
    properties, a node written twice (the last one wins) and an edge written twice."""
    nodes: list[Node] = []
    edges: list[Edge] = []
    for f in range(files):
        path = f"pkg/m{f}.py"
        file_node = node("File", f"pkg/m{f}.py", path, name=f"m{f}.py")
        functions = [node("Function", f"pkg.m{f}.{tag}{i}", path, docstring=f"does {tag} {i}") for i in range(4)]
        nodes += [file_node, *functions]
        edges += [edge(file_node.id, fn.id, "DEFINES") for fn in functions]
        edges += [edge(functions[i].id, functions[i + 1].id) for i in range(3)]
        edges.append(edge(file_node.id, f"ext:os{f % 2}", "IMPORTS"))
    edges.append(edge(nodes[1].id, nodes[6].id, "CALLS", properties={"via": "alias"}))
    nodes.append(node("Function", f"pkg.m0.{tag}0", "pkg/m0.py", docstring="written again"))
    edges.append(edge(nodes[1].id, nodes[2].id, explanation="written again"))
    return nodes, edges


def _dump(store: Neo4jGraphStore, project: str) -> tuple[list[Any], list[Any]]:
    """Every node and relationship of the project's served graph, without the physical key."""
    nodes = store._read(
        "MATCH (n:CodeNode {project: $project}) RETURN n {.*, project: null} AS n ORDER BY n.id", project=project
    )
    rels = store._read(
        "MATCH (a:CodeNode {project: $project})-[r]->(b) "
        "RETURN a.id AS a, type(r) AS t, b.id AS b, r {.*, project: null} AS r ORDER BY a, t, b",
        project=project,
    )
    return [dict(r["n"]) for r in nodes], [(r["a"], r["t"], r["b"], dict(r["r"])) for r in rels]


def _physical(store: Neo4jGraphStore, project: str) -> dict[str, int]:
    """Node count per physical key of the project (active, retired and staged graphs)."""
    found = store._read_raw(
        "MATCH (n:CodeNode) WHERE n.project = $project OR n.project STARTS WITH $prefix "
        "RETURN n.project AS key, count(n) AS c",
        project=project,
        prefix=project + "@",
    )
    return {r["key"]: r["c"] for r in found}


def _full(nodes: list[Node], edges: list[Edge], version: int, expect: int | None = None) -> GraphBatch:
    return GraphBatch(nodes=nodes, edges=edges, clear=True, version=version, expect_version=expect)


@pytest.fixture
def stores(neo4j_server: dict[str, str]) -> Iterator[Callable[..., Neo4jGraphStore]]:
    """Stores of their own (each one a Lambda container: its own driver and key cache)."""
    opened: list[Neo4jGraphStore] = []

    def make(**options: Any) -> Neo4jGraphStore:
        store = Neo4jGraphStore(neo4j_server["uri"], neo4j_server["user"], neo4j_server["password"], **options)
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.close()


@pytest.fixture
def projects(neo4j_graph_store: Neo4jGraphStore) -> Iterator[list[str]]:
    made: list[str] = []
    yield made
    for project in made:
        neo4j_graph_store.delete_project(project)


def _project(projects: list[str]) -> str:
    projects.append(f"test/s{uuid.uuid4().hex[:12]}")
    return projects[-1]


def _counting(monkeypatch: pytest.MonkeyPatch, after: Callable[[int], None] | None = None) -> list[int]:
    """Counts the staged write's chunk transactions; `after(n)` runs once the n-th committed."""
    real = neo4j_staged._run_transaction
    done: list[int] = []

    def run(store: Neo4jGraphStore, steps: list[Any]) -> list[Any]:
        records = real(store, steps)
        done.append(sum(step[2] for step in steps))
        if after is not None:
            after(len(done))
        return records

    monkeypatch.setattr(neo4j_staged, "_run_transaction", run)
    return done


def test_a_chunked_write_gives_the_single_transaction_graph(
    neo4j_graph_store: Neo4jGraphStore, stores: Callable[..., Neo4jGraphStore],
    projects: list[str], monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    nodes, edges = _graph("f")
    whole, chunked = _project(projects), _project(projects)
    neo4j_graph_store.apply(whole, _full(nodes, edges, 1))  # default tx_rows: one transaction
    transactions = _counting(monkeypatch)
    stores(tx_rows=7).apply(chunked, _full(nodes, edges, 1))

    assert len(transactions) > 10 and max(transactions) <= 7
    assert _dump(neo4j_graph_store, chunked) == _dump(neo4j_graph_store, whole)
    assert neo4j_graph_store.counts(chunked) == neo4j_graph_store.counts(whole)
    assert neo4j_graph_store.graph_version(chunked) == 1
    (chunked_hits, chunked_total), (whole_hits, whole_total) = (neo4j_graph_store.search([p], "f1") for p in (chunked, whole))
    assert [h.node for h in chunked_hits] == [h.node for h in whole_hits] and whole_hits
    both, total = neo4j_graph_store.search([chunked, whole], "f1", limit=100)
    assert total == chunked_total + whole_total == 2 * whole_total and {h.project for h in both} == {chunked, whole}
    [key] = _physical(neo4j_graph_store, chunked)
    assert key.startswith(chunked + "@1.")


def test_a_committed_transaction_s_rows_are_not_held_while_the_collector_is_paused(
    stores: Callable[..., Neo4jGraphStore], projects: list[str]
) -> None:
    # An ingest pauses the cyclic collector while it runs, and the driver keeps each query's
    # parameters in a reference cycle: rows held there would add up to the whole graph's.
    nodes, edges = _graph("held", files=20)
    ids = {n.id for n in nodes}
    project = _project(projects)
    enabled = gc.isenabled()
    gc.disable()
    try:
        stores(tx_rows=7).apply(project, _full(nodes, edges, 1))
        held = [o for o in gc.get_objects() if type(o) is list and o and _starts_a_row_of(o[0], ids)]
    finally:
        if enabled:
            gc.enable()
    assert held == []


def _starts_a_row_of(item: object, ids: set[str]) -> bool:
    """Whether `item` is a node row (a list led by its node's id) of one of `ids`."""
    return type(item) is list and bool(item) and isinstance(item[0], str) and item[0] in ids


def test_a_full_write_runs_nodes_then_edges_then_kinds_each_in_transactions_of_their_own(
    neo4j_graph_store: Neo4jGraphStore, stores: Callable[..., Neo4jGraphStore],
    projects: list[str], monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    # Edges and kinds find their nodes by the element ids the CREATEs returned, and a kind set in
    # the transaction that creates its node would not go to the head of its property chain
    # (neo4j/bulk.py). The chain is not observable through Bolt: the transactions' statements are
    # checked, with the graph they give.
    real = neo4j_staged._run_transaction
    phases: list[list[str]] = []

    def run(store: Neo4jGraphStore, steps: list[Any]) -> list[Any]:
        phases.append(sorted({_phase(step[0]) for step in steps}))
        return real(store, steps)

    monkeypatch.setattr(neo4j_staged, "_run_transaction", run)
    nodes, edges = _graph("k")
    whole = _project(projects)
    neo4j_graph_store.apply(whole, GraphBatch(nodes=nodes, edges=edges, version=1))  # the MERGE path
    for tx_rows in (50_000, 7):  # one transaction per phase, and many
        phases.clear()
        project = _project(projects)
        stores(tx_rows=tx_rows).apply(project, _full(nodes, edges, 1))
        assert [p for p in phases if len(p) > 1] in ([], [["nodes", "stamp"]])  # never two phases together
        order = [p[-1] if p != ["nodes", "stamp"] else "nodes" for p in phases]
        assert order == sorted(order, key=["stamp", "nodes", "edges", "kinds"].index)
        assert set(order) - {"stamp"} == {"nodes", "edges", "kinds"} and (len(order) > 10) == (tx_rows == 7)
        assert _dump(neo4j_graph_store, project) == _dump(neo4j_graph_store, whole)
        kinds = {n["id"]: n.get("kind") for n in _dump(neo4j_graph_store, project)[0]}
        assert kinds == {**{n.id: n.kind for n in nodes}, "ext:os0": None, "ext:os1": None}


def test_a_node_gone_between_phases_fails_the_write_and_never_touches_another_graph(
    neo4j_graph_store: Neo4jGraphStore, projects: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Edges and kinds find nodes by element id, and Neo4j reuses a deleted node's id: a node of
    # the stage deleted meanwhile (delete_project running concurrently) must fail the write, and
    # a node of another graph now holding that id must not be written to.
    project, other = _project(projects), _project(projects)
    old_nodes, old_edges = _graph("old")
    neo4j_graph_store.apply(project, _full(old_nodes, old_edges, 1))
    before = (_dump(neo4j_graph_store, project), neo4j_graph_store.counts(project))
    real = neo4j_staged._run_transaction
    victim = node("Function", "pkg.m1.new2", "pkg/m1.py")
    done: list[str] = []

    def run(store: Neo4jGraphStore, steps: list[Any]) -> list[Any]:
        records = real(store, steps)
        created = neo4j_bulk.created_ids(records)
        if victim.id in created and not done:
            done.append(victim.id)
            with store._session(write=True) as session:  # the node goes, another graph's comes
                session.run(
                    "MATCH (n) WHERE elementId(n) = $e DETACH DELETE n", e=created[victim.id]
                ).consume()
            neo4j_graph_store.apply(other, _full([node("Function", f"pkg.x{i}") for i in range(30)], [], 1))
        return records

    monkeypatch.setattr(neo4j_staged, "_run_transaction", run)
    new_nodes, new_edges = _graph("new")
    with pytest.raises(RuntimeError, match=r"a staged write wrote \d+ of \d+ rows"):
        neo4j_graph_store.apply(project, _full(new_nodes, new_edges, 2))
    monkeypatch.undo()
    assert (_dump(neo4j_graph_store, project), neo4j_graph_store.counts(project)) == before
    assert neo4j_graph_store.graph_version(project) == 1
    assert [key for key in _physical(neo4j_graph_store, project) if key.startswith(project + "@2.")] == []
    other_nodes, other_edges = _dump(neo4j_graph_store, other)
    assert other_edges == [] and all(n.get("kind") == "Function" for n in other_nodes) and len(other_nodes) == 30


def _phase(statement: str) -> str:
    if statement in (neo4j_bulk.CREATE_NODES, neo4j_bulk.CREATE_STUBS):
        return "nodes"
    if statement.startswith(neo4j_bulk.SET_KINDS.split("{label}")[0]):  # one statement per kind label
        return "kinds"
    return "edges" if "CREATE (a)-[r:" in statement else "stamp"


def test_a_write_failing_midway_leaves_the_previous_version_whole(
    neo4j_graph_store: Neo4jGraphStore, stores: Callable[..., Neo4jGraphStore],
    projects: list[str], monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    project = _project(projects)
    old_nodes, old_edges = _graph("old")
    neo4j_graph_store.apply(project, _full(old_nodes, old_edges, 1))
    before = (_dump(neo4j_graph_store, project), neo4j_graph_store.counts(project))
    writer = stores(tx_rows=10, writers=1)  # one writer: the stage is cut at a known point

    def die(committed: int) -> None:
        if committed == 3:
            writer._driver.close()  # the connection is gone between two chunk transactions

    _counting(monkeypatch, die)
    new_nodes, new_edges = _graph("new", files=8)
    with pytest.raises(Exception) as failed:
        writer.apply(project, _full(new_nodes, new_edges, 2))
    assert not isinstance(failed.value, AssertionError)

    # Another container: the previous version, complete, and nothing of the new one.
    assert (_dump(neo4j_graph_store, project), neo4j_graph_store.counts(project)) == before
    assert neo4j_graph_store.graph_version(project) == 1
    assert neo4j_graph_store.search([project], "new")[1] == 0
    assert neo4j_graph_store.search([project], "old1")[1] > 0
    # The half-written stage is there (the dead driver could not drop it), served to no one, and
    # collected once no running ingest can own it.
    physical = _physical(neo4j_graph_store, project)
    staged = [key for key in physical if key.startswith(project + "@2.")]
    assert len(staged) == 1 and 0 < physical[staged[0]] < len(new_nodes)
    monkeypatch.setattr(neo4j_staged, "STALE_STAGING_SECONDS", 0.0)
    assert neo4j_staged.collect(neo4j_graph_store, project) == staged
    assert staged[0] not in _physical(neo4j_graph_store, project)
    assert neo4j_graph_store.counts(project) == before[1]


def test_a_conflict_at_the_flip_drops_the_stage(
    neo4j_graph_store: Neo4jGraphStore, projects: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(projects)
    nodes, edges = _graph("f")
    neo4j_graph_store.apply(project, _full(nodes, edges, 1))
    keys = set(_physical(neo4j_graph_store, project))

    def in_place_write(committed: int) -> None:
        if committed == 1:  # an incremental write lands while the full write is staged
            neo4j_graph_store.apply(project, GraphBatch(nodes=[node("Function", "pkg.late")], version=2, expect_version=1))

    _counting(monkeypatch, in_place_write)
    with pytest.raises(GraphConflict, match="at version 2, not 1"):
        neo4j_graph_store.apply(project, _full(nodes, edges, 3, expect=1))

    assert set(_physical(neo4j_graph_store, project)) == keys  # the stage is gone
    assert neo4j_graph_store.graph_version(project) == 2
    assert neo4j_graph_store.get_node(project, node("Function", "pkg.late").id) is not None


def test_readers_see_only_the_old_version_until_the_flip(
    neo4j_graph_store: Neo4jGraphStore, stores: Callable[..., Neo4jGraphStore],
    projects: list[str], monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    project = _project(projects)
    old_nodes, old_edges = _graph("old")
    neo4j_graph_store.apply(project, _full(old_nodes, old_edges, 1))
    reader = stores()  # another container, its key cached before the write starts
    probe = old_nodes[1].id

    def state() -> tuple[GraphCounts, int | None, int, int]:
        walked = reader.walk(project, [probe], direction="out", depth=2, limit=50).total
        return reader.counts(project), reader.graph_version(project), reader.search([project], "old")[1], walked

    old = state()
    assert reader.get_node(project, probe) is not None and old[3] > 2
    seen: list[tuple[GraphCounts, int | None, int, int]] = []

    def look(_: int) -> None:
        seen.append(state())
        assert reader.find_by_name(project, "new0")[1] == 0

    transactions = _counting(monkeypatch, look)
    new_nodes, new_edges = _graph("new", files=8)
    stores(tx_rows=9).apply(project, _full(new_nodes, new_edges, 2))

    assert len(transactions) > 5 and seen == [old] * len(transactions)
    # After the flip the same reader (stale cache) is served the new version on its next call.
    assert reader.graph_version(project) == 2
    assert reader.search([project], "old")[1] == 0 and reader.find_by_name(project, "new0")[1] == 8
    assert reader.get_node(project, probe) is None
    assert reader.counts(project) == neo4j_graph_store.counts(project)
    assert reader.walk(project, [new_nodes[1].id], direction="out", depth=2, limit=50).total > 2
    assert reader.walk(project, [probe], direction="out", depth=2, limit=50).total == 0


def test_the_retired_graph_is_kept_for_the_grace_period_then_removed(
    neo4j_graph_store: Neo4jGraphStore, projects: list[str]
) -> None:
    project = _project(projects)
    nodes, edges = _graph("f")
    neo4j_graph_store.apply(project, _full(nodes, edges, 1))
    [first] = _physical(neo4j_graph_store, project)
    neo4j_graph_store.apply(project, _full(nodes, edges, 2))
    kept = _physical(neo4j_graph_store, project)
    assert set(kept) == {first, next(k for k in kept if k.startswith(project + "@2."))}

    assert neo4j_staged.collect(neo4j_graph_store, project) == []  # within the grace period
    assert neo4j_staged.collect(neo4j_graph_store, project, grace=0.0) == [first]
    [second] = _physical(neo4j_graph_store, project)
    assert second.startswith(project + "@2.") and neo4j_graph_store.graph_version(project) == 2

    neo4j_graph_store.delete_project(project)
    assert _physical(neo4j_graph_store, project) == {}
    assert neo4j_graph_store.graph_version(project) is None
    assert neo4j_graph_store.counts(project) == GraphCounts(nodes=0, edges=0)


def test_in_place_writes_go_to_the_served_graph(
    neo4j_graph_store: Neo4jGraphStore, stores: Callable[..., Neo4jGraphStore], projects: list[str]
) -> None:
    project = _project(projects)
    nodes, edges = _graph("f")
    stores().apply(project, _full(nodes, edges, 1))  # another container staged and flipped
    extra = node("Function", "pkg.extra", "pkg/extra.py")
    neo4j_graph_store.apply(project, GraphBatch(nodes=[extra], edges=[edge(extra.id, nodes[1].id)], version=2, expect_version=1))

    [key] = _physical(neo4j_graph_store, project)
    assert key.startswith(project + "@1.")
    assert neo4j_graph_store.graph_version(project) == 2
    assert neo4j_graph_store.counts(project).nodes == len({n.id for n in nodes}) + 1
    assert [v.other_id for v in neo4j_graph_store.edges_of(project, extra.id, "out", limit=5)[0]] == [nodes[1].id]


# Each read path's own retry: the first call after another container's flip, with a stale key.
FIRST_READS: dict[str, Callable[[Neo4jGraphStore, str], Any]] = {
    "_read (get_node)": lambda store, p: store.get_node(p, node("Function", "pkg.m0.new1", "pkg/m0.py").id),
    "search": lambda store, p: [h.node.id for h in store.search([p], "new1", limit=50)[0]],
    "traversal reader (walk)": lambda store, p: store.walk(
        p, [node("Function", "pkg.m0.new0", "pkg/m0.py").id], direction="out", depth=3, limit=50
    ).total,
    "counts": lambda store, p: store.counts(p),
}


@pytest.mark.parametrize("read", FIRST_READS)
def test_a_stale_key_is_noticed_by_the_first_read_after_a_flip(
    read: str, neo4j_graph_store: Neo4jGraphStore, stores: Callable[..., Neo4jGraphStore], projects: list[str]
) -> None:
    project = _project(projects)
    old_nodes, old_edges = _graph("old")
    neo4j_graph_store.apply(project, _full(old_nodes, old_edges, 1))
    reader = stores()
    stale = FIRST_READS[read](reader, project)  # caches the key of version 1
    new_nodes, new_edges = _graph("new", files=8)
    stores().apply(project, _full(new_nodes, new_edges, 2))  # another container flips
    fresh = stores()  # a container that never saw version 1

    assert FIRST_READS[read](reader, project) == FIRST_READS[read](fresh, project) != stale
