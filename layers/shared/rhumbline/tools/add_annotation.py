"""add_annotation: attach durable knowledge to a node (kept in the relational store, never in
the graph, so it survives every rebuild and `clear`; see rhumbline.annotations)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from rhumbline.errors import InvalidArguments
from rhumbline.runtime.context import ToolContext
from rhumbline.runtime.spec import ToolSpec
from rhumbline.tools.common import StrictInput, project_field
from rhumbline.tools.graph_common import missing_node

# = stores.relational.schema.exploration.MAX_CONTENT (not imported: the gateway loads every tool's
# module to list them, and must not pay for SQLAlchemy; a unit test keeps the two equal).
MAX_CONTENT = 4000


class AddAnnotationInput(StrictInput):
    project: str | None = project_field()
    node_id: str = Field(min_length=1, max_length=2000, description="The id of the node to annotate.")
    content: str = Field(min_length=1, max_length=MAX_CONTENT, description=f"The knowledge, at most {MAX_CONTENT} characters.")
    tags: list[str] | None = Field(
        default=None, max_length=10, description="Up to 10 short labels (letters, digits, _ . : / -), e.g. [\"gotcha\"]."
    )


class AddAnnotationOutput(BaseModel):
    id: int
    project: str
    node_id: str
    author: str
    created_at: datetime
    provenance: str = Field(description="CONTRIBUTED: how get_node, query_graph, context and explain label it.")


def run(arguments: AddAnnotationInput, context: ToolContext) -> AddAnnotationOutput:
    from rhumbline import annotations

    project = context.project(arguments.project)
    node = context.graph.get_node(project, arguments.node_id)
    if node is None:
        raise missing_node(context, project, f"no node '{arguments.node_id}' in project '{project}'")
    try:
        annotations.check(arguments.content, arguments.tags)
    except ValueError as error:
        raise InvalidArguments(str(error)) from None
    with context.db() as session:
        view = annotations.add(session, project, node, arguments.content, arguments.tags, context.caller)
    return AddAnnotationOutput(
        id=view.id, project=project, node_id=view.node_id, author=view.author, created_at=view.created_at,
        provenance=view.provenance,
    )  # fmt: skip


SPEC = ToolSpec(
    name="add_annotation",
    families=("exploration",),
    title="Annotate a node",
    description=(
        "Attach durable knowledge (a gotcha, a decision, a warning) to a node. Stored outside the graph: "
        "it survives every rebuild and `clear`, re-attached by the node's stable id, and is shown by "
        "get_node, query_graph, context and explain with provenance CONTRIBUTED. Needs the write scope."
    ),
    input_model=AddAnnotationInput,
    output_model=AddAnnotationOutput,
    run=run,
    scope="write",
    read_only=False,
    idempotent=False,
)
