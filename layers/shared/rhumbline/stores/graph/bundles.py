"""Several lookups answered as one (one snapshot; on Neo4j one statement, one round trip), for
the code-context tools whose answer is a fixed set of lookups: `context` (a file's bundle).

The composed form (`compose_file_bundle`) is the definition: a backend may answer in one
statement only if it gives exactly what the composition gives (tests/functional/stores/graph).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rhumbline.stores.graph.protocol import Node, RelationEdges

if TYPE_CHECKING:
    from rhumbline.stores.graph.protocol import GraphStore

MODULE = "Module"


@dataclass(frozen=True, slots=True)
class FileBundle:
    """A File node; its modules (the first `module_limit`); one page of its definitions (nodes
    of `definition_kinds` located in it, by (start line, id), at most `limit` from `offset`) and
    their exact total; and the edges around them (edges_around): `inward` around the file, its
    modules and the page's definitions, `outward` around the file, its modules and the page's
    sections (definitions of `section_kinds`)."""

    file: Node
    modules: list[Node]
    definitions: list[Node]
    definitions_total: int
    inward: dict[str, RelationEdges]
    outward: dict[str, RelationEdges]
    version: int | None  # graph_version, read with the rest (a cursor is bound to it)


def compose_file_bundle(
    store: "GraphStore",
    project: str,
    file_id: str,
    *,
    definition_kinds: Sequence[str],
    limit: int,
    offset: int = 0,
    module_limit: int,
    section_kinds: Sequence[str],
    relations: Sequence[str],
    link_limit: int,
) -> FileBundle | None:
    """The definition of `file_bundle`, from get_node, nodes_in_file and edges_around."""
    if MODULE in definition_kinds:
        raise ValueError("modules are listed apart from definitions")
    file = store.get_node(project, file_id)
    if file is None or file.kind != "File":
        return None
    path = file.file or file.qualified_name
    modules, _ = store.nodes_in_file(project, path, kinds=[MODULE], limit=module_limit)
    defined, total = store.nodes_in_file(project, path, kinds=definition_kinds, limit=limit, offset=offset)
    own = [file.id, *(m.id for m in modules)]
    inside = own + [d.id for d in defined]
    outside = own + [d.id for d in defined if d.kind in section_kinds]
    return FileBundle(
        file=file,
        modules=modules,
        definitions=defined,
        definitions_total=total,
        inward=store.edges_around(project, inside, "in", relations=relations, limit=link_limit),
        outward=store.edges_around(project, outside, "out", relations=relations, limit=link_limit),
        version=store.graph_version(project),
    )
