"""get_pr_verdict: the review verdict of any recorded PR, by an indexed lookup (no recency window)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from rhumbline.errors import NotFound
from rhumbline.reviews.tool_support import NotReviewed, pr_number_field, project_id_of, repo_field
from rhumbline.runtime.context import ToolContext
from rhumbline.runtime.spec import ToolSpec
from rhumbline.tools.common import StrictInput


class PrVerdictInput(StrictInput):
    repo: str = repo_field()
    pr_number: int = pr_number_field()


class PrVerdictOutput(BaseModel):
    repo: str
    pr_number: int
    verdict: Literal["APPROVED", "CHANGES_REQUESTED", "COMMENT", "UNKNOWN"]
    summary: str
    created_at: datetime = Field(description="When the deciding review was made.")
    reviewer: str
    head_sha: str | None = Field(description="The commit the review looked at.")
    state: Literal["open", "closed", "merged"] | None = Field(
        description="The PR's state; null when no GitHub pull_request event has reported it yet."
    )
    status: Literal["completed", "failed", "processing", "pending"] = Field(description="The review's workflow status.")
    review_id: int
    is_bot: bool = Field(description="True when the review is the configured review bot's (or came through record_review).")
    pr_head_sha: str | None = Field(description="The PR's current head commit, to tell whether the verdict is for it.")


def run(arguments: PrVerdictInput, context: ToolContext) -> PrVerdictOutput:
    from rhumbline.stores.relational import pull_requests, reviews

    repo = arguments.repo
    number = arguments.pr_number
    with context.db() as session:
        project_id = project_id_of(session, repo)
        pr = pull_requests.get(session, project_id, number)
        if pr is None:
            raise NotFound(f"PR not found: no PR #{number} is recorded for {repo}")
        review = reviews.verdict_of(session, project_id, number)
        if review is None:
            state = pr.state or "in an unknown state"
            raise NotReviewed(
                f"PR found but not reviewed yet: #{number} in {repo} is {state} and has no review "
                "(dismissed reviews do not count)"
            )
        return PrVerdictOutput(
            repo=repo,
            pr_number=number,
            verdict=review.verdict,
            summary=review.summary,
            created_at=review.created_at,
            reviewer=review.reviewer,
            head_sha=review.head_sha,
            state=pr.state,
            status=review.status,
            review_id=review.id,
            is_bot=review.is_bot,
            pr_head_sha=pr.head_sha,
        )


SPEC = ToolSpec(
    name="get_pr_verdict",
    families=("review",),
    title="The review verdict of a PR",
    description=(
        "The verdict on one pull request of a repository (`repo` = owner/repo), for any PR ever recorded: "
        "verdict, summary, reviewer, the commit reviewed, when, and the PR's state. The verdict is the review "
        "bot's (the AI reviewer configured by login, or record_review) over anyone else's, a completed review "
        "over one in progress, then the newest; dismissed reviews never count. Errors: 'PR not found' when "
        "no such PR is recorded, 'PR found but not reviewed yet' when it has no review."
    ),
    input_model=PrVerdictInput,
    output_model=PrVerdictOutput,
    run=run,
    project_argument="repo",
)
