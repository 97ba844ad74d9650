"""The batches an incremental ingest writes (rhumbline/ingest/incremental.py), on both backends:
removals and upserts in one batch, and a conditional batch that fails midway."""

from __future__ import annotations

import pytest
from tests.functional.stores.graph.graph_samples import edge, node

from rhumbline.stores.graph.model import Edge, GraphBatch, GraphCounts
from rhumbline.stores.graph.protocol import GraphStore

A, B, C = (node("Function", f"m.{name}", "m.py") for name in "abc")


def test_a_removed_node_still_named_by_an_edge_of_the_batch_becomes_a_stub(
    graph_store: GraphStore, project: str
) -> None:
    graph_store.apply(project, GraphBatch(nodes=[A, B, C], edges=[edge(A.id, B.id), edge(C.id, B.id)], version=1))

    # B's definition is gone but A still calls it: the edge is written again to a stub end.
    graph_store.apply(project, GraphBatch(
        remove_nodes=[B.id], remove_edges=[(C.id, "CALLS", B.id)], edges=[edge(A.id, B.id, line=7)],
        version=2, expect_version=1,
    ))  # fmt: skip

    assert graph_store.get_node(project, B.id) is None
    views, total = graph_store.edges_of(project, A.id, "out", limit=10)
    assert total == 1 and (views[0].other_id, views[0].other_kind, views[0].line) == (B.id, "Unknown", 7)
    assert graph_store.edges_of(project, C.id, "out", limit=10) == ([], 0)
    assert graph_store.counts(project) == GraphCounts(
        nodes=2, edges=1, nodes_by_kind={"Function": 2}, edges_by_relation={"CALLS": 1}
    )
    # The definition comes back: the stub is filled in, its edge kept.
    graph_store.apply(project, GraphBatch(nodes=[B], version=3, expect_version=2))
    assert graph_store.edges_of(project, B.id, "in", limit=10)[1] == 1
    assert graph_store.graph_version(project) == 3


def test_a_conditional_batch_failing_midway_changes_nothing(graph_store: GraphStore, project: str) -> None:
    graph_store.apply(project, GraphBatch(nodes=[A, B], edges=[edge(A.id, B.id)], version=1))
    before = graph_store.counts(project)
    bad = Edge(A.id, C.id, "not a relation", "EXTRACTED", 1.0, "x")

    with pytest.raises(ValueError):
        graph_store.apply(project, GraphBatch(
            remove_nodes=[B.id], nodes=[C], edges=[edge(A.id, C.id), bad], version=2, expect_version=1,
        ))  # fmt: skip

    assert graph_store.counts(project) == before
    assert (graph_store.get_node(project, B.id), graph_store.get_node(project, C.id)) == (B, None)
    assert graph_store.graph_version(project) == 1


def test_clear_with_a_version_stamps_the_new_graph(graph_store: GraphStore, project: str) -> None:
    graph_store.apply(project, GraphBatch(nodes=[A], version=4))
    graph_store.apply(project, GraphBatch(nodes=[B], clear=True, version=9))
    assert graph_store.graph_version(project) == 9
    assert (graph_store.get_node(project, A.id), graph_store.get_node(project, B.id)) == (None, B)
