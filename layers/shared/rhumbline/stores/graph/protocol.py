"""What every graph backend provides. Queries are written natively for each backend.

Nodes and edges belong to a project (`owner/repo`); node ids are stable and readable, unique within
a project: `<kind>:<path>[:<qualified name>]`, e.g. `method:django/db/models/query.py:QuerySet.filter`.
The same code gives the same id in every rebuild, which is what lets annotations re-attach.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

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


@dataclass(frozen=True, slots=True)
class SearchHit:
    project: str
    node: Node
    score: float
    match: Literal["exact", "prefix", "fulltext"]


@dataclass(frozen=True, slots=True)
class GraphBatch:
    """One atomic write: remove everything that came from `remove_files`, then add nodes and edges.

    `clear=True` removes the whole project's graph first. Readers see either the state before the
    batch or after it, never a half-written graph.
    """

    nodes: Sequence[Node] = ()
    edges: Sequence[Edge] = ()
    remove_files: Sequence[str] = ()
    clear: bool = False


@dataclass(frozen=True, slots=True)
class GraphCounts:
    nodes: int
    edges: int
    nodes_by_kind: dict[str, int] = field(default_factory=dict)
    edges_by_relation: dict[str, int] = field(default_factory=dict)


class GraphUnavailable(Exception):
    """The backend could not be reached or did not answer in time."""


@runtime_checkable
class GraphStore(Protocol):
    backend: str

    def ensure_schema(self) -> None:
        """Create tables/constraints/indexes if missing. Idempotent."""

    def apply(self, project: str, batch: GraphBatch) -> None:
        """Write one batch atomically (see GraphBatch)."""

    def get_node(self, project: str, node_id: str) -> Node | None: ...

    def edges_of(
        self, project: str, node_id: str, direction: Direction, *, limit: int, offset: int = 0
    ) -> tuple[list[EdgeView], int]:
        """Edges on one side of a node, ordered by (relation, other_id), and their exact total."""

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

    def counts(self, project: str) -> GraphCounts: ...

    def delete_project(self, project: str) -> None: ...

    def close(self) -> None: ...
