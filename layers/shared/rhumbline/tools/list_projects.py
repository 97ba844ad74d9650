"""list_projects: the projects the caller's token can see, with their last build."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from rhumbline.runtime.context import ToolContext
from rhumbline.runtime.spec import ToolSpec
from rhumbline.tools.common import StrictInput

MAX_PROJECTS = 200


class ListProjectsInput(StrictInput):
    pass


class Build(BaseModel):
    version: int
    commit: str | None
    built_at: datetime = Field(description="When the build started (UTC).")
    finished_at: datetime | None
    status: Literal["running", "completed", "failed"]
    error: str | None = None


class Serving(BaseModel):
    version: int
    commit: str | None
    built_at: datetime


class ProjectInfo(BaseModel):
    slug: str
    last_build: Build | None = Field(description="The latest ingest attempt, running and failed ones included.")
    serving: Serving | None = Field(
        default=None,
        description="The completed build whose graph is queried now: differs from last_build while an ingest "
        "runs or after one failed.",
    )
    node_count: int = Field(description="Nodes in the graph as it is queried now.")
    edge_count: int


class ListProjectsOutput(BaseModel):
    projects: list[ProjectInfo]
    total: int


def run(arguments: ListProjectsInput, context: ToolContext) -> ListProjectsOutput:
    from rhumbline.stores.relational import versions

    slugs = context.visible_projects()
    projects: list[ProjectInfo] = []
    with context.db() as session:
        latest = {slug: versions.latest(session, slug) for slug in slugs[:MAX_PROJECTS]}
        served = {
            slug: version if version is None or version.status == "completed"
            else versions.latest(session, slug, status="completed")
            for slug, version in latest.items()
        }  # fmt: skip
    for slug, version in latest.items():
        counts = context.graph.counts(slug)
        build = None
        if version is not None:
            # A build whose ingest died (killed, timed out) is failed, not running forever.
            dead = versions.abandoned(version)
            build = Build(
                version=version.version,
                commit=version.commit_sha,
                built_at=version.started_at,
                finished_at=version.finished_at,
                status="failed" if dead else version.status,
                error=dead or version.error,
            )
        done = served[slug]
        serving = Serving(version=done.version, commit=done.commit_sha, built_at=done.started_at) if done else None
        projects.append(
            ProjectInfo(
                slug=slug, last_build=build, serving=serving, node_count=counts.nodes, edge_count=counts.edges
            )
        )
    return ListProjectsOutput(projects=projects, total=len(slugs))


SPEC = ToolSpec(
    name="list_projects",
    families=("code", "exploration", "review"),
    title="List projects",
    description=(
        "List the projects this token can see, each with its latest build (version, commit, time, "
        "status — running and failed builds included) and the size of its current graph."
    ),
    input_model=ListProjectsInput,
    output_model=ListProjectsOutput,
    run=run,
    project_argument=None,
)
