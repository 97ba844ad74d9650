"""get_recent_reviews: a repository's newest reviews, with the exact number it has."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from rhumbline.reviews.tool_support import clip, project_id_of, repo_field
from rhumbline.runtime.context import ToolContext
from rhumbline.runtime.spec import ToolSpec
from rhumbline.tools.common import StrictInput

DEFAULT_LIMIT = 10
MAX_LIMIT = 50
# A review body may be 65,536 characters; fifty of those would drown a model's context.
SUMMARY_CHARS = 4000


class RecentReviewsInput(StrictInput):
    repo: str = repo_field()
    limit: int = Field(
        default=DEFAULT_LIMIT, ge=1, description=f"How many reviews, newest first. Values above {MAX_LIMIT} mean {MAX_LIMIT}."
    )

    @field_validator("limit")
    @classmethod
    def _cap(cls, value: int) -> int:
        return min(value, MAX_LIMIT)


class ReviewOut(BaseModel):
    id: int
    repo: str
    pr_number: int
    verdict: Literal["APPROVED", "CHANGES_REQUESTED", "COMMENT", "UNKNOWN"]
    summary: str
    summary_truncated: bool = Field(description=f"The summary was cut to {SUMMARY_CHARS} characters; get_pr_verdict has it whole.")
    created_at: datetime
    status: Literal["completed", "failed", "processing", "pending"]
    reviewer: str
    head_sha: str | None
    dismissed: bool


class RecentReviewsOutput(BaseModel):
    reviews: list[ReviewOut]
    total: int = Field(description="Exact number of reviews recorded for the repo.")


def run(arguments: RecentReviewsInput, context: ToolContext) -> RecentReviewsOutput:
    from rhumbline.stores.relational import reviews

    repo = arguments.repo
    with context.db() as session:
        rows, total = reviews.recent(session, project_id_of(session, repo), limit=arguments.limit)
    listed = []
    for row in rows:
        summary, truncated = clip(row.summary, SUMMARY_CHARS)
        listed.append(
            ReviewOut(
                id=row.id,
                repo=repo,
                pr_number=row.pr_number,
                verdict=row.verdict,
                summary=summary,
                summary_truncated=truncated,
                created_at=row.created_at,
                status=row.status,
                reviewer=row.reviewer,
                head_sha=row.head_sha,
                dismissed=row.dismissed_at is not None,
            )
        )
    return RecentReviewsOutput(reviews=listed, total=total)


SPEC = ToolSpec(
    name="get_recent_reviews",
    families=("review",),
    title="Recent reviews of a repository",
    description=(
        "The newest reviews of one repository (`repo` = owner/repo), newest first: id, PR number, verdict "
        "(APPROVED, CHANGES_REQUESTED, COMMENT, UNKNOWN), summary, created_at (ISO 8601, when the review was "
        f"made), workflow status (pending, processing, completed, failed) and reviewer. `limit` defaults to "
        f"{DEFAULT_LIMIT}, at most {MAX_LIMIT}; `total` is the exact number of the repo's reviews. Reviews come "
        "from GitHub webhooks and from record_review."
    ),
    input_model=RecentReviewsInput,
    output_model=RecentReviewsOutput,
    run=run,
    project_argument="repo",
)
