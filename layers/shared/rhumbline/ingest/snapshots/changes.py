"""The difference between the stored graph and the new one: what one incremental write carries.

The new graph (or its rebuilt partitions) is compared with the snapshot of the version the store
holds, key by key: upserts of added and changed nodes and edges, removals of the rest. An edge of
the new graph that touches a removed node (a dangling end, kept as a stub) is rewritten, since
removing the node removes its edges. Incremental therefore equals a full rebuild, by
construction and by test (tests/functional/ingest/test_incremental*.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rhumbline.centrality import DEPENDED_ON_BY, DEPENDS_ON
from rhumbline.ingest.snapshots.records import Snapshot, edge_key
from rhumbline.stores.graph.model import Edge, GraphBatch, Node

DEPENDENCY_RELATIONS = frozenset((*DEPENDS_ON, *DEPENDED_ON_BY))


@dataclass(frozen=True)
class GraphChanges:
    """What turns the stored graph (the base snapshot) into the new graph."""

    upsert_nodes: list[Node]
    upsert_edges: list[Edge]
    remove_nodes: list[str]
    remove_edges: list[tuple[str, str, str]]
    nodes_added: int
    nodes_changed: int
    edges_added: int
    edges_changed: int
    # Whether an edge of a relation centrality reads was added or removed: if not, the previous
    # version's betweenness scores are this one's (centrality.refresh(same_topology_as=...)).
    dependency_topology_changed: bool = False

    @property
    def nodes_removed(self) -> int:
        return len(self.remove_nodes)

    @property
    def edges_removed(self) -> int:
        return len(self.remove_edges)

    @property
    def empty(self) -> bool:
        return not (self.upsert_nodes or self.upsert_edges or self.remove_nodes or self.remove_edges)

    def batch(self, *, version: int, expect_version: int) -> GraphBatch:
        return GraphBatch(
            nodes=self.upsert_nodes,
            edges=self.upsert_edges,
            remove_nodes=self.remove_nodes,
            remove_edges=self.remove_edges,
            version=version,
            expect_version=expect_version,
        )


def graph_changes(
    base: Snapshot, new: Snapshot, nodes: Sequence[Node], edges: Sequence[Edge]
) -> GraphChanges:
    """`new` is the snapshot of `nodes` and `edges`; `base` the snapshot of the stored graph.

    A node or edge listed twice counts once, the last one winning (as in the stores and in
    Snapshot.of).
    """
    old_nodes, new_nodes = base.nodes, new.nodes
    upsert_nodes: list[Node] = []
    added = changed = 0
    for node in {n.id: n for n in nodes}.values():
        before = old_nodes.get(node.id)
        if before is None:
            added += 1
        elif before == new_nodes[node.id]:
            continue
        else:
            changed += 1
        upsert_nodes.append(node)
    remove_nodes = sorted(old_nodes.keys() - new_nodes.keys())
    removed = set(remove_nodes)
    old_edges, new_edges = base.edges, new.edges
    upsert_edges: list[Edge] = []
    edges_added = edges_changed = 0
    topology = False
    if len(new_edges) == len(edges):  # no duplicates: `new` lists the edges in the same order
        pairs = zip(new_edges, edges)
    else:
        pairs = iter({edge_key(e): e for e in edges}.items())
    for key, edge in pairs:
        before = old_edges.get(key)
        if before is None:
            edges_added += 1
            topology = topology or key[1] in DEPENDENCY_RELATIONS
        elif before != new_edges[key]:
            edges_changed += 1
        elif edge.source not in removed and edge.target not in removed:
            continue
        # Unchanged but touching a removed node (now a stub end): removing the node removes it.
        upsert_edges.append(edge)
    remove_edges = sorted(old_edges.keys() - new_edges.keys())
    topology = topology or any(key[1] in DEPENDENCY_RELATIONS for key in remove_edges)
    return GraphChanges(
        upsert_nodes=upsert_nodes,
        upsert_edges=upsert_edges,
        remove_nodes=remove_nodes,
        remove_edges=remove_edges,
        nodes_added=added,
        nodes_changed=changed,
        edges_added=edges_added,
        edges_changed=edges_changed,
        dependency_topology_changed=topology,
    )
