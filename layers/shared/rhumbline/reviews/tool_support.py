"""What the review tools share: the `repo` argument and their error codes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import Field

from rhumbline.errors import NotFound, ToolFailure
from rhumbline.vocabulary import PROJECT_PATTERN

if TYPE_CHECKING:
    from sqlalchemy.orm import Session


MAX_PR_NUMBER = 2**31 - 1


class NotReviewed(ToolFailure):
    """The PR is recorded but has no review that could be its verdict."""

    code = "not_reviewed"


def repo_field() -> Any:  # pydantic's Field() is typed Any, to sit in any annotation
    return Field(description="The repository: its project slug `owner/repo`.", pattern=PROJECT_PATTERN)


def pr_number_field() -> Any:
    return Field(ge=1, le=MAX_PR_NUMBER, description="The pull request number.")


def project_id_of(session: "Session", repo: str) -> int:
    """The project's row id; NotFound (after the scope check, so nothing leaks) when unknown."""
    from rhumbline.stores.relational import projects

    project = projects.get(session, repo)
    if project is None:
        raise NotFound(
            f"no project '{repo}': nothing has been ingested or recorded for it (PRs and reviews arrive "
            "through the GitHub webhook or record_review)"
        )
    return project.id


def clip(text: str, limit: int) -> tuple[str, bool]:
    """`text` cut to `limit` characters (with an ellipsis), and whether it was cut."""
    if len(text) <= limit:
        return text, False
    return text[: limit - 1] + "…", True
