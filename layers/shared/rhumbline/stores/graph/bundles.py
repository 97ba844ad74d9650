"""Several lookups answered as one (one snapshot; on Neo4j one statement, one round trip), for
the code-context tools whose answer is a fixed set of lookups: `context` (a file's bundle) and
`function`, `class`, `explain` (a node's bundle: edges around it and walks from it).

The composed forms (`compose_file_bundle`, `compose_node_bundle`) are the definitions: a backend
may answer in one statement only if it gives exactly what the composition gives
(tests/functional/stores/graph).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from rhumbline.stores.graph.protocol import Direction, LinkedEdge, Node, RelationEdges, WalkResult
from rhumbline.stores.graph.rows import MAX_PAGE

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


# A LINK row: one edge of a file bundle as context shows it, as a plain tuple in this order: the
# bundle node it touches (`about`), the edge (relation, confidence, confidence_score, explanation,
# evidence file, evidence line) and the far end's reference (id, kind, name, qualified name, file,
# start line; a stub's kind is "Unknown", its name and qualified name its id, no file nor line).
LINK_FIELDS = (
    "about", "relation", "confidence", "confidence_score", "explanation", "file", "line",
    "other_id", "other_kind", "other_name", "other_qualified_name", "other_file", "other_line",
)  # fmt: skip
LinkRow = tuple[str, str, str, float, str, "str | None", "int | None", str, str, str, str, "str | None", "int | None"]


@dataclass(frozen=True, slots=True)
class RelationRows:
    """One relation's LINK rows (first `link_limit`, by (about, other id)) and their exact total."""

    rows: list[LinkRow]
    total: int


@dataclass(frozen=True, slots=True)
class FileRows:
    """A FileBundle with its definitions and links as plain tuples, no object per row: what
    `context` turns into its answer. `definitions` holds each definition's NODE_FIELDS values in
    order. The definition is `file_rows_of(compose_file_bundle(...))` (tests/functional/stores/graph):
    building a Node, an EdgeView and a LinkedEdge per row, then a JSON row from each, was ~0.2 ms
    of context's ~1.5 on Django's query.py (50 definitions, 26 links)."""

    file: Node
    modules: list[Node]
    definitions: list[tuple[Any, ...]]
    definitions_total: int
    inward: dict[str, RelationRows]
    outward: dict[str, RelationRows]
    version: int | None


def link_row_of(edge: LinkedEdge) -> LinkRow:
    view, other = edge.edge, edge.other
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


@dataclass(frozen=True, slots=True)
class Keep:
    """Of each relation's page, keep only the edges whose far end is a real node of `kinds`, in
    the order of that node in its file (start line, none first, then id), the first `limit`:
    class's methods in source order, without shipping its other members (or counting their
    callers) only to drop them."""

    kinds: tuple[str, ...]
    limit: int


@dataclass(frozen=True, slots=True)
class Around:
    """One `edges_around` read of the bundle's node. `far_degrees` (direction, relations): also
    count, for every real node at the far end of the page's edges, its edges that way over those
    relations (`degrees`, summed) — class's callers per method, without a second read. `keep`:
    cut each page to its kept edges (relations with none kept are left out; totals stay the
    relations' own) before the far degrees are counted."""

    direction: Direction
    relations: tuple[str, ...] | None
    limit: int
    far_degrees: tuple[Direction, tuple[str, ...]] | None = None
    keep: Keep | None = None


@dataclass(frozen=True, slots=True)
class Walk:
    """One `walk` from the bundle's node (its first step is the node itself, depth 0)."""

    direction: Literal["in", "out", "both"]
    relations: tuple[str, ...] | None
    depth: int
    limit: int


@dataclass(frozen=True, slots=True)
class NodeBundle:
    """A node; per `Around`, its edges that way grouped by relation, the far ends' degrees and,
    with `keep`, how many edges of each relation's page matched its kinds before the cut (both
    empty when not asked); per `Walk`, the walk's result."""

    node: Node
    around: list[dict[str, RelationEdges]]
    far_degrees: list[dict[str, int]]
    kept: list[dict[str, int]]
    walks: list[WalkResult]


def compose_node_bundle(
    store: "GraphStore", project: str, node_id: str, *, around: Sequence[Around] = (), walks: Sequence[Walk] = ()
) -> NodeBundle | None:
    """The definition of `node_bundle`, from get_node, edges_around, degrees and walk."""
    node = store.get_node(project, node_id)
    if node is None:
        return None
    grouped, counted, kept = [], [], []
    for spec in around:
        found = store.edges_around(project, [node.id], spec.direction, relations=spec.relations, limit=spec.limit)
        matched: dict[str, int] = {}
        if spec.keep is not None:
            found, matched = _kept(found, spec.keep)
        grouped.append(found)
        kept.append(matched)
        counted.append(_far_degrees(store, project, found, spec.far_degrees))
    walked = [
        store.walk(project, [node.id], direction=w.direction, depth=w.depth, limit=w.limit, relations=w.relations)
        for w in walks
    ]
    return NodeBundle(node=node, around=grouped, far_degrees=counted, kept=kept, walks=walked)


def check_keep(keep: Keep) -> None:
    if isinstance(keep.kinds, str) or not keep.kinds or not all(isinstance(k, str) and k for k in keep.kinds):
        raise ValueError(f"keep.kinds must be a non-empty sequence of kind names, not {keep.kinds!r}")
    if not 1 <= keep.limit <= MAX_PAGE:
        raise ValueError(f"keep.limit must be between 1 and {MAX_PAGE}, not {keep.limit}")


def _kept(found: dict[str, RelationEdges], keep: Keep) -> tuple[dict[str, RelationEdges], dict[str, int]]:
    """Each page cut to its kept edges, and how many matched per relation (see Keep)."""
    check_keep(keep)
    pages, matched = {}, {}
    for relation, group in found.items():
        kept = [e for e in group.edges if e.other is not None and e.other.kind in keep.kinds]
        if not kept:
            continue
        kept.sort(key=lambda e: (e.other.start_line or 0, e.other.id))  # type: ignore[union-attr]
        pages[relation] = RelationEdges(edges=kept[: keep.limit], total=group.total)
        matched[relation] = len(kept)
    return pages, matched


def _far_degrees(
    store: "GraphStore",
    project: str,
    found: dict[str, RelationEdges],
    asked: tuple[Direction, tuple[str, ...]] | None,
) -> dict[str, int]:
    if asked is None:
        return {}
    direction, relations = asked
    ends = sorted({e.other.id for group in found.values() for e in group.edges if e.other is not None})
    counted: dict[str, int] = {}
    for start in range(0, len(ends), MAX_PAGE):
        by_relation = store.degrees(project, ends[start : start + MAX_PAGE], direction, relations=relations)
        counted.update({node_id: sum(by.values()) for node_id, by in by_relation.items()})
    return dict(sorted(counted.items()))
