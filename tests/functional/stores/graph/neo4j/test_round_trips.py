"""Round trips of the Neo4j store's reads on the REAL server (Bolt socket writes: the driver
writes, then waits): one per single-statement read, and a traversal's transaction begins with
its first statement rather than on a round trip of its own (stores/graph/neo4j/begin.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.functional.stores.graph.graph_samples import edge, node

from rhumbline.stores.graph.model import GraphBatch
from rhumbline.stores.graph.protocol import GraphStore

pytestmark = pytest.mark.neo4j

F = "pkg/m.py"
NODES = [node("Function", f"pkg.m.f{i}", F, start_line=i) for i in range(4)]
EDGES = [edge(NODES[i].id, NODES[i + 1].id) for i in range(3)]


@pytest.fixture
def store(neo4j_graph_store: GraphStore, project: str) -> Iterator[GraphStore]:
    neo4j_graph_store.apply(project, GraphBatch(nodes=NODES, edges=EDGES, clear=True))
    yield neo4j_graph_store
    neo4j_graph_store.delete_project(project)



def test_reads_and_a_traversal_transaction(store: GraphStore, project: str, bolt_writes: list[bytes]) -> None:
    store.get_node(project, NODES[0].id)  # the key is cached, the connection pooled
    bolt_writes.clear()
    assert store.get_node(project, NODES[0].id) == NODES[0]
    assert len(bolt_writes) == 1
    bolt_writes.clear()
    counts = store.counts(project)  # one transaction, two statements
    assert (counts.nodes, counts.edges) == (4, 3)
    assert len(bolt_writes) == 3  # BEGIN with the first statement, the second, ROLLBACK
    # BEGIN's fields (its access mode) and the first statement went out in one write.
    assert b"mode" in bolt_writes[0] and b"MATCH" in bolt_writes[0]
