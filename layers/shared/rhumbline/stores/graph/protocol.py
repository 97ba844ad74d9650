"""What every graph backend provides. Queries are written natively for each backend.

Nodes and edges belong to a project (`owner/repo`); node ids are stable and readable, unique within
a project: `<kind>:<path>[:<qualified name>]`, e.g. `method:django/db/models/query.py:QuerySet.filter`.
The same code gives the same id in every rebuild, which is what lets annotations re-attach.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:
    from rhumbline.stores.graph.bundles import Around, FileBundle, FileRows, NodeBundle, Walk
    from rhumbline.stores.graph.texts_ahead import TextsAhead

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

    `texts_ahead`: the search text of some of a clearing write's nodes, computed by another
    process (texts_ahead.py); the SQLite store takes it, anything else may ignore it.
    """

    nodes: Sequence[Node] = ()
    edges: Sequence[Edge] = ()
    remove_files: Sequence[str] = ()
    clear: bool = False
    remove_nodes: Sequence[str] = ()
    remove_edges: Sequence[tuple[str, str, str]] = ()  # (source, relation, target)
    version: int | None = None
    expect_version: int | None = None
    texts_ahead: TextsAhead | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class GraphCounts:
    nodes: int
    edges: int
    nodes_by_kind: dict[str, int] = field(default_factory=dict)
    edges_by_relation: dict[str, int] = field(default_factory=dict)


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


class GraphUnavailable(Exception):
    """The backend could not be reached or did not answer in time."""


class GraphConflict(Exception):
    """A conditional batch (`expect_version`) found the graph at another version: nothing written."""


@runtime_checkable
class GraphStore(Protocol):
    backend: str

    def ensure_schema(self) -> None:
        """Create tables/constraints/indexes if missing. Idempotent."""

    def apply(self, project: str, batch: GraphBatch) -> None:
        """Write one batch atomically (see GraphBatch)."""

    def graph_version(self, project: str) -> int | None:
        """The version stamp of the project's graph (see GraphBatch.version), None if unstamped."""

    def get_node(self, project: str, node_id: str) -> Node | None: ...

    def edges_of(
        self, project: str, node_id: str, direction: Direction, *, limit: int, offset: int = 0
    ) -> tuple[list[EdgeView], int]:
        """Edges on one side of a node, ordered by (relation, other_id), and their exact total."""

    def node_with_edges(
        self, project: str, node_id: str, *, limit: int, out_offset: int = 0, in_offset: int = 0
    ) -> NodeEdges | None:
        """get_node + edges_of both ways + graph_version, in one snapshot (Neo4j: one statement);
        None if there is no such node."""

    def search(
        self,
        projects: Sequence[str],
        query: str,
        *,
        kinds: Sequence[str] | None = None,
        limit: int = 20,
        docs_only: bool = False,
    ) -> tuple[list[SearchHit], int]:
        """Rank: exact name (case-insensitive) > prefix > full-text over names, qualified names,
        docstrings and paths, with CamelCase and snake_case split into words. The best `limit`
        hits and the exact number of matching nodes. `docs_only`: only nodes whose docstring
        holds every query word."""

    def find_by_name(
        self, project: str, name: str, *, kinds: Sequence[str] | None = None, limit: int = 20
    ) -> tuple[list[Node], int]:
        """Nodes whose name or qualified name equals `name` (case-insensitive), or whose qualified
        name ends with `.name` (`QuerySet.filter` finds `django.db.models.query.QuerySet.filter`),
        shortest qualified name first, and their exact total."""

    def nodes_of_kind(
        self, project: str, kind: str, *, limit: int, offset: int = 0
    ) -> tuple[list[Node], int]:
        """A page of the project's nodes of one kind (e.g. every Contributor), ordered by id, and
        their exact total. Stubs are never listed."""

    def walk(
        self,
        project: str,
        start: Sequence[str],
        *,
        direction: Literal["in", "out", "both"],
        depth: int,
        limit: int,
        relations: Sequence[str] | None = None,
    ) -> WalkResult:
        """Breadth-first traversal from `start` over `relations` (all when None), each node once
        at its shortest distance. The primitive behind callers/callees, neighborhoods and blast
        radius; backends run it natively (recursive CTE / variable-length Cypher), not per edge."""

    def nodes(self, project: str, node_ids: Sequence[str]) -> dict[str, Node]:
        """The nodes among `node_ids` that exist (stubs left out), by id. At most traversal.MAX_IDS."""

    def reach(
        self, project: str, start: Sequence[str], *, legs: Sequence[Leg], depth: int
    ) -> dict[str, int]:
        """Every node reachable from `start` within `depth` hops over the `legs`, with its
        shortest distance (start nodes 0; unknown ids and stubs left out). Exact and complete:
        what `walk` computes, without the details, for callers that rank before they page."""

    def shortest_paths(
        self,
        project: str,
        source: str,
        target: str,
        *,
        direction: Literal["out", "both"],
        max_paths: int,
        max_depth: int,
        relations: Sequence[str] | None = None,
    ) -> PathResult:
        """Shortest paths from `source` to `target`: following edges forwards ("out") or either
        way ("both"), at most `max_depth` hops, level by level from both ends."""

    def edges_among(
        self, project: str, node_ids: Sequence[str], *, limit: int, relations: Sequence[str] | None = None
    ) -> tuple[list[Edge], int]:
        """The edges whose both ends are among `node_ids` (a subgraph's own edges), ordered by
        (source, relation, target), at most `limit`, and their exact total."""

    def edge_pairs(
        self, project: str, *, relations: Sequence[str], limit: int
    ) -> tuple[list[tuple[str, str]], int]:
        """(source, target) of the project's edges of `relations` between real nodes, at most
        `limit`, and their exact total. For whole-graph analytics (centrality) computed off the
        request path, never for a tool's answer."""

    # -- lookups behind the code-context tools (context, function, class, explain) --------------

    def nodes_in_file(
        self, project: str, path: str, *, kinds: Sequence[str] | None = None, limit: int, offset: int = 0
    ) -> tuple[list[Node], int]:
        """The nodes located in one file (`Node.file == path`) other than its File node, ordered
        by (start line, id), at most `limit` from `offset`, and their exact total. Stubs are never
        listed."""

    def edges_around(
        self,
        project: str,
        node_ids: Sequence[str],
        direction: Direction,
        *,
        relations: Sequence[str] | None = None,
        limit: int,
    ) -> dict[str, RelationEdges]:
        """Edges on one side of several nodes at once, grouped by relation (of `relations`; all
        when None; relations without edges left out): per relation the first `limit` by (node id,
        other id), each with the node at its far end, and their exact total. One round trip
        whatever the relations. At most rows.MAX_PAGE ids."""

    def file_bundle(
        self,
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
    ) -> "FileBundle | None":
        """`context`'s reads as one (see bundles.compose_file_bundle, which defines the answer);
        None if `file_id` is not a File node."""

    def file_rows(
        self,
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
    ) -> "FileRows | None":
        """file_bundle with its definitions and links as plain tuples (bundles.FileRows; defined
        as bundles.file_rows_of(file_bundle(...)))."""

    def node_bundle(
        self, project: str, node_id: str, *, around: Sequence["Around"] = (), walks: Sequence["Walk"] = ()
    ) -> "NodeBundle | None":
        """`function`'s, `class`'s and `explain`'s reads of a resolved node as one (see
        bundles.compose_node_bundle, which defines the answer); None if there is no such node."""

    def degrees(
        self,
        project: str,
        node_ids: Sequence[str],
        direction: Direction,
        *,
        relations: Sequence[str] | None = None,
    ) -> dict[str, dict[str, int]]:
        """How many edges each node has on one side, by relation (nodes with none are left out).
        At most rows.MAX_PAGE ids."""

    def counts(self, project: str) -> GraphCounts: ...

    def delete_project(self, project: str) -> None: ...

    def close(self) -> None: ...
