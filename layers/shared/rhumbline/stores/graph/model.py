"""The graph's data: nodes, edges, batches and every answer type the stores give, shared by both
backends and their callers.

Nodes and edges belong to a project (`owner/repo`); node ids are stable and readable, unique within
a project: `<kind>:<path>[:<qualified name>]`, e.g. `method:django/db/models/query.py:QuerySet.filter`.
The same code gives the same id in every rebuild, which is what lets annotations re-attach.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

# The largest page any list read answers (ids asked at once, edges per relation, definitions, ...).
MAX_PAGE = 1_000
MODULE = "Module"  # a file's modules are listed apart from its definitions (FileQuery)

Direction = Literal["in", "out"]
Confidence = Literal["EXTRACTED", "INFERRED", "AMBIGUOUS"]


@dataclass(frozen=True, slots=True)
class Node:
    id: str
    kind: str  # Repository, Directory, File, Module, Class, Function, Method, Variable, Import, ...
    name: str
    qualified_name: str
    file: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    language: str | None = None
    signature: str | None = None
    docstring: str | None = None
    content_hash: str | None = None
    # Written, never read back (WRITE_ONLY_FIELDS): what the store derives search text from and
    # a reader has no use for. `body`: the words of the definition's own body (ingest/bodies.py);
    # `declaration`: a declaration without a body its language cannot tell from the node alone
    # (an `@overload` stub, an abstract or protocol method); `registration`: a definition that
    # only stores a callback it is given (a hook's registration, not the code running the hooks).
    body: str | None = field(default=None, compare=False, repr=False)
    declaration: bool = field(default=False, compare=False, repr=False)
    registration: bool = field(default=False, compare=False, repr=False)


# Node's fields the stores write but do not read back: equal nodes whatever they hold.
WRITE_ONLY_FIELDS = ("body", "declaration", "registration")


@dataclass(frozen=True, slots=True)
class Edge:
    source: str
    target: str
    relation: str  # CONTAINS, DEFINES, IMPORTS, CALLS, INHERITS, ...
    confidence: Confidence
    confidence_score: float
    explanation: str  # never empty: why this edge exists, in one short sentence
    file: str | None = None  # source location of the evidence
    line: int | None = None
    # Facts about the relationship itself that are not evidence, as flat scalars: e.g. MODIFIED
    # (Contributor → File) carries {"commits": 12, "last_at": "2026-10-01T09:30:00+00:00"}.
    # None for code edges. Keys: lowercase snake_case, not one of the fields above. Left out of
    # the hash (a dict is unhashable) but part of equality.
    properties: Mapping[str, str | int | float | bool] | None = field(default=None, hash=False)


@dataclass(frozen=True, slots=True)
class EdgeView:
    """An edge seen from one of its ends, with the other end summarized."""

    relation: str
    direction: Direction
    confidence: Confidence
    confidence_score: float
    explanation: str
    file: str | None
    line: int | None
    other_id: str
    other_kind: str
    other_name: str
    properties: Mapping[str, str | int | float | bool] | None = field(default=None, hash=False)


@dataclass(frozen=True, slots=True)
class NodeEdges:
    """A node with one page of its edges each way, their exact totals, and the graph version
    they were read at (one snapshot): what get_node shows, in one round trip."""

    node: Node
    outgoing: list[EdgeView]
    outgoing_total: int
    incoming: list[EdgeView]
    incoming_total: int
    version: int | None


@dataclass(frozen=True, slots=True)
class SearchHit:
    project: str
    node: Node
    score: float
    match: Literal["exact", "prefix", "fulltext"]
    # Declarations without a body of the same name and kind, ranked under this implementation:
    # folded into it rather than listed as hits of their own (ranking.grouped).
    declarations: tuple[Node, ...] = ()


@dataclass(frozen=True, slots=True)
class GraphBatch:
    """One atomic write: remove everything that came from `remove_files`, the edges named in
    `remove_edges` and the nodes named in `remove_nodes` (with every edge touching them), then add
    (upsert) nodes and edges. Stubs left without edges by any removal are deleted.

    `clear=True` removes the whole project's graph first. Readers see either the state before the
    batch or after it, never a half-written graph.

    Version stamp (incremental ingest): `version` records which graph version the project's graph
    holds once the batch is applied (`graph_version` reads it; `clear` without a `version` drops
    it). `expect_version`, when set, makes the batch conditional: if the stamp is not that version
    (another ingest got there first, or a crash left another state) nothing is written and
    GraphConflict is raised.
    """

    nodes: Sequence[Node] = ()
    edges: Sequence[Edge] = ()
    remove_files: Sequence[str] = ()
    clear: bool = False
    remove_nodes: Sequence[str] = ()
    remove_edges: Sequence[tuple[str, str, str]] = ()  # (source, relation, target)
    version: int | None = None
    expect_version: int | None = None


@dataclass(frozen=True, slots=True)
class GraphCounts:
    nodes: int
    edges: int
    nodes_by_kind: dict[str, int] = field(default_factory=dict)
    edges_by_relation: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, by_kind: Mapping[str, int], by_relation: Mapping[str, int]) -> GraphCounts:
        return cls(
            nodes=sum(by_kind.values()),
            edges=sum(by_relation.values()),
            nodes_by_kind=dict(sorted(by_kind.items())),
            edges_by_relation=dict(sorted(by_relation.items())),
        )


@dataclass(frozen=True, slots=True)
class WalkStep:
    """A node reached by `GraphStore.walk`: how far from the start, and over which edge."""

    node: Node
    depth: int  # 0 for a start node
    parent: str | None  # the node it was first reached from (None for a start node)
    via: EdgeView | None  # that edge, seen from the parent (None for a start node)


@dataclass(frozen=True, slots=True)
class WalkResult:
    steps: list[WalkStep]  # breadth-first order: by depth, then most certain edge, then (relation, id)
    total: int  # exact number of distinct nodes reachable within `depth`, start nodes included
    truncated: bool  # `steps` was cut at `limit`


@dataclass(frozen=True, slots=True)
class LinkedEdge:
    """An edge found by `GraphStore.edges_around`: the asked node it touches, the edge seen from
    that node, and the node at the far end (None when that end is a stub)."""

    node_id: str
    edge: EdgeView
    other: Node | None


@dataclass(frozen=True, slots=True)
class RelationEdges:
    """One relation's share of an `edges_around` answer: its first edges and their exact total."""

    edges: list[LinkedEdge]  # by (node id, other id)
    total: int


# One leg of a reachability query: follow edges of these relations (all when None) this way.
# Blast radius needs two at once: dependents arrive over incoming CALLS/IMPORTS/... but over
# outgoing DECORATES (a decorator points at what it decorates).
Leg = tuple[Literal["in", "out", "both"], Sequence[str] | None]


@dataclass(frozen=True, slots=True)
class PathHop:
    """One edge of a path, in the order the path walks it."""

    source: str  # the edge's real source and target (a hop may walk an edge backwards)
    target: str
    relation: str
    forward: bool  # the path walks from `source` to `target` (False: walked against the edge)
    confidence: Confidence
    confidence_score: float
    explanation: str
    file: str | None
    line: int | None


@dataclass(frozen=True, slots=True)
class GraphPath:
    nodes: list[Node]  # from start to end; len(hops) == len(nodes) - 1
    hops: list[PathHop]


@dataclass(frozen=True, slots=True)
class PathResult:
    paths: list[GraphPath]  # shortest paths only, deterministic order, at most `max_paths`
    length: int | None  # hops of a shortest path; None when there is none within `max_depth`
    total: int  # exact number of distinct shortest paths (each edge choice counts)
    limited: bool = False  # the search stopped at a size bound before it could rule a path out



@dataclass(frozen=True, slots=True, kw_only=True)
class FileQuery:
    """What a file bundle reads (`GraphStore.file_bundle`, `file_rows`): the file's modules (the
    first `module_limit`); one page of its definitions (nodes of `definition_kinds` located in it,
    by (start line, id), at most `limit` from `offset`); and the edges of `relations` around them,
    the first `link_limit` of each relation: inward around the file, its modules and the page's
    definitions, outward around the file, its modules and the page's sections (definitions of
    `section_kinds`). Checked when made: a bad query never reaches a store."""

    definition_kinds: Sequence[str]
    limit: int
    module_limit: int
    section_kinds: Sequence[str]
    relations: Sequence[str]
    link_limit: int
    offset: int = 0

    def __post_init__(self) -> None:
        if MODULE in self.definition_kinds:
            raise ValueError("modules are listed apart from definitions")
        for name in ("limit", "module_limit", "link_limit"):
            value = getattr(self, name)
            if not 1 <= value <= MAX_PAGE:
                raise ValueError(f"{name} must be between 1 and {MAX_PAGE}, not {value}")
        if self.offset < 0:
            raise ValueError(f"offset must be >= 0, not {self.offset}")


@dataclass(frozen=True, slots=True)
class FileBundle:
    """What a FileQuery reads: the File node, its modules, the page of its definitions and their
    exact total, and the edges around them (as edges_around groups them) inward and outward."""

    file: Node
    modules: list[Node]
    definitions: list[Node]
    definitions_total: int
    inward: dict[str, RelationEdges]
    outward: dict[str, RelationEdges]
    version: int | None  # graph_version, read with the rest (a cursor is bound to it)


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
    order. Defined as `bundles.file_rows_of(GraphStore.file_bundle(...))`: a backend may read the
    rows directly, without building a Node, an EdgeView and a LinkedEdge per row."""

    file: Node
    modules: list[Node]
    definitions: list[tuple[Any, ...]]
    definitions_total: int
    inward: dict[str, RelationRows]
    outward: dict[str, RelationRows]
    version: int | None


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
    empty when not asked); per `Walk`, the walk's result. `loops`: the edges from a node to
    itself over the relations asked (recursion, which a walk never lists: it reaches each node
    once), of the node and of the real far ends of its arounds' pages, by node id (ordered by
    relation; nodes without one left out)."""

    node: Node
    around: list[dict[str, RelationEdges]]
    far_degrees: list[dict[str, int]]
    kept: list[dict[str, int]]
    walks: list[WalkResult]
    loops: dict[str, list[Edge]]
