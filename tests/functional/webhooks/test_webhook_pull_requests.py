"""GitHub deliveries driven through the real webhook handler, on both deployment shapes:
opened → review submitted → synchronize → merged, replays, stale deliveries, dismissals."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from sqlalchemy import select

from rhumbline.stores.relational.schema.reviews import PullRequest, Review, WebhookDelivery
from tests.functional.reviews.review_world import BOT, ReviewWorld, payload

HEAD = "6dcb09b5b57875f334f61aebed695e2e4193db5e"
NEW_HEAD = "1111111111111111111111111111111111111111"


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(timezone.utc)


def pr_row(world: ReviewWorld, number: int = 1347) -> dict:
    from rhumbline.stores.relational import projects, pull_requests

    with world.db() as session:
        row = pull_requests.get(session, projects.get(session, world.repo).id, number)
        assert row is not None
        return {c.name: getattr(row, c.key) for c in PullRequest.__table__.columns if c.name not in ("id", "project_id")}


def reviews_of(world: ReviewWorld) -> list[dict]:
    from rhumbline.stores.relational import projects

    with world.db() as session:
        project = projects.get(session, world.repo)
        rows = session.scalars(select(Review).where(Review.project_id == project.id).order_by(Review.id)).all()
        return [
            {c.name: getattr(r, c.key) for c in Review.__table__.columns if c.name not in ("project_id", "updated_at")}
            for r in rows
        ]


def verdict(world: ReviewWorld, number: int = 1347) -> dict:
    outcome = world.call("get_pr_verdict", {"repo": world.repo, "pr_number": number})
    assert outcome["ok"], outcome
    return outcome["result"]


def test_opened_records_the_pull_request(review_world: ReviewWorld) -> None:
    answer = review_world.deliver("pull_request", payload("pull_request.opened", review_world.repo), delivery="d-opened-1")

    assert answer.status == 200
    assert answer.body == {
        "delivery": "d-opened-1",
        "event": "pull_request",
        "action": "opened",
        "repository": review_world.repo,
        "outcome": "processed",
        "detail": "PR #1347 recorded as open",
        "graph": "updated",
        "files": "the files of PR #1347 are being read from GitHub",
    }
    assert pr_row(review_world) == {
        "number": 1347,
        "title": "Cache the price lookups",
        "author": "octocat",
        "state": "open",
        "base_ref": "main",
        "head_ref": "price-cache",
        "head_sha": HEAD,
        "opened_at": utc("2026-11-02T09:15:00Z"),
        "merged_at": None,
        "closed_at": None,
        "updated_at": utc("2026-11-02T09:15:00Z"),
        "files_known": False,
    }
    graph = review_world.graph()
    assert graph.get_node(review_world.repo, "pull_request:1347").kind == "PullRequest"
    authored, total = graph.edges_of(review_world.repo, "contributor:octocat", "out", limit=10)
    assert total == 1 and (authored[0].relation, authored[0].other_id) == ("AUTHORED", "pull_request:1347")


def test_opened_then_bot_review_then_merged(review_world: ReviewWorld) -> None:
    repo = review_world.repo
    assert review_world.deliver("pull_request", payload("pull_request.opened", repo)).status == 200
    reviewed = review_world.deliver("pull_request_review", payload("pull_request_review.submitted", repo))
    assert reviewed.status == 200
    assert reviewed.body["detail"] == f"review 80 by {BOT} (review bot) on PR #1347 recorded: CHANGES_REQUESTED"
    # A human approves later: kept, but the bot's review stays *the* verdict.
    human = payload(
        "pull_request_review.submitted", repo,
        **{"review.id": 81, "review.user.login": "hubot", "review.user.type": "User", "review.state": "approved",
           "review.body": "LGTM", "review.submitted_at": "2026-11-02T11:00:00Z"},
    )  # fmt: skip
    assert review_world.deliver("pull_request_review", human).status == 200
    merged = review_world.deliver("pull_request", payload("pull_request.closed", repo))
    assert (merged.status, merged.body["detail"]) == (200, "PR #1347 recorded as merged")

    row = pr_row(review_world)
    assert (row["state"], row["merged_at"], row["closed_at"]) == (
        "merged", utc("2026-11-03T21:15:00Z"), utc("2026-11-03T21:15:00Z"))  # fmt: skip
    assert [(r["github_review_id"], r["reviewer"], r["verdict"], r["is_bot"], r["source"], r["status"]) for r in reviews_of(review_world)] == [
        (80, BOT, "CHANGES_REQUESTED", True, "github", "completed"),
        (81, "hubot", "APPROVED", False, "github", "completed"),
    ]
    assert verdict(review_world) == {
        "repo": repo,
        "pr_number": 1347,
        "verdict": "CHANGES_REQUESTED",
        "summary": "The cache is never invalidated when a price changes: `set_price` must clear it.",
        "created_at": "2026-11-02T10:05:00Z",
        "reviewer": BOT,
        "head_sha": HEAD,
        "state": "merged",
        "status": "completed",
        "review_id": reviews_of(review_world)[0]["id"],
        "is_bot": True,
        "pr_head_sha": HEAD,
    }
    health = review_world.call("get_repo_health", {"repo": repo})["result"]
    assert (health["avg_merge_time_hours"], health["median_merge_time_hours"], health["reviewed_prs"]) == (36.0, 36.0, 1)


def test_synchronize_moves_the_head_and_edited_changes_the_title(review_world: ReviewWorld) -> None:
    repo = review_world.repo
    review_world.deliver("pull_request", payload("pull_request.opened", repo))
    synchronize = payload(
        "pull_request.opened", repo,
        **{"action": "synchronize", "pull_request.head.sha": NEW_HEAD, "pull_request.updated_at": "2026-11-02T12:00:00Z"},
    )  # fmt: skip
    assert review_world.deliver("pull_request", synchronize).status == 200
    edited = payload(
        "pull_request.opened", repo,
        **{"action": "edited", "pull_request.head.sha": NEW_HEAD, "pull_request.title": "Cache prices (v2)",
           "pull_request.updated_at": "2026-11-02T12:30:00Z"},
    )  # fmt: skip
    assert review_world.deliver("pull_request", edited).status == 200
    row = pr_row(review_world)
    assert (row["head_sha"], row["title"], row["updated_at"]) == (NEW_HEAD, "Cache prices (v2)", utc("2026-11-02T12:30:00Z"))


def test_closed_without_merge_then_reopened(review_world: ReviewWorld) -> None:
    repo = review_world.repo
    review_world.deliver("pull_request", payload("pull_request.opened", repo))
    closed = payload(
        "pull_request.closed", repo,
        **{"pull_request.merged": False, "pull_request.merged_at": None, "pull_request.merge_commit_sha": None,
           "pull_request.closed_at": "2026-11-03T08:00:00Z", "pull_request.updated_at": "2026-11-03T08:00:00Z"},
    )  # fmt: skip
    assert review_world.deliver("pull_request", closed).body["detail"] == "PR #1347 recorded as closed"
    assert (pr_row(review_world)["state"], pr_row(review_world)["closed_at"]) == ("closed", utc("2026-11-03T08:00:00Z"))
    reopened = payload(
        "pull_request.opened", repo, **{"action": "reopened", "pull_request.updated_at": "2026-11-04T08:00:00Z"}
    )
    assert review_world.deliver("pull_request", reopened).body["detail"] == "PR #1347 recorded as open"
    assert (pr_row(review_world)["state"], pr_row(review_world)["closed_at"]) == ("open", None)


def test_a_replayed_delivery_changes_nothing(review_world: ReviewWorld) -> None:
    repo = review_world.repo
    first = review_world.deliver("pull_request", payload("pull_request.opened", repo), delivery="72d3162e-cc78-11e3-81ab-4c9367dc0958")
    assert first.body["outcome"] == "processed"
    before = pr_row(review_world)
    # Same delivery id, even with a (validly signed) different body: GitHub's "Redeliver" sends the
    # same id, and whatever it carries was already applied once.
    changed = payload("pull_request.opened", repo, **{"pull_request.title": "Hijacked", "pull_request.updated_at": "2027-01-01T00:00:00Z"})
    replay = review_world.deliver("pull_request", changed, delivery="72d3162e-cc78-11e3-81ab-4c9367dc0958")
    assert (replay.status, replay.body["outcome"]) == (200, "duplicate")
    assert pr_row(review_world) == before
    review = payload("pull_request_review.submitted", repo)
    review_world.deliver("pull_request_review", review, delivery="review-delivery-1")
    review_world.deliver("pull_request_review", review, delivery="review-delivery-1")
    assert len(reviews_of(review_world)) == 1
    with review_world.db() as session:
        rows = session.scalars(
            select(WebhookDelivery).where(WebhookDelivery.delivery_id.in_(["72d3162e-cc78-11e3-81ab-4c9367dc0958", "review-delivery-1"]))
        ).all()
        assert sorted((r.delivery_id, r.event, r.outcome) for r in rows) == [
            ("72d3162e-cc78-11e3-81ab-4c9367dc0958", "pull_request", "processed"),
            ("review-delivery-1", "pull_request_review", "processed"),
        ]


def test_a_stale_delivery_does_not_roll_the_pr_back(review_world: ReviewWorld) -> None:
    repo = review_world.repo
    review_world.deliver("pull_request", payload("pull_request.opened", repo))
    review_world.deliver("pull_request", payload("pull_request.closed", repo))
    # GitHub does not guarantee order: a "synchronize" from before the merge arrives last.
    late = payload(
        "pull_request.opened", repo,
        **{"action": "synchronize", "pull_request.head.sha": NEW_HEAD, "pull_request.updated_at": "2026-11-02T12:00:00Z"},
    )  # fmt: skip
    answer = review_world.deliver("pull_request", late)
    assert (answer.status, answer.body["outcome"]) == (202, "ignored")
    assert "older than what is recorded" in answer.body["detail"]
    row = pr_row(review_world)
    assert (row["state"], row["head_sha"]) == ("merged", HEAD)


def test_an_edited_review_updates_and_a_dismissed_one_stops_counting(review_world: ReviewWorld) -> None:
    repo = review_world.repo
    review_world.deliver("pull_request", payload("pull_request.opened", repo))
    review_world.deliver("pull_request_review", payload("pull_request_review.submitted", repo))
    human = payload(
        "pull_request_review.submitted", repo,
        **{"review.id": 81, "review.user.login": "hubot", "review.state": "commented", "review.body": "A nit.",
           "review.submitted_at": "2026-11-02T11:00:00Z"},
    )  # fmt: skip
    review_world.deliver("pull_request_review", human)
    edited = payload("pull_request_review.submitted", repo, **{"action": "edited", "review.body": "Invalidate in set_price()."})
    assert review_world.deliver("pull_request_review", edited).body["detail"].endswith("updated: CHANGES_REQUESTED")
    assert verdict(review_world)["summary"] == "Invalidate in set_price()."

    dismissed = payload("pull_request_review.submitted", repo, **{"action": "dismissed", "review.state": "dismissed"})
    answer = review_world.deliver("pull_request_review", dismissed)
    assert answer.body["detail"] == f"review 80 by {BOT} (review bot) on PR #1347 dismissed: UNKNOWN"
    bot_review = reviews_of(review_world)[0]
    # The dismissal keeps what the review decided; it just no longer counts.
    assert (bot_review["verdict"], bot_review["dismissed_at"] is not None) == ("CHANGES_REQUESTED", True)
    assert (verdict(review_world)["reviewer"], verdict(review_world)["verdict"]) == ("hubot", "COMMENT")


def test_a_review_of_an_unknown_pr_records_the_pr_from_the_review_payload(review_world: ReviewWorld) -> None:
    answer = review_world.deliver("pull_request_review", payload("pull_request_review.submitted", review_world.repo))
    assert answer.status == 200
    row = pr_row(review_world)
    assert (row["state"], row["author"], row["head_sha"]) == ("open", "octocat", HEAD)


def test_the_default_secret_does_not_create_projects(review_world: ReviewWorld) -> None:
    newcomer = review_world.repo.replace("acme/", "newco/")
    answer = review_world.deliver("pull_request", payload("pull_request.opened", newcomer))
    assert (answer.status, answer.body["outcome"]) == (202, "ignored")
    assert "the default webhook secret does not create projects" in answer.body["detail"]
    outcome = review_world.call("get_repo_health", {"repo": newcomer}, projects=(newcomer,))
    assert outcome["error"]["code"] == "not_found"


def test_a_replayed_body_under_a_new_delivery_id_is_a_duplicate(review_world: ReviewWorld) -> None:
    body = json.dumps(payload("pull_request.opened", review_world.repo)).encode()
    first = review_world.deliver("pull_request", body, delivery="original-delivery")
    replay = review_world.deliver("pull_request", body, delivery="forged-new-delivery")
    assert (first.status, first.body["outcome"]) == (200, "processed")
    assert (replay.status, replay.body["outcome"]) == (200, "duplicate")


def test_a_repository_with_its_own_secret_is_recorded_under_its_project(review_world: ReviewWorld) -> None:
    from tests.functional.reviews.review_world import OTHER_SECRET

    other = review_world.other_repo
    answer = review_world.deliver("pull_request", payload("pull_request.opened", other), secret=OTHER_SECRET)
    assert answer.status == 200
    assert review_world.call("get_repo_health", {"repo": other}, projects=(other,))["result"]["open_prs"] == 1
    assert review_world.call("get_repo_health", {"repo": review_world.repo})["result"]["open_prs"] == 0
