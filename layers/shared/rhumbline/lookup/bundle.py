"""A resolved node's bundle: every graph read a code-context tool makes about it, as one
`GraphStore.node_bundle` call (on Neo4j one statement, one round trip)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rhumbline.errors import NotFound

if TYPE_CHECKING:
    from rhumbline.runtime.context import ToolContext
    from rhumbline.stores.graph.bundles import Around, NodeBundle, Walk
    from rhumbline.stores.graph.protocol import Node


def read_bundle(
    context: "ToolContext", project: str, node: "Node", *, around: Sequence["Around"] = (), walks: Sequence["Walk"] = ()
) -> "NodeBundle":
    found = context.graph.node_bundle(project, node.id, around=around, walks=walks)
    if found is None:  # removed between resolving the name and this read: an ingest replaced it
        raise NotFound(
            f"'{node.id}' was removed from project '{project}' while it was being read (a new ingest); call again",
            details={"reason": "removed", "node": node.id},
        )
    return found
