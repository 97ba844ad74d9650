"""get_node: one node's detail, its direct edges (in and out, capped with exact totals per
direction, continued with `next_cursor`) and its annotations (provenance CONTRIBUTED)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from rhumbline.errors import NotFound
from rhumbline.runtime.context import ToolContext
from rhumbline.runtime.spec import ToolSpec
from rhumbline.stores.graph.model import EdgeView
from rhumbline.tools.common import StrictInput, project_field
from rhumbline.tools.graph_common import cursor_field, overlapped, query_of

if TYPE_CHECKING:
    from rhumbline.annotations import AnnotationView

DEFAULT_EDGES = 20
MAX_EDGES = 200
MAX_ANNOTATIONS = 20


class GetNodeInput(StrictInput):
    project: str | None = project_field()
    node_id: str = Field(min_length=1, max_length=2000, description="A node id as returned by search or get_node.")
    edge_limit: int = Field(default=DEFAULT_EDGES, ge=1, le=MAX_EDGES, description="Edges listed per direction.")
    cursor: str | None = cursor_field()


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
    offset: int = Field(default=0, description="Position of the first listed edge among all `total`.")


class AnnotationOut(BaseModel):
    id: int
    content: str
    tags: list[str]
    author: str
    created_at: str
    provenance: str = Field(description="Always CONTRIBUTED: knowledge a person or agent added, not extracted.")


class AnnotationList(BaseModel):
    annotations: list[AnnotationOut] = Field(description="Newest first.")
    total: int


class GetNodeOutput(BaseModel):
    project: str
    node: NodeDetail
    outgoing: EdgeList
    incoming: EdgeList
    annotations: AnnotationList
    next_cursor: str | None = Field(
        default=None, description="Pass as `cursor` (same arguments) for the next edges of each direction that has more."
    )


# EdgeOut's and NodeDetail's fields are attributes of the stores' EdgeView and Node: read by name,
# a page is validated in one call (a model built per edge cost twice as much).


def edge_list(views: list[EdgeView], total: int, offset: int) -> EdgeList:
    return EdgeList.model_validate({"edges": views, "total": total, "offset": offset}, from_attributes=True)


def annotation_out(view: AnnotationView) -> AnnotationOut:
    return AnnotationOut(
        id=view.id, content=view.content, tags=list(view.tags), author=view.author,
        created_at=view.created_at.isoformat(), provenance=view.provenance,
    )  # fmt: skip


def _annotations(context: ToolContext, project: str, node_id: str) -> AnnotationList:
    """The node's newest MAX_ANNOTATIONS and their exact total."""
    from rhumbline import annotations
    from rhumbline.lookup.annotation_probe import any_annotation

    if not any_annotation(context.engine, project, [node_id]):  # the usual case
        return AnnotationList(annotations=[], total=0)
    with context.read_db() as connection:
        found = annotations.for_nodes(connection, project, [node_id], per_node=MAX_ANNOTATIONS).get(node_id, [])
        total = len(found)
        if total == MAX_ANNOTATIONS:
            total = annotations.counts(connection, project, [node_id]).get(node_id, 0)
    return AnnotationList(annotations=[annotation_out(a) for a in found], total=total)


def _missing(context: ToolContext, project: str, node_id: str) -> NotFound:
    """Not found; if annotations still name this id, they are orphans: say so and show them."""
    from rhumbline import annotations
    from rhumbline.lookup.project_state import empty_project_failure

    with context.db() as session:
        orphans = annotations.for_nodes(session, project, [node_id], per_node=5).get(node_id, [])
    details: dict[str, Any] = {}
    if orphans:
        details["orphaned_annotations"] = [{**a.to_dict(), "orphaned": True} for a in orphans]
    empty = empty_project_failure(context, project)
    if empty is not None:
        empty.details.update(details)
        return empty
    return NotFound(f"no node '{node_id}' in project '{project}'; use `search` to find node ids", details=details)


def run(arguments: GetNodeInput, context: ToolContext) -> GetNodeOutput:
    from rhumbline.tools import cursors

    project = context.project(arguments.project)
    graph = context.graph
    query = query_of(arguments, project)
    out_offset = in_offset = 0
    if arguments.cursor:
        # Rare: the node's existence is checked before the cursor (its errors come first), then
        # the cursor is checked against the served version, then the page is read.
        if graph.get_node(project, arguments.node_id) is None:
            raise _missing(context, project, arguments.node_id)
        position = cursors.read(
            context, "get_node", query, arguments.cursor, graph_version=graph.graph_version(project)
        )
        # A finished direction holds its total: it lists nothing more, and still says its total.
        out_offset, in_offset = cursors.offset(position, "out"), cursors.offset(position, "in")
    limit = arguments.edge_limit
    # One graph read (on Neo4j one statement) for the node, both pages and the version; the
    # annotations (relational) are read meanwhile on Neo4j. node_id is the node's exact id.
    pending = overlapped(
        graph.backend, graph.node_with_edges, project, arguments.node_id,
        limit=limit, out_offset=out_offset, in_offset=in_offset,
    )  # fmt: skip
    annotated = _annotations(context, project, arguments.node_id)
    found = pending.result()
    if found is None:
        raise _missing(context, project, arguments.node_id)
    next_cursor = None
    position = {
        "out": min(found.outgoing_total, out_offset + len(found.outgoing)),
        "in": min(found.incoming_total, in_offset + len(found.incoming)),
    }
    if position["out"] < found.outgoing_total or position["in"] < found.incoming_total:
        next_cursor = cursors.issue(context, "get_node", query, position, graph_version=found.version)
    return GetNodeOutput(
        project=project,
        node=NodeDetail.model_validate(found.node, from_attributes=True),
        outgoing=edge_list(found.outgoing, found.outgoing_total, out_offset),
        incoming=edge_list(found.incoming, found.incoming_total, in_offset),
        annotations=annotated,
        next_cursor=next_cursor,
    )


SPEC = ToolSpec(
    name="get_node",
    families=("exploration",),
    title="Get a node and its edges",
    description=(
        "One node of the code graph by id: its detail (kind, qualified name, location, signature, "
        "docstring), its direct edges in both directions, each with relation, confidence and a "
        "human-readable explanation, capped with exact totals per direction (`next_cursor` continues), "
        "and the annotations people or agents attached to it (provenance CONTRIBUTED)."
    ),
    input_model=GetNodeInput,
    output_model=GetNodeOutput,
    run=run,
)
