"""Incremental changes, identical on SQLite and Neo4j: remove_nodes, remove_edges, edge properties,
version stamps (conditional batches) and nodes_of_kind."""

from __future__ import annotations

import pytest

from rhumbline.stores.graph.model import Edge, GraphBatch, GraphCounts, Node
from rhumbline.stores.graph.protocol import GraphConflict, GraphStore
from tests.functional.stores.graph.graph_samples import edge, ids, node

A, B, C = (node("Function", f"m.{name}", "m.py") for name in "abc")


def _triangle(store: GraphStore, project: str) -> None:
    store.apply(project, GraphBatch(nodes=[A, B, C], edges=[
        edge(A.id, B.id), edge(B.id, C.id), edge(C.id, A.id, "IMPORTS"),
        edge(A.id, "ext:os", "IMPORTS"), edge(B.id, "ext:os", "IMPORTS"),
    ]))  # fmt: skip


def test_remove_nodes_drops_them_with_their_edges_and_lonely_stubs(
    graph_store: GraphStore, project: str
) -> None:
    _triangle(graph_store, project)

    graph_store.apply(project, GraphBatch(remove_nodes=[A.id, "never:seen"]))

    assert graph_store.get_node(project, A.id) is None
    assert ids(graph_store, project, B.id) == [C.id, "ext:os"]
    assert ids(graph_store, project, C.id) == []
    assert graph_store.counts(project) == GraphCounts(
        nodes=2, edges=2, nodes_by_kind={"Function": 2}, edges_by_relation={"CALLS": 1, "IMPORTS": 1}
    )
    graph_store.apply(project, GraphBatch(remove_nodes=[B.id]))
    # ext:os lost its last edge: gone, not just unlisted.
    assert graph_store.edges_of(project, "ext:os", "in", limit=10) == ([], 0)
    assert graph_store.counts(project) == GraphCounts(nodes=1, edges=0, nodes_by_kind={"Function": 1})


def test_remove_edges_drops_exactly_the_named_edges(graph_store: GraphStore, project: str) -> None:
    _triangle(graph_store, project)

    graph_store.apply(project, GraphBatch(remove_edges=[
        (A.id, "CALLS", B.id),
        (C.id, "CALLS", A.id),  # C -IMPORTS-> A exists, C -CALLS-> A does not
        (A.id, "IMPORTS", "ext:os"),
    ]))  # fmt: skip

    assert ids(graph_store, project, A.id) == []
    assert ids(graph_store, project, C.id) == [A.id]
    assert ids(graph_store, project, "ext:os", "in") == [B.id]
    graph_store.apply(project, GraphBatch(remove_edges=[(B.id, "IMPORTS", "ext:os")]))
    assert graph_store.counts(project) == GraphCounts(
        nodes=3, edges=2, nodes_by_kind={"Function": 3}, edges_by_relation={"CALLS": 1, "IMPORTS": 1}
    )


def test_edge_properties_round_trip(graph_store: GraphStore, project: str) -> None:
    who = Node(id="contributor:alice", kind="Contributor", name="alice", qualified_name="alice")
    touched = {"commits": 12, "last_at": "2026-10-01T09:30:00+00:00", "share": 0.25, "owner": True}
    graph_store.apply(project, GraphBatch(nodes=[who, A], edges=[
        edge(who.id, A.id, "MODIFIED", properties=touched), edge(who.id, B.id, "REVIEWED"),
    ]))  # fmt: skip

    views, _ = graph_store.edges_of(project, who.id, "out", limit=10)
    assert [(v.relation, v.properties) for v in views] == [("MODIFIED", touched), ("REVIEWED", None)]
    # Writing the edge again replaces its properties as a whole.
    graph_store.apply(project, GraphBatch(edges=[edge(who.id, A.id, "MODIFIED", properties={"commits": 13})]))
    views, _ = graph_store.edges_of(project, A.id, "in", limit=10)
    assert [v.properties for v in views] == [{"commits": 13}]


@pytest.mark.parametrize(
    "properties", [{"Commits": 1}, {"file": "x"}, {"commits": [1, 2]}, {"": 1}], ids=str
)
def test_bad_edge_properties_are_rejected(
    graph_store: GraphStore, project: str, properties: dict
) -> None:
    bad = Edge(A.id, B.id, "CALLS", "EXTRACTED", 1.0, "x", properties=properties)
    with pytest.raises(ValueError, match="propert"):
        graph_store.apply(project, GraphBatch(nodes=[A, B], edges=[bad]))
    assert graph_store.counts(project) == GraphCounts(nodes=0, edges=0)


def test_version_stamps_make_batches_conditional(graph_store: GraphStore, project: str) -> None:
    assert graph_store.graph_version(project) is None
    graph_store.apply(project, GraphBatch(nodes=[A], version=1))
    assert graph_store.graph_version(project) == 1

    with pytest.raises(GraphConflict, match="version 1"):
        graph_store.apply(project, GraphBatch(nodes=[B], version=3, expect_version=2))
    assert (graph_store.get_node(project, B.id), graph_store.graph_version(project)) == (None, 1)

    graph_store.apply(project, GraphBatch(nodes=[B], version=2, expect_version=1))
    assert (graph_store.get_node(project, B.id), graph_store.graph_version(project)) == (B, 2)
    graph_store.apply(project, GraphBatch(clear=True, nodes=[C]))
    assert graph_store.graph_version(project) is None
    graph_store.apply(project, GraphBatch(version=7))
    graph_store.delete_project(project)
    assert graph_store.graph_version(project) is None


def test_nodes_of_kind_pages_in_id_order_without_stubs(graph_store: GraphStore, project: str) -> None:
    people = [Node(id=f"contributor:{n}", kind="Contributor", name=n, qualified_name=n) for n in "dbca"]
    graph_store.apply(project, GraphBatch(
        nodes=[*people, A], edges=[edge(people[0].id, "contributor:ghost", "KNOWS")],
    ))  # fmt: skip
    by_id = sorted(people, key=lambda p: p.id)

    assert graph_store.nodes_of_kind(project, "Contributor", limit=3) == (by_id[:3], 4)
    assert graph_store.nodes_of_kind(project, "Contributor", limit=3, offset=3) == (by_id[3:], 4)
    assert graph_store.nodes_of_kind(project, "Contributor", limit=3, offset=9) == ([], 4)
    assert graph_store.nodes_of_kind(project, "Function", limit=10) == ([A], 1)
    assert graph_store.nodes_of_kind(project, "Unknown", limit=10) == ([], 0)


def _everything(graph_store: GraphStore, project: str, node_ids: list[str]) -> object:
    nodes = [graph_store.get_node(project, node_id) for node_id in node_ids]
    views = [graph_store.edges_of(project, node_id, way, limit=50) for node_id in node_ids for way in ("out", "in")]
    return nodes, views, graph_store.counts(project)


def test_a_clearing_batch_writes_what_upserts_into_an_empty_project_write(
    graph_store: GraphStore, project: str, other_project: str
) -> None:
    # Neo4j writes a clearing batch with CREATE (neo4j/bulk.py), anything else with MERGE: same
    # graph, duplicates included (the last node or edge of a key wins), stubs and properties too.
    first_a = Node(id=A.id, kind="Class", name="a", qualified_name="old.a")
    who = Node(id="contributor:alice", kind="Contributor", name="alice", qualified_name="alice")
    batch_nodes = [first_a, A, B, C, who]
    batch_edges = [
        edge(A.id, B.id, explanation="first"),
        edge(A.id, B.id, explanation="second, wins", line=4),
        edge(B.id, "module:ext:os", "IMPORTS"),  # a dangling end: a stub
        edge(who.id, A.id, "MODIFIED", properties={"commits": 3, "last_at": "2026-01-01"}),
        edge(C.id, A.id, "CALLS", confidence="INFERRED", confidence_score=0.5, file="c.py"),
    ]
    graph_store.apply(project, GraphBatch(nodes=[Node(id="gone", kind="Module", name="g", qualified_name="g")]))
    graph_store.apply(project, GraphBatch(nodes=batch_nodes, edges=batch_edges, clear=True, version=2))
    graph_store.apply(other_project, GraphBatch(nodes=batch_nodes, edges=batch_edges))

    every_id = [A.id, B.id, C.id, who.id, "module:ext:os", "gone"]
    assert _everything(graph_store, project, every_id) == _everything(graph_store, other_project, every_id)
    assert graph_store.get_node(project, A.id) == A
    assert graph_store.counts(project).edges == 4
    assert graph_store.graph_version(project) == 2
