"""What both graph backends write and accept: validated rows, paging bounds and write budgets.

Rows are built lazily while a batch is being written, inside its transaction: a bad edge halfway
through a batch raises ValueError and the whole batch rolls back (GraphBatch is atomic).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import fields
from functools import lru_cache
from typing import Any

from rhumbline.stores.graph.model import MAX_PAGE, WRITE_ONLY_FIELDS, Edge, GraphBatch, Node
from rhumbline.stores.graph.words import node_text_values

# Relationship types become part of Cypher text (types cannot be parameters): only plain names.
RELATION_NAME = re.compile(r"^[A-Z_]+$")
CONFIDENCES = frozenset({"EXTRACTED", "INFERRED", "AMBIGUOUS"})
# A write may take longer than a read: bounded by the read timeout plus this per 1,000 rows.
WRITE_SECONDS_PER_1000_ROWS = 1.0

NODE_FIELDS = (
    "id", "kind", "name", "qualified_name", "file", "start_line", "end_line",
    "language", "signature", "docstring", "content_hash",
)  # fmt: skip


# Every stored property of a node (besides its project), in a fixed order.
NODE_PROPERTIES = (
    "id", "kind", "name", "name_lower", "qualified_name", "qn_lower", "qn_rev", "name_words",
    "name_terms", "context_terms", "doc_terms", "body_terms", "doc_len", "search_class", "file",
    "start_line", "end_line", "language", "signature", "docstring", "content_hash",
)  # fmt: skip


def node_values(node: Node) -> tuple[Any, ...]:
    """Every stored property of a node, in NODE_PROPERTIES order: its fields plus the derived
    lookup text. A tuple: a bulk write binds it as it is (no dict per row)."""
    if not isinstance(node.id, str) or not node.id:
        raise ValueError(f"node id must be a non-empty string, not {node.id!r}")
    if not isinstance(node.kind, str) or not node.kind:
        raise ValueError(f"node {node.id!r}: kind must be a non-empty string")
    if not isinstance(node.name, str) or not isinstance(node.qualified_name, str):
        raise ValueError(f"node {node.id!r}: name and qualified_name must be strings")
    name_lower, qn_lower, qn_rev, name_words, name_terms, context_terms, doc_terms, body_terms, doc_len, klass = (
        text_of(node)
    )
    return (
        node.id, node.kind, node.name, name_lower, node.qualified_name, qn_lower, qn_rev,
        name_words, name_terms, context_terms, doc_terms, body_terms, doc_len, klass, node.file,
        node.start_line, node.end_line, node.language, node.signature, node.docstring, node.content_hash,
    )  # fmt: skip


def text_of(node: Node) -> tuple[Any, ...]:
    """A node's search text (words.node_text_values)."""
    return node_text_values(
        node.kind, node.name, node.qualified_name, node.file, node.signature, node.docstring,
        body=node.body, declaration=node.declaration, registration=node.registration, language=node.language,
    )  # fmt: skip


def node_row(node: Node) -> dict[str, Any]:
    """Every stored property of a node by name (node_values)."""
    return dict(zip(NODE_PROPERTIES, node_values(node)))


@lru_cache(maxsize=256)  # a graph has a handful of relation names, checked once each
def check_relation(relation: str) -> str:
    if not isinstance(relation, str) or not RELATION_NAME.match(relation):
        raise ValueError(f"edge relation must match {RELATION_NAME.pattern}, not {relation!r}")
    return relation


def check_edge(edge: Edge) -> None:
    check_relation(edge.relation)
    if not isinstance(edge.source, str) or not edge.source:
        raise ValueError(f"edge source must be a non-empty string, not {edge.source!r}")
    if not isinstance(edge.target, str) or not edge.target:
        raise ValueError(f"edge target must be a non-empty string, not {edge.target!r}")
    if edge.confidence not in CONFIDENCES:
        raise ValueError(f"edge confidence must be one of {sorted(CONFIDENCES)}")
    if not 0.0 <= edge.confidence_score <= 1.0:
        raise ValueError(f"edge confidence_score must be within [0, 1], not {edge.confidence_score}")
    if not edge.explanation or edge.explanation.isspace():  # strip() would copy every one
        raise ValueError(f"edge {edge.source} -{edge.relation}-> {edge.target} has no explanation")
    if edge.properties is not None:
        check_properties(edge)


# Edge.properties keys: plain names that do not shadow an edge's own fields.
PROPERTY_NAME = re.compile(r"^[a-z][a-z0-9_]{0,62}$")
RESERVED_PROPERTIES = frozenset(
    {"project", "source", "target", "relation", "confidence", "confidence_score", "explanation",
     "file", "line", "properties"}
)  # fmt: skip


def check_properties(edge: Edge) -> None:
    for key, value in (edge.properties or {}).items():
        if not isinstance(key, str) or not PROPERTY_NAME.match(key) or key in RESERVED_PROPERTIES:
            raise ValueError(f"edge property name {key!r} is not allowed")
        if not isinstance(value, (str, int, float, bool)):
            raise ValueError(f"edge property {key!r} must be a string, number or boolean")


def properties_json(edge: Edge) -> str | None:
    """Edge.properties as stored by SQLite: sorted JSON text, or None."""
    if not edge.properties:
        return None
    return json.dumps(dict(sorted(edge.properties.items())), ensure_ascii=False)


def edge_properties(edge: Edge) -> dict[str, Any]:
    """A checked edge's stored properties (source, relation and target are its identity)."""
    check_edge(edge)
    return {
        "confidence": edge.confidence,
        "confidence_score": float(edge.confidence_score),
        "explanation": edge.explanation,
        "file": edge.file,
        "line": edge.line,
    }


def node_from_row(row: Any) -> Node:
    """A Node from a mapping (or sqlite3.Row) holding at least NODE_FIELDS."""
    return Node(**{name: row[name] for name in NODE_FIELDS})


_NODE_WIDTH = len(NODE_FIELDS)


def node_at(row: Sequence[Any], start: int = 0) -> Node:
    """A Node from a row whose columns `start`, `start + 1`, ... are NODE_FIELDS in order (a
    SELECT listing them so, or the list node_list_cypher answers). Positional: a sqlite3.Row
    looked up by name compares every column name per key, 3x the cost of the Node itself on a wide
    answer's rows."""
    return Node(*row[start : start + _NODE_WIDTH])


def node_list_cypher(variable: str) -> str:
    """Cypher for a node's NODE_FIELDS as a list: a map would ship (and the driver decode) every
    key with every node, most of a wide answer's decoding time."""
    return "[" + ", ".join(f"{variable}.{name}" for name in NODE_FIELDS) + "]"


if tuple(f.name for f in fields(Node)) != (*NODE_FIELDS, *WRITE_ONLY_FIELDS):
    raise ImportError("Node's fields must be NODE_FIELDS in order, then WRITE_ONLY_FIELDS (node_at relies on it)")


def check_ids(node_ids: Sequence[str], direction: str) -> None:
    """The node ids and side of a lookup around several nodes (edges_around, degrees)."""
    if direction not in ("in", "out"):
        raise ValueError(f"direction must be 'in' or 'out', not {direction!r}")
    if len(node_ids) > MAX_PAGE:
        raise ValueError(f"at most {MAX_PAGE} node ids at once, not {len(node_ids)}")


def check_page(limit: int, offset: int = 0) -> None:
    if not 1 <= limit <= MAX_PAGE:
        raise ValueError(f"limit must be between 1 and {MAX_PAGE}, not {limit}")
    if offset < 0:
        raise ValueError(f"offset must be >= 0, not {offset}")


def total_of_page(found: int, limit: int, offset: int) -> int | None:
    """The list's exact total when a page read in the same snapshot tells it, else None (count it).

    A page cut short by the end of the list ends it: total = offset + rows. The usual context call
    reads such pages (a file's one module; every definition of a small file), and a count
    statement would cost as much again as the page; so does get_node's side
    with fewer edges than its page. An empty page past the start says nothing about how far the
    list goes."""
    if 0 < found < limit or (found == 0 and offset == 0):
        return offset + found
    return None


def write_budget(timeout: float, batch: GraphBatch) -> float:
    """Seconds one batch may take: a bound against hangs that still lets bulk loads finish."""
    rows = len(batch.nodes) + len(batch.edges) + len(batch.remove_nodes) + len(batch.remove_edges)
    return timeout + rows / 1000 * WRITE_SECONDS_PER_1000_ROWS
