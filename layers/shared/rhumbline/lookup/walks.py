"""Nodes reached from one node to a depth (callers, callees, bases, subclasses), from one native
breadth-first walk of the graph store (read as part of the tool's `node_bundle`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from rhumbline.lookup.views import EXPLANATION_CHARS, NodeRef, clip

if TYPE_CHECKING:
    from rhumbline.stores.graph.model import Edge, Node, Walk, WalkResult

# A walk lists each node once, so the subject's call of itself would never show among its callers
# and callees: the bundle reads it apart (NodeBundle.loops) and it is marked with this one field.
RECURSION_FIELD = Field(default=False, description="A call of itself: recursion (the subject's own CALLS edge).")


class Step(NodeRef):
    """A node reached at `depth` hops; `via` is the node it was reached from."""

    depth: int
    via: str = Field(description="Id of the node one hop nearer the subject.")
    relation: str
    evidence_file: str | None = Field(description="Where the edge is written: for callers/callees, the call.")
    evidence_line: int | None
    confidence: str
    confidence_score: float
    explanation: str
    recursion: bool = RECURSION_FIELD


class StepListing(BaseModel):
    items: list[Step]
    total: int = Field(
        description="Exact number of distinct nodes within `depth`; `items` holds the nearest, the most certain "
        "edges first within a distance."
    )
    depth: int


def walk_for(direction: Literal["in", "out"], relations: Sequence[str], *, depth: int, limit: int) -> "Walk":
    """The store walk behind a listing of `limit` steps (+1: the walk lists the start node first)."""
    from rhumbline.stores.graph.model import Walk

    return Walk(direction, tuple(relations), depth, limit + 1)


def listing(walked: "WalkResult", *, depth: int, limit: int) -> StepListing:
    """Nearest first, each node once at its shortest distance; within a distance the most certain
    edge first (extracted, inferred, ambiguous), then by relation and id."""
    items = []
    for step in walked.steps:
        if step.depth == 0 or step.via is None or step.parent is None:
            continue
        if len(items) == limit:
            break
        node, via = step.node, step.via
        items.append(
            Step(
                id=node.id, kind=node.kind, name=node.name, qualified_name=node.qualified_name, file=node.file,
                line=node.start_line, depth=step.depth, via=step.parent, relation=via.relation,
                evidence_file=via.file, evidence_line=via.line, confidence=via.confidence,
                confidence_score=via.confidence_score, explanation=clip(via.explanation, EXPLANATION_CHARS) or "",
            )  # fmt: skip
        )
    # The walk's total counts the start node (it exists: it was resolved first).
    return StepListing(items=items, total=max(0, walked.total - 1), depth=depth)


def with_recursion(listing: StepListing, node: "Node", call: "Edge | None", *, limit: int) -> StepListing:
    """`listing` (callers or callees of `node`) with its call of itself first, marked as recursion."""
    if call is None:
        return listing
    step = Step(
        id=node.id, kind=node.kind, name=node.name, qualified_name=node.qualified_name, file=node.file,
        line=node.start_line, depth=1, via=node.id, relation=call.relation, evidence_file=call.file,
        evidence_line=call.line, confidence=call.confidence, confidence_score=call.confidence_score,
        explanation=clip(call.explanation, EXPLANATION_CHARS) or "", recursion=True,
    )  # fmt: skip
    return StepListing(items=[step, *listing.items][:limit], total=listing.total + 1, depth=listing.depth)


def step_line(item: Step) -> str:
    """Markdown: `- d2 `pkg.f` (Function, pkg.py:3) via `id` inferred @ pkg.py:9`"""
    from rhumbline.lookup import markdown as md

    text = f"- d{item.depth} {md.ref(item)}"
    if item.depth > 1:
        text += f" via `{item.via}`"
    if item.recursion:
        text += " recursion"
    if item.confidence != "EXTRACTED":
        text += f" {item.confidence.lower()}"
    location = md.where(item.evidence_file, item.evidence_line)
    return text + (f" @ {location}" if location else "")
