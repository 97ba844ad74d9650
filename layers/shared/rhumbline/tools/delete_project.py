"""delete_project: remove a project's graph and everything derived from it (admin scope)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from rhumbline.errors import InvalidArguments, NotFound
from rhumbline.runtime.context import ToolContext
from rhumbline.runtime.spec import ToolSpec
from rhumbline.tools.common import StrictInput
from rhumbline.vocabulary import PROJECT_PATTERN


class DeleteProjectInput(StrictInput):
    project: str = Field(pattern=PROJECT_PATTERN, description="The project to delete, owner/repo.")
    reviews: Literal["keep", "drop"] = Field(
        description="keep: the project stays with its pull requests and reviews (the webhook keeps recording); "
        "drop: those go too."
    )
    confirm: str | None = Field(
        default=None,
        max_length=201,
        description="The project's slug again, to delete. Without it nothing is deleted and the answer says what would be.",
    )


class DeletedCounts(BaseModel):
    nodes: int = Field(description="In the code graph.")
    edges: int = Field(description="In the code graph.")
    graph_versions: int
    snapshots: int = Field(description="Graph versions that had a diffable snapshot.")
    annotations: int
    pull_requests: int = Field(description="Deleted only with reviews=drop.")
    reviews: int = Field(description="Deleted only with reviews=drop.")


class DeleteProjectOutput(BaseModel):
    project: str
    deleted: bool = Field(description="False: a dry run (no `confirm`); `counts` is what would be deleted.")
    reviews: Literal["keep", "drop"]
    counts: DeletedCounts


def run(arguments: DeleteProjectInput, context: ToolContext) -> DeleteProjectOutput:
    from rhumbline import project_deletion

    if arguments.confirm is not None and arguments.confirm != arguments.project:
        raise InvalidArguments(f"`confirm` must repeat the project slug '{arguments.project}' exactly")
    try:
        if arguments.confirm:
            outcome = project_deletion.delete(
                arguments.project, graph=context.graph, engine=context.engine, reviews=arguments.reviews, blobs=context.blobs
            )
        else:
            outcome = project_deletion.plan(arguments.project, graph=context.graph, engine=context.engine, reviews=arguments.reviews)
    except project_deletion.UnknownProject:
        raise NotFound(f"no project '{arguments.project}'") from None
    return DeleteProjectOutput(
        project=outcome.project, deleted=outcome.deleted, reviews=outcome.reviews, counts=DeletedCounts(**outcome.counts),
    )  # fmt: skip


SPEC = ToolSpec(
    name="delete_project",
    families=("admin",),
    title="Delete a project",
    description=(
        "Delete a project's code graph (every version), its graph versions and snapshots, annotations and "
        "centrality; its pull requests and reviews too with reviews=drop. Needs the `admin` scope. Without "
        "`confirm` (the slug again) nothing is deleted: the answer counts what would be."
    ),
    input_model=DeleteProjectInput,
    output_model=DeleteProjectOutput,
    run=run,
    scope="admin",
    read_only=False,
    destructive=True,
    idempotent=False,
)
