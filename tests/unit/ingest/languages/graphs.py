"""Exact-match helpers for the language tests: definition node ids, edge tuples, one node."""

from __future__ import annotations

from rhumbline.ingest.build import BuiltGraph
from rhumbline.stores.graph.protocol import Node

STRUCTURE = frozenset({"Repository", "Directory", "File"})
RELATIONS = ("IMPORTS", "CALLS", "INHERITS", "IMPLEMENTS")


def definition_ids(built: BuiltGraph) -> set[str]:
    """Ids of every node but the tree (Repository, Directory, File)."""
    return {node.id for node in built.nodes if node.kind not in STRUCTURE}


def edge_tuples(built: BuiltGraph, relations: tuple[str, ...] = RELATIONS) -> set[tuple]:
    """(source, relation, target, confidence) of the edges of `relations`."""
    return {
        (edge.source, edge.relation, edge.target, edge.confidence)
        for edge in built.edges
        if edge.relation in relations
    }


def node(built: BuiltGraph, node_id: str) -> Node:
    return next(n for n in built.nodes if n.id == node_id)
