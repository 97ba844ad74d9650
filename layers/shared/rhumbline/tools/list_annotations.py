"""list_annotations: a project's annotations, each marked orphaned when its node is gone.

An annotation is never dropped when its node disappears (a rename, a deleted function): it stays
here, `orphaned: true`, with the kind and qualified name the node had, until someone re-homes it.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from rhumbline.runtime.context import ToolContext
from rhumbline.runtime.spec import ToolSpec
from rhumbline.tools.common import StrictInput, project_field
from rhumbline.tools.graph_common import cursor_field, query_of

MAX_LIMIT = 200


class ListAnnotationsInput(StrictInput):
    project: str | None = project_field()
    node_id: str | None = Field(default=None, min_length=1, max_length=2000, description="Only this node's.")
    orphaned: bool = Field(default=False, description="Only annotations whose node no longer exists.")
    limit: int = Field(default=50, ge=1, le=MAX_LIMIT)
    cursor: str | None = cursor_field()


class AnnotationEntry(BaseModel):
    id: int
    node_id: str
    node_kind: str = Field(description="The node's kind when it was annotated.")
    node_label: str = Field(description="The node's qualified name when it was annotated.")
    content: str
    tags: list[str]
    author: str
    created_at: str
    orphaned: bool = Field(description="No node has this id in the graph being served.")
    provenance: str


class ListAnnotationsOutput(BaseModel):
    project: str
    annotations: list[AnnotationEntry] = Field(description="Oldest first.")
    total: int
    offset: int
    next_cursor: str | None


def run(arguments: ListAnnotationsInput, context: ToolContext) -> ListAnnotationsOutput:
    from rhumbline import annotations
    from rhumbline.tools import cursors

    project = context.project(arguments.project)
    query = query_of(arguments, project)
    # Orphaned or not depends on the graph: a page boundary holds only for the graph it was cut on.
    version = context.graph.graph_version(project)
    offset = 0
    if arguments.cursor:
        position = cursors.read(context, "list_annotations", query, arguments.cursor, graph_version=version)
        offset = cursors.offset(position, "offset")
    with context.db() as session:
        views, total = annotations.listing(
            session, project, context.graph, node_id=arguments.node_id, orphaned_only=arguments.orphaned,
            limit=arguments.limit, offset=offset,
        )  # fmt: skip
    end = offset + len(views)
    next_cursor = None
    if end < total:
        next_cursor = cursors.issue(context, "list_annotations", query, {"offset": end}, graph_version=version)
    return ListAnnotationsOutput(
        project=project,
        annotations=[AnnotationEntry(**view.to_dict()) for view in views],
        total=total,
        offset=offset,
        next_cursor=next_cursor,
    )


SPEC = ToolSpec(
    name="list_annotations",
    families=("exploration",),
    title="List annotations",
    description=(
        "The annotations of a project (or of one node), oldest first, each marked `orphaned` when no node "
        "has its id any more (annotations are never dropped by a rebuild); `orphaned: true` lists only those."
    ),
    input_model=ListAnnotationsInput,
    output_model=ListAnnotationsOutput,
    run=run,
)
