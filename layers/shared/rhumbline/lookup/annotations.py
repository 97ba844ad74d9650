"""Annotations (durable notes agents attach to nodes, kept in the relational store, provenance
CONTRIBUTED) of the nodes a code-context answer is about, exactly as get_node shows them.

The annotation store is rhumbline.annotations (add_annotation's); this module only reads it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rhumbline.lookup.annotation_probe import any_annotation
from rhumbline.lookup.views import Annotation, Listing, clip

if TYPE_CHECKING:
    from rhumbline.runtime.context import ToolContext

MAX_ANNOTATIONS = 50
CONTENT_CHARS = 2_000


def for_nodes(context: "ToolContext", project: str, node_ids: Sequence[str]) -> Listing[Annotation]:
    """The annotations of these nodes — node by node in the order given, each node's newest
    first — capped at MAX_ANNOTATIONS, with their exact total."""
    from rhumbline import annotations as store

    ids = list(dict.fromkeys(node_ids))
    if not ids:
        return Listing[Annotation](items=[], total=0)
    # The usual case is a project without annotations: one indexed probe says so (annotation_probe).
    if not any_annotation(context.engine, project, ids):
        return Listing[Annotation](items=[], total=0)
    with context.read_db() as connection:
        totals = store.counts(connection, project, ids)
        if not totals:
            return Listing[Annotation](items=[], total=0)
        found = store.for_nodes(connection, project, [i for i in ids if i in totals], per_node=MAX_ANNOTATIONS)
    items = [
        Annotation(
            id=view.id,
            node_id=view.node_id,
            node_kind=view.node_kind,
            node_label=view.node_label,
            content=clip(view.content, CONTENT_CHARS) or "",
            tags=list(view.tags),
            author=view.author,
            created_at=view.created_at,
            provenance=view.provenance,
        )
        for node_id in ids
        for view in found.get(node_id, [])
    ]
    return Listing[Annotation](items=items[:MAX_ANNOTATIONS], total=sum(totals.values()))
