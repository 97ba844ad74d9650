"""get_repo_health: review coverage, merge times and a documented health score for one repository."""

from __future__ import annotations

from pydantic import BaseModel, Field

from rhumbline.reviews.health import FORMULA
from rhumbline.reviews.tool_support import project_id_of, repo_field
from rhumbline.runtime.context import ToolContext
from rhumbline.runtime.spec import ToolSpec
from rhumbline.tools.common import StrictInput


class RepoHealthInput(StrictInput):
    repo: str = repo_field()


class RepoHealthOutput(BaseModel):
    repo: str
    review_coverage_pct: float | None = Field(description="Reviewed ÷ considered PRs × 100; null with no PRs.")
    avg_merge_time_hours: float | None = Field(description="Mean of merged_at − opened_at; null when no PR merged.")
    median_merge_time_hours: float | None
    open_prs: int
    open_prs_indexed: int = Field(description="Open PRs with a completed, undismissed review (indexed by the reviewer).")
    open_prs_with_files: int = Field(description="Open PRs whose touched files are recorded (linked to files in the graph).")
    reviewed_prs: int = Field(description="Considered PRs with at least one completed, undismissed review.")
    considered_prs: int = Field(description="Open and merged PRs, plus PRs known only from a review.")
    merged_prs: int
    approval_pct: float | None = Field(description="APPROVED ÷ (APPROVED + CHANGES_REQUESTED) × 100 over reviewed PRs.")
    health_score: int | None = Field(ge=0, le=100, description="See the formula in the note; null when no part has data.")
    note: str


def run(arguments: RepoHealthInput, context: ToolContext) -> RepoHealthOutput:
    from rhumbline.reviews.health import compute

    repo = arguments.repo
    with context.db() as session:
        health = compute(session, project_id_of(session, repo))
    return RepoHealthOutput(repo=repo, **health.__dict__)


SPEC = ToolSpec(
    name="get_repo_health",
    families=("review",),
    title="Review health of a repository",
    description=(
        "Review health of one repository (`repo` = owner/repo) from its recorded PRs and reviews: review "
        "coverage, average and median merge time in hours (from GitHub's open and merge timestamps), open PRs "
        "(and how many have their files recorded), reviewed PRs, and a health score. " + FORMULA
    ),
    input_model=RepoHealthInput,
    output_model=RepoHealthOutput,
    run=run,
    project_argument="repo",
)
