"""Exact-match helpers for the language tests: definition node ids, edge tuples, one node."""

from __future__ import annotations

from rhumbline.ingest.build import BuiltGraph
from rhumbline.stores.graph.model import Node

STRUCTURE = frozenset({"Repository", "Directory", "File"})
# Import and Decorator nodes: tested apart (test_statement_nodes.py).
STATEMENTS = frozenset({"Import", "Decorator"})
RELATIONS = ("IMPORTS", "CALLS", "INHERITS", "IMPLEMENTS")


def definition_ids(built: BuiltGraph) -> set[str]:
    """Ids of every node but the tree (Repository, Directory, File) and the Import and Decorator
    nodes."""
    return {node.id for node in built.nodes if node.kind not in STRUCTURE | STATEMENTS}


def edge_tuples(built: BuiltGraph, relations: tuple[str, ...] = RELATIONS) -> set[tuple]:
    """(source, relation, target, confidence) of the edges of `relations`."""
    return {
        (edge.source, edge.relation, edge.target, edge.confidence)
        for edge in built.edges
        if edge.relation in relations
    }


def node(built: BuiltGraph, node_id: str) -> Node:
    return next(n for n in built.nodes if n.id == node_id)
