"""node_with_edges (get_node's single read) equals get_node + edges_of both ways + graph_version,
on both backends: pages, offsets, totals, dangling ends, stubs, missing nodes, the version."""

from __future__ import annotations

import pytest
from tests.functional.stores.graph.graph_samples import edge, node

from rhumbline.stores.graph.model import GraphBatch, NodeEdges
from rhumbline.stores.graph.protocol import GraphStore

CENTER = node("Class", "pkg.Center", "pkg/c.py", docstring="The hub.", start_line=3, end_line=40)
OTHERS = [node("Function", f"pkg.f{i}", "pkg/o.py") for i in range(6)]
EDGES = [
    edge(CENTER.id, OTHERS[0].id, "CALLS", confidence="AMBIGUOUS", confidence_score=0.25,
         explanation="one of two candidates", file="pkg/c.py", line=7),
    edge(CENTER.id, OTHERS[1].id, "CALLS"),
    edge(CENTER.id, OTHERS[2].id, "DEFINES"),
    edge(CENTER.id, "function:ext:gone", "CALLS"),  # a dangling end: a stub, shown as Unknown
    edge(OTHERS[3].id, CENTER.id, "IMPORTS"),
    edge(OTHERS[4].id, CENTER.id, "CALLS"),
    edge(OTHERS[5].id, CENTER.id, "CALLS"),
]  # fmt: skip


def _composed(store: GraphStore, project: str, node_id: str, limit: int, out_offset: int, in_offset: int) -> NodeEdges | None:
    found = store.get_node(project, node_id)
    if found is None:
        return None
    outgoing, out_total = store.edges_of(project, node_id, "out", limit=limit, offset=out_offset)
    incoming, in_total = store.edges_of(project, node_id, "in", limit=limit, offset=in_offset)
    return NodeEdges(found, outgoing, out_total, incoming, in_total, store.graph_version(project))


@pytest.mark.parametrize(("limit", "out_offset", "in_offset"), [(50, 0, 0), (2, 0, 0), (2, 2, 1), (1, 4, 3), (3, 9, 9), (3, 2, 1), (4, 0, 0), (4, 4, 3)])
def test_it_equals_get_node_and_both_edge_pages(
    graph_store: GraphStore, project: str, limit: int, out_offset: int, in_offset: int
) -> None:
    graph_store.apply(project, GraphBatch(nodes=[CENTER, *OTHERS], edges=EDGES, version=7))
    found = graph_store.node_with_edges(project, CENTER.id, limit=limit, out_offset=out_offset, in_offset=in_offset)
    assert found == _composed(graph_store, project, CENTER.id, limit, out_offset, in_offset)
    assert found is not None
    assert (found.node, found.outgoing_total, found.incoming_total, found.version) == (CENTER, 4, 3, 7)


def test_a_leaf_an_unstamped_graph_a_stub_and_a_missing_node(graph_store: GraphStore, project: str) -> None:
    graph_store.apply(project, GraphBatch(nodes=[CENTER, *OTHERS], edges=EDGES))
    leaf = graph_store.node_with_edges(project, OTHERS[2].id, limit=10)
    assert leaf == NodeEdges(OTHERS[2], [], 0, leaf.incoming if leaf else [], 1, None)
    assert leaf == _composed(graph_store, project, OTHERS[2].id, 10, 0, 0)
    assert graph_store.node_with_edges(project, "function:ext:gone", limit=10) is None  # a stub is no node
    assert graph_store.node_with_edges(project, "function::nowhere", limit=10) is None


@pytest.mark.parametrize(("limit", "offset"), [(0, 0), (1001, 0), (5, -1)])
def test_it_rejects_bad_paging(graph_store: GraphStore, project: str, limit: int, offset: int) -> None:
    with pytest.raises(ValueError):
        graph_store.node_with_edges(project, CENTER.id, limit=limit, out_offset=offset)
