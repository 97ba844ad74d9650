"""A resolved node's bundle: every graph read a code-context tool makes about it, as one
`GraphStore.node_bundle` call (on Neo4j one statement, one round trip) — and on Neo4j, for a
plain name, the name lookup in that same statement (`named_bundle`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rhumbline.errors import NotFound

if TYPE_CHECKING:
    from rhumbline.runtime.context import ToolContext
    from rhumbline.stores.graph.model import Around, Node, NodeBundle, Walk


def read_bundle(
    context: "ToolContext", project: str, node: "Node", *, around: Sequence["Around"] = (), walks: Sequence["Walk"] = (),
    loops: Sequence[str] = (),
) -> "NodeBundle":  # fmt: skip
    found = context.graph.node_bundle(project, node.id, around=around, walks=walks, loops=loops)
    if found is None:  # removed between resolving the name and this read: an ingest replaced it
        raise NotFound(
            f"'{node.id}' was removed from project '{project}' while it was being read (a new ingest); call again",
            details={"reason": "removed", "node": node.id},
        )
    return found


def resolve_bundle(
    context: "ToolContext",
    project: str,
    name: str,
    *,
    kinds: Sequence[str] | None,
    file: str | None,
    noun: str = "node",
    other_kind_hint: str = "",
    around: Sequence["Around"] = (),
    walks: Sequence["Walk"] = (),
    loops: Sequence[str] = (),
) -> tuple["Node", "NodeBundle"]:
    """names.resolve_name, then read_bundle of the node: the same node, bundle and errors. A store
    with `named_bundle` (Neo4j) answers a plain name (no node id, no `file`) with both in one
    statement: one round trip instead of two."""
    from rhumbline.lookup.names import CANDIDATES, choose, is_node_id, or_spelled_by_path, resolve_name

    named = getattr(context.graph, "named_bundle", None)
    if named is None or file or is_node_id(name):
        node = resolve_name(
            context, project, name, kinds=kinds, file=file, noun=noun, other_kind_hint=other_kind_hint
        )
        return node, read_bundle(context, project, node, around=around, walks=walks, loops=loops)
    name = name.strip()
    found, total, bundle = named(
        project, name, kinds=kinds, limit=CANDIDATES + 1, around=around, walks=walks, loops=loops
    )
    found, total = or_spelled_by_path(context.graph, project, name, kinds, found, total)
    # resolve_name's rule and errors on the same page; the statement bundled the node it guessed
    # the rule would pick. Should they differ (the rule changed, the statement did not), one more
    # read: slower, never wrong.
    node = choose(
        context, project, name, found, total, kinds=kinds, path=None, noun=noun, other_kind_hint=other_kind_hint
    )
    if bundle is None or bundle.node.id != node.id:
        bundle = read_bundle(context, project, node, around=around, walks=walks, loops=loops)
    return node, bundle
