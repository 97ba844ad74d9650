"""record_review: an AI reviewer running elsewhere (e.g. in CI) records its verdict on a PR."""

from __future__ import annotations

import logging
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from rhumbline.reviews.graph_projection import PullRequestSnapshot
from rhumbline.reviews.tool_support import pr_number_field
from rhumbline.runtime.context import ToolContext
from rhumbline.runtime.spec import ToolSpec
from rhumbline.tools.common import StrictInput, project_field

logger = logging.getLogger("rhumbline.tools")

SUMMARY_LIMIT = 65_536
MAX_FILES = 3000
SHA_PATTERN = r"^[0-9a-fA-F]{7,64}$"


class RecordReviewInput(StrictInput):
    project: str = project_field(required=True)
    pr_number: int = pr_number_field()
    verdict: Literal["APPROVED", "CHANGES_REQUESTED", "COMMENT", "UNKNOWN"]
    summary: str = Field(max_length=SUMMARY_LIMIT, description="The review's conclusion, shown as its summary.")
    head_sha: str | None = Field(default=None, pattern=SHA_PATTERN, description="The commit reviewed.")
    status: Literal["pending", "processing", "completed", "failed"] = Field(
        default="completed",
        description="The review run's workflow status. A pending/processing review of the same PR, commit and "
        "reviewer is updated in place as the run progresses.",
    )
    reviewer: str | None = Field(default=None, min_length=1, max_length=200, description="Defaults to the token's principal.")
    files: list[str] | None = Field(
        default=None,
        max_length=MAX_FILES,
        description="Paths the PR changes (GitHub webhooks do not carry them): replaces the PR's recorded files.",
    )

    @field_validator("files")
    @classmethod
    def _paths(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return None
        for path in value:
            if not path.strip() or len(path) > 1024 or path.startswith("/") or "\x00" in path:
                raise ValueError(f"file paths must be 1-1024 characters, relative to the repository root: {path[:80]!r}")
        return value


class RecordReviewOutput(BaseModel):
    id: int
    created: bool = Field(description="False when an in-progress run was updated, or an identical review already existed.")
    project: str
    pr_number: int
    status: str
    files_recorded: int | None
    graph: str = Field(description="What happened to the PR in the code graph: updated, or why not.")


def _project_into_graph(context: ToolContext, project: str, snapshot: PullRequestSnapshot) -> str:
    from rhumbline.reviews.graph_projection import project_pull_requests
    from rhumbline.stores.graph.protocol import GraphUnavailable

    try:
        project_pull_requests(context.graph, project, [snapshot])
    except GraphUnavailable as error:
        logger.warning("PR #%s of %s not written to the graph: %s", snapshot.number, project, error)
        return f"not updated: the graph store is unavailable ({error}); the review is recorded"
    return "updated"


def run(arguments: RecordReviewInput, context: ToolContext) -> RecordReviewOutput:
    from rhumbline.reviews.recording import record_api_review
    from rhumbline.stores.relational import projects

    project = context.project(arguments.project)
    with context.db() as session:
        project_id = projects.get_or_create(session, project).id
        recorded = record_api_review(
            session,
            project_id,
            pr_number=arguments.pr_number,
            reviewer=arguments.reviewer or context.caller.principal,
            verdict=arguments.verdict,
            summary=arguments.summary,
            status=arguments.status,
            head_sha=arguments.head_sha.lower() if arguments.head_sha else None,
            files=arguments.files,
        )
    files = recorded.pull_request.files
    return RecordReviewOutput(
        id=recorded.review_id,
        created=recorded.created,
        project=project,
        pr_number=arguments.pr_number,
        status=arguments.status,
        files_recorded=len(files) if files is not None else None,
        graph=_project_into_graph(context, project, recorded.pull_request),
    )


SPEC = ToolSpec(
    name="record_review",
    families=("review",),
    title="Record a PR review",
    description=(
        "Record an AI reviewer's review of a pull request: verdict (APPROVED, CHANGES_REQUESTED, COMMENT, "
        "UNKNOWN), summary, the commit reviewed, the run's status (pending → processing → completed/failed; an "
        "in-progress run is updated in place), and optionally the files the PR changes. The review is flagged "
        "as the review bot's, so get_pr_verdict reports it as the PR's verdict. Needs the `write` scope."
    ),
    input_model=RecordReviewInput,
    output_model=RecordReviewOutput,
    run=run,
    scope="write",
    read_only=False,
    destructive=False,
    idempotent=False,
)
