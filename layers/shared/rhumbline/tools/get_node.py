"""get_node: one node's detail and its direct edges, in and out, capped with exact totals."""

from __future__ import annotations

from pydantic import BaseModel, Field

from rhumbline.errors import NotFound
from rhumbline.runtime.context import ToolContext
from rhumbline.tools.common import StrictInput, project_field
from rhumbline.tools.registry import ToolSpec

DEFAULT_EDGES = 50
MAX_EDGES = 200


class GetNodeInput(StrictInput):
    project: str | None = project_field()
    node_id: str = Field(min_length=1, max_length=2000, description="A node id as returned by search or get_node.")
    edge_limit: int = Field(default=DEFAULT_EDGES, ge=1, le=MAX_EDGES, description="Edges listed per direction.")


class NodeDetail(BaseModel):
    id: str
    kind: str
    name: str
    qualified_name: str
    file: str | None
    start_line: int | None
    end_line: int | None
    language: str | None
    signature: str | None
    docstring: str | None
    content_hash: str | None


class EdgeOut(BaseModel):
    relation: str
    confidence: str
    confidence_score: float
    explanation: str
    file: str | None = Field(description="Where the evidence for this edge is.")
    line: int | None
    other_id: str
    other_kind: str
    other_name: str


class EdgeList(BaseModel):
    edges: list[EdgeOut]
    total: int = Field(description="Exact number of edges in this direction.")


class GetNodeOutput(BaseModel):
    project: str
    node: NodeDetail
    outgoing: EdgeList
    incoming: EdgeList


def _edge_list(context: ToolContext, project: str, node_id: str, direction: str, limit: int) -> EdgeList:
    views, total = context.graph.edges_of(project, node_id, direction, limit=limit)  # type: ignore[arg-type]
    return EdgeList(
        edges=[
            EdgeOut(
                relation=view.relation,
                confidence=view.confidence,
                confidence_score=view.confidence_score,
                explanation=view.explanation,
                file=view.file,
                line=view.line,
                other_id=view.other_id,
                other_kind=view.other_kind,
                other_name=view.other_name,
            )
            for view in views
        ],
        total=total,
    )


def run(arguments: GetNodeInput, context: ToolContext) -> GetNodeOutput:
    project = context.project(arguments.project)
    node = context.graph.get_node(project, arguments.node_id)
    if node is None:
        raise NotFound(
            f"no node '{arguments.node_id}' in project '{project}'; use `search` to find node ids"
        )
    return GetNodeOutput(
        project=project,
        node=NodeDetail(
            id=node.id,
            kind=node.kind,
            name=node.name,
            qualified_name=node.qualified_name,
            file=node.file,
            start_line=node.start_line,
            end_line=node.end_line,
            language=node.language,
            signature=node.signature,
            docstring=node.docstring,
            content_hash=node.content_hash,
        ),
        outgoing=_edge_list(context, project, node.id, "out", arguments.edge_limit),
        incoming=_edge_list(context, project, node.id, "in", arguments.edge_limit),
    )


SPEC = ToolSpec(
    name="get_node",
    title="Get a node and its edges",
    description=(
        "One node of the code graph by id: its detail (kind, qualified name, location, signature, "
        "docstring) and its direct edges in both directions, each with relation, confidence and a "
        "human-readable explanation, capped with exact totals per direction."
    ),
    input_model=GetNodeInput,
    output_model=GetNodeOutput,
    run=run,
)
