"""What each GitHub event changes, inside the delivery's transaction.

Every handler takes a validated payload and the project's row id, writes through the relational
repositories, and returns an EventResult: the delivery's outcome, a sentence saying what happened,
and the PRs to project into the graph once the transaction has committed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy.orm import Session

from rhumbline.reviews.graph_projection import PullRequestSnapshot
from rhumbline.reviews.recording import record_github_review, record_pull_request
from rhumbline.reviews.verdicts import is_review_bot, verdict_from_github
from rhumbline.stores.relational.schema.base import utcnow
from rhumbline.stores.relational.schema.core import Project
from rhumbline.stores.relational.pull_requests import PullRequestFacts
from rhumbline.stores.relational.reviews import GitHubReview
from rhumbline.webhooks import payloads
from rhumbline.webhooks.http import HttpError

# Actions that change what Rhumbline records; other actions of these events are acknowledged only.
TRACKED_ACTIONS = {
    "pull_request": frozenset({"opened", "edited", "synchronize", "reopened", "closed"}),
    "pull_request_review": frozenset({"submitted", "edited", "dismissed"}),
}


@dataclass(frozen=True)
class EventResult:
    outcome: str  # processed | ignored | reingest_invoked | reingest_recorded
    detail: str
    graph: list[PullRequestSnapshot] = field(default_factory=list)
    status: int = 200


def facts_of(pr: payloads.PullRequest) -> PullRequestFacts:
    """The PR's facts, refusing combinations GitHub never sends (400: nothing is stored)."""
    merged = pr.merged if pr.merged is not None else pr.merged_at is not None
    if merged and pr.state != "closed":
        raise HttpError(400, f"malformed payload: pull_request #{pr.number} is merged but its state is {pr.state!r}")
    if merged and pr.merged_at is None:
        raise HttpError(400, f"malformed payload: pull_request #{pr.number} is merged but has no merged_at")
    if pr.state == "closed" and pr.closed_at is None:
        raise HttpError(400, f"malformed payload: pull_request #{pr.number} is closed but has no closed_at")
    return PullRequestFacts(
        number=pr.number,
        title=pr.title,
        author=pr.user.login if pr.user else None,
        state="merged" if merged else pr.state,
        base_ref=pr.base.ref,
        head_ref=pr.head.ref,
        head_sha=pr.head.sha.lower(),
        opened_at=pr.created_at,
        merged_at=pr.merged_at if merged else None,
        closed_at=pr.closed_at,
        updated_at=pr.updated_at,
    )


def pull_request(session: Session, project_id: int, event: payloads.PullRequestEvent) -> EventResult:
    facts = facts_of(event.pull_request)
    applied, snapshot = record_pull_request(session, project_id, facts)
    if not applied:
        return EventResult(
            "ignored",
            f"PR #{facts.number}: this delivery is older than what is recorded (updated_at "
            f"{facts.updated_at.isoformat()}); nothing changed",
            status=202,
        )
    return EventResult("processed", f"PR #{facts.number} recorded as {snapshot.state}", graph=[snapshot])


def pull_request_review(session: Session, project_id: int, event: payloads.PullRequestReviewEvent) -> EventResult:
    review, pr = event.review, event.pull_request
    reviewer = review.user.login if review.user else "ghost"  # GitHub's name for deleted accounts
    facts = GitHubReview(
        github_review_id=review.id,
        pr_number=pr.number,
        reviewer=reviewer,
        verdict=verdict_from_github(review.state),
        summary=review.body or "",
        head_sha=review.commit_id.lower() if review.commit_id else None,
        submitted_at=review.submitted_at,
        is_bot=is_review_bot(reviewer),
    )
    dismissed_at = utcnow() if event.action == "dismissed" else None
    recorded = record_github_review(session, project_id, facts_of(pr), facts, dismissed_at=dismissed_at)
    what = "dismissed" if dismissed_at else ("recorded" if recorded.created else "updated")
    who = f"{reviewer} (review bot)" if facts.is_bot else reviewer
    return EventResult(
        "processed",
        f"review {review.id} by {who} on PR #{pr.number} {what}: {facts.verdict}",
        graph=[recorded.pull_request],
    )


def push(session: Session, project: Project, event: payloads.PushEvent, delivery_id: str, *, hosted: bool) -> EventResult:
    """A push to the default branch schedules a re-ingest; any other push is acknowledged only.
    Either way its commit authors' addresses are tied to the logins GitHub matched them to."""
    from rhumbline.stores.relational import contributor_emails
    from rhumbline.webhooks.reingest import schedule

    contributor_emails.record(session, project.id, event.author_logins())
    default = event.repository.default_branch
    if event.deleted or event.after.strip("0") == "":
        return EventResult("ignored", f"{event.ref} was deleted: nothing to ingest", status=202)
    if not default:
        return EventResult("ignored", "the push payload names no default branch: not re-ingesting", status=202)
    if event.ref != f"refs/heads/{default}":
        return EventResult("ignored", f"push to {event.ref}, not the default branch {default}: not re-ingesting", status=202)
    scheduled = schedule(project.slug, event.after.lower(), delivery_id, hosted=hosted)
    return EventResult(scheduled.outcome, scheduled.detail, status=202)
