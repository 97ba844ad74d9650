"""The graph as Cypher sees it, on both backends: every node is `:CodeNode` and labelled by its
kind too (`:Function`, `:Class`, ... from a fixed set: a node of another kind has no kind label),
the properties of nodes and relationships and their value types (Python's own, each backend maps
them to its values)."""

from __future__ import annotations

from rhumbline.stores.graph.rows import NODE_PROPERTIES
from rhumbline.vocabulary import NODE_KINDS

LABEL = "CodeNode"
KIND_LABELS = frozenset(NODE_KINDS)
GRAPH_LABELS = KIND_LABELS | {LABEL}
NODE_PROPERTY_TYPES: dict[str, type] = {"project": str, **{name: str for name in NODE_PROPERTIES}}
NODE_PROPERTY_TYPES.update(start_line=int, end_line=int)
# Besides these, a relationship has `project` (its source node's) and the keys of its extra properties.
EDGE_PROPERTY_TYPES: dict[str, type] = {
    "confidence": str, "confidence_score": float, "explanation": str, "file": str, "line": int,
}  # fmt: skip
