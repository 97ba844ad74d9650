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
    """A File node, the nodes located in it (nodes_in_file: by (start line, id), at most `limit`,
    exact `total`), and the edges around them (edges_around): `inward` around the file, its
    modules and its definitions; `outward` around the file, its modules and its sections."""

    file: Node
    nodes: list[Node]
    total: int
    inward: dict[str, RelationEdges]
    outward: dict[str, RelationEdges]


def split(nodes: Sequence[Node], max_definitions: int) -> tuple[list[Node], list[Node]]:
    """(modules, definitions) of a file's nodes: a module starts at line 1, so whatever the cap
    it is among the first nodes; definitions are cut at `max_definitions`."""
    modules = [n for n in nodes if n.kind == MODULE]
    return modules, [n for n in nodes if n.kind != MODULE][:max_definitions]


def subjects(file: Node, nodes: Sequence[Node], max_definitions: int, section_kinds: Sequence[str]) -> tuple[list[str], list[str]]:
    """The ids whose edges a file bundle reads: (inward, outward)."""
    modules, defined = split(nodes, max_definitions)
    own = [file.id, *(m.id for m in modules)]
    return own + [d.id for d in defined], own + [d.id for d in defined if d.kind in section_kinds]


def compose_file_bundle(
    store: "GraphStore",
    project: str,
    file_id: str,
    *,
    kinds: Sequence[str],
    limit: int,
    max_definitions: int,
    section_kinds: Sequence[str],
    relations: Sequence[str],
    link_limit: int,
) -> FileBundle | None:
    """The definition of `file_bundle`, from get_node, nodes_in_file and edges_around."""
    file = store.get_node(project, file_id)
    if file is None or file.kind != "File":
        return None
    nodes, total = store.nodes_in_file(project, file.file or file.qualified_name, kinds=kinds, limit=limit)
    inside, outside = subjects(file, nodes, max_definitions, section_kinds)
    return FileBundle(
        file=file,
        nodes=nodes,
        total=total,
        inward=store.edges_around(project, inside, "in", relations=relations, limit=link_limit),
        outward=store.edges_around(project, outside, "out", relations=relations, limit=link_limit),
    )
