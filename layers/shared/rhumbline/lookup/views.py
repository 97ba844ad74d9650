"""Output models shared by the code-context tools, and their construction from store values.

Every list is a `Listing`: the items shown and the exact total. Texts that can be long
(docstrings, explanations) are clipped here, so no answer carries a whole file's worth of prose.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, Field

from rhumbline.stores.graph.model import EdgeView, LinkedEdge, Node, RelationEdges

T = TypeVar("T")

DOCSTRING_CHARS = 1_200
EXPLANATION_CHARS = 300
SIGNATURE_CHARS = 300

Format = Literal["json", "markdown"]
FORMAT_FIELD = Field(
    default="json",
    description="`json`: the structured bundle. `markdown`: the same bundle as compact text for a model's "
    "context window (the structured fields are then left out).",
)


def clip(text: str | None, limit: int) -> str | None:
    if text is None:
        return None
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class Listing(BaseModel, Generic[T]):
    items: list[T]
    total: int = Field(description="Exact number of items; `items` holds the first ones when capped.")


class NodeRef(BaseModel):
    id: str
    kind: str = Field(description='"Unknown" for an unresolved end (a name the ingest could not resolve).')
    name: str
    qualified_name: str
    file: str | None = None
    line: int | None = None


class Definition(NodeRef):
    end_line: int | None = None
    language: str | None = None
    signature: str | None = None
    docstring: str | None = Field(default=None, description=f"Clipped to {DOCSTRING_CHARS} characters.")


class Link(BaseModel):
    """An edge between the subject (`about`) and another node, seen from the subject."""

    about: str = Field(description="Id of the subject node this edge touches.")
    relation: str
    direction: Literal["in", "out"] = Field(description="in: `node` → subject; out: subject → `node`.")
    node: NodeRef = Field(description="The node at the other end.")
    confidence: str
    confidence_score: float
    explanation: str
    evidence_file: str | None = None
    evidence_line: int | None = None


class Annotation(BaseModel):
    """Knowledge an agent or a person attached to a node (add_annotation), as get_node shows it."""

    id: int
    node_id: str
    node_kind: str
    node_label: str
    content: str
    tags: list[str] = Field(default_factory=list)
    author: str
    created_at: datetime
    provenance: str = Field(default="CONTRIBUTED", description="CONTRIBUTED: said by someone, not derived by a parser.")


D = TypeVar("D", bound=Definition)
L = TypeVar("L", bound=Link)


def node_ref(node: Node) -> NodeRef:
    return NodeRef(
        id=node.id, kind=node.kind, name=node.name, qualified_name=node.qualified_name, file=node.file,
        line=node.start_line,
    )  # fmt: skip


def definition(node: Node, *, docstring_chars: int = DOCSTRING_CHARS, model: type[D] = Definition, **more: Any) -> D:  # type: ignore[assignment]
    """A definition (or a subclass of it: `model`, with its `more` fields)."""
    return model(
        id=node.id, kind=node.kind, name=node.name, qualified_name=node.qualified_name, file=node.file,
        line=node.start_line, end_line=node.end_line, language=node.language,
        signature=clip(node.signature, SIGNATURE_CHARS), docstring=clip(node.docstring, docstring_chars), **more,
    )  # fmt: skip


def stub_ref(edge: EdgeView) -> NodeRef:
    """The far end of an edge when it is a stub: only its id and name are known."""
    return NodeRef(id=edge.other_id, kind=edge.other_kind, name=edge.other_name, qualified_name=edge.other_name)


def link(about: str, edge: EdgeView, other: Node | None, *, model: type[L] = Link, **more: Any) -> L:  # type: ignore[assignment]
    """A link (or a subclass of it: `model`, with its `more` fields)."""
    return model(
        about=about, relation=edge.relation, direction=edge.direction,
        node=node_ref(other) if other is not None else stub_ref(edge),
        confidence=edge.confidence, confidence_score=edge.confidence_score,
        explanation=clip(edge.explanation, EXPLANATION_CHARS) or "", evidence_file=edge.file, evidence_line=edge.line,
        **more,
    )  # fmt: skip


def links(group: RelationEdges | None) -> Listing[Link]:
    """One relation's edges from `GraphStore.edges_around` (None: it had none)."""
    if group is None:
        return Listing[Link](items=[], total=0)
    return Listing[Link](items=[link(e.node_id, e.edge, e.other) for e in group.edges], total=group.total)


def merged(found: Mapping[str, RelationEdges], relations: Sequence[str], limit: int) -> tuple[list[LinkedEdge], int]:
    """Several relations' edges as one list, by relation then as found, cut at `limit`, and their
    exact total."""
    edges: list[LinkedEdge] = []
    total = 0
    for relation in sorted(relations):
        group = found.get(relation)
        if group is not None:
            total += group.total
            edges.extend(group.edges)
    return edges[:limit], total
