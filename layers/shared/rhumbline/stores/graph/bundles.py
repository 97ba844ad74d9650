"""Bundles in the shapes their readers want: a FileBundle as plain rows (FileRows, what `context`
reads) and an Around's page cut to its Keep.

A bundle is several lookups answered as one (one snapshot; on Neo4j one statement, one round
trip), for the code-context tools whose answer is a fixed set of lookups: `context` (a file's
bundle) and `function`, `class`, `explain` (a node's bundle: edges around it and walks from it).
GraphStore composes them from its single lookups (protocol.py): that composition is their
definition, and a backend may answer otherwise only if it gives exactly the same
(tests/functional/stores/graph).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rhumbline.stores.graph.model import (
    MAX_PAGE,
    FileBundle,
    FileRows,
    Keep,
    LinkedEdge,
    LinkRow,
    Node,
    RelationEdges,
    RelationRows,
)
from rhumbline.stores.graph.rows import check_relation


def link_row_of(edge: LinkedEdge) -> LinkRow:
    view, other = edge.edge, edge.other
    far: tuple[str, str, str, str, str | None, int | None]
    if other is None:  # a stub: only its id is known (EdgeView names it by its id)
        far = (view.other_id, view.other_kind, view.other_name, view.other_name, None, None)
    else:
        far = (other.id, other.kind, other.name, other.qualified_name, other.file, other.start_line)
    return (edge.node_id, view.relation, view.confidence, view.confidence_score, view.explanation, view.file,
            view.line, *far)  # fmt: skip


def file_rows_of(bundle: FileBundle | None) -> FileRows | None:
    """A FileBundle as FileRows (the definition of `file_rows`)."""
    if bundle is None:
        return None

    def rows_of(found: dict[str, RelationEdges]) -> dict[str, RelationRows]:
        return {r: RelationRows([link_row_of(e) for e in group.edges], group.total) for r, group in found.items()}

    return FileRows(
        file=bundle.file,
        modules=bundle.modules,
        definitions=[astuple_node(n) for n in bundle.definitions],
        definitions_total=bundle.definitions_total,
        inward=rows_of(bundle.inward),
        outward=rows_of(bundle.outward),
        version=bundle.version,
    )


def astuple_node(node: Node) -> tuple[Any, ...]:
    """A node's NODE_FIELDS values, in order (dataclasses.astuple would deep-copy)."""
    return (node.id, node.kind, node.name, node.qualified_name, node.file, node.start_line, node.end_line,
            node.language, node.signature, node.docstring, node.content_hash)  # fmt: skip


def check_keep(keep: Keep) -> None:
    if isinstance(keep.kinds, str) or not keep.kinds or not all(isinstance(k, str) and k for k in keep.kinds):
        raise ValueError(f"keep.kinds must be a non-empty sequence of kind names, not {keep.kinds!r}")
    if not 1 <= keep.limit <= MAX_PAGE:
        raise ValueError(f"keep.limit must be between 1 and {MAX_PAGE}, not {keep.limit}")


def checked_loops(relations: Sequence[str]) -> list[str]:
    """node_bundle's `loops`, validated (on Neo4j they become the statement's text)."""
    if isinstance(relations, str):
        raise ValueError("loops must be a sequence of relation names, not one string")
    return sorted({check_relation(r) for r in relations})


def _position(edge: LinkedEdge) -> tuple[int, str]:
    """Where the edge's other end is defined (an edge without one, never kept, sorts first)."""
    other = edge.other
    return (other.start_line or 0, other.id) if other is not None else (0, "")


def cut_to_keep(found: dict[str, RelationEdges], keep: Keep) -> tuple[dict[str, RelationEdges], dict[str, int]]:
    """Each page cut to its kept edges, and how many matched per relation (see Keep)."""
    check_keep(keep)
    pages, matched = {}, {}
    for relation, group in found.items():
        kept = [e for e in group.edges if e.other is not None and e.other.kind in keep.kinds]
        if not kept:
            continue
        kept.sort(key=_position)
        pages[relation] = RelationEdges(edges=kept[: keep.limit], total=group.total)
        matched[relation] = len(kept)
    return pages, matched
