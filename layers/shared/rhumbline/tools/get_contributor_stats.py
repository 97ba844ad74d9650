"""get_contributor_stats: who works on a repository — PRs (relational) and commits (graph history)."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field, field_validator

from rhumbline.reviews.tool_support import project_id_of, repo_field
from rhumbline.runtime.context import ToolContext
from rhumbline.runtime.spec import ToolSpec
from rhumbline.tools.common import StrictInput

if TYPE_CHECKING:
    from rhumbline.reviews.contributor_graph import GraphHistory

logger = logging.getLogger("rhumbline.tools")

DEFAULT_LIMIT = 50
MAX_LIMIT = 200
# Time kept back from the call's deadline for the answer itself.
GRAPH_MARGIN_SECONDS = 2.0


class ContributorStatsInput(StrictInput):
    repo: str = repo_field()
    limit: int = Field(default=DEFAULT_LIMIT, ge=1, description=f"Contributors listed. Values above {MAX_LIMIT} mean {MAX_LIMIT}.")

    @field_validator("limit")
    @classmethod
    def _cap(cls, value: int) -> int:
        return min(value, MAX_LIMIT)


class ContributorOut(BaseModel):
    login: str = Field(description="GitHub login, or the commit email when nothing ties it to a login.")
    pr_count: int
    commit_count: int | None = Field(description="Commits from git history; null when the graph has no history or is unavailable.")
    files_touched: int = Field(description="Distinct files changed through PRs and commits.")
    last_active: datetime | None


class ContributorStatsOutput(BaseModel):
    contributors: list[ContributorOut]
    total: int = Field(description="Exact number of contributors found.")
    commit_counts: str = Field(description="exact, summed_over_files, partial, no_history or unavailable")
    note: str | None


def _history(context: ToolContext, repo: str) -> "tuple[GraphHistory | None, str | None]":
    """(the graph's history, None), or (None, why the graph could not be read)."""
    from rhumbline.reviews.contributor_graph import read_history
    from rhumbline.stores.graph.protocol import GraphUnavailable

    try:
        return read_history(context.graph, repo, deadline=context.deadline - GRAPH_MARGIN_SECONDS), None
    except GraphUnavailable as error:
        logger.warning("graph unavailable for contributor stats of %s: %s", repo, error)
        return None, str(error)


def _describe(history: "GraphHistory | None", graph_error: str | None) -> tuple[str, str | None]:
    if graph_error is not None:
        return "unavailable", (
            f"The graph store is unavailable ({graph_error}): commit_count is null for everyone and files_touched "
            "counts PR files only. PR counts come from the relational store and are complete."
        )
    assert history is not None  # no error means the history was read
    if not history.has_history:
        return "no_history", (
            "The graph holds no git history for this repo (no Contributor MODIFIED edges): commit_count is "
            "null (unknown, not zero). Re-ingest with contributor history to fill it."
        )
    if history.read_nodes < history.total_nodes:
        return "partial", (
            f"Commit history was read for {history.read_nodes} of {history.total_nodes} graph contributors before "
            "the time budget ran out: commit counts of the others are missing."
        )
    if history.all_exact:
        return "exact", None
    return "summed_over_files", (
        "commit_count sums each file's commits (a commit touching n files counts n times): the graph has no "
        "per-contributor commit total."
    )


def run(arguments: ContributorStatsInput, context: ToolContext) -> ContributorStatsOutput:
    from rhumbline.reviews.contributors import from_pull_requests, merge_history, ranked
    from rhumbline.stores.relational.contributor_emails import logins_by_email

    repo = arguments.repo
    with context.db() as session:
        project_id = project_id_of(session, repo)
        rows = from_pull_requests(session, project_id)
        logins = logins_by_email(session, project_id)
    history, graph_error = _history(context, repo)
    merge_history(rows, history, logins)
    ordered = ranked(rows)
    commit_counts, note = _describe(history, graph_error)
    return ContributorStatsOutput(
        contributors=[
            ContributorOut(
                login=row.login,
                pr_count=row.pr_count,
                commit_count=row.commit_count,
                files_touched=len(row.files or ()),
                last_active=row.last_active,
            )
            for row in ordered[: arguments.limit]
        ],
        total=len(ordered),
        commit_counts=commit_counts,
        note=note,
    )


SPEC = ToolSpec(
    name="get_contributor_stats",
    families=("review",),
    title="Contributors of a repository",
    description=(
        "Who works on one repository (`repo` = owner/repo): per contributor, PRs authored (from recorded PRs), "
        "commits (from the git history in the code graph), distinct files touched through both, and when last "
        "active; ranked by PRs + commits, then recency. PR authors and git authors merge on the GitHub login "
        "(noreply addresses, and addresses push events showed GitHub tying to a login). If the graph is unavailable, PR data is still returned, commit_count is "
        "null and `note` says why. `limit` defaults to 50 (at most 200); `total` is exact."
    ),
    input_model=ContributorStatsInput,
    output_model=ContributorStatsOutput,
    run=run,
    project_argument="repo",
)
