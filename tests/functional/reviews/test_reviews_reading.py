"""get_recent_reviews and get_pr_verdict: exact totals, caps, any PR ever recorded, repo isolation."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from rhumbline.stores.relational import projects, pull_requests, reviews
from rhumbline.stores.relational.pull_requests import PullRequestFacts
from tests.functional.reviews.review_world import ReviewWorld

START = datetime(2025, 1, 1, tzinfo=timezone.utc)
VERDICTS = ("APPROVED", "CHANGES_REQUESTED", "COMMENT")


def seed(world: ReviewWorld, repo: str, count: int) -> None:
    """`count` merged PRs #1..#count, each with one bot review, in one transaction (500 PRs through
    the webhook would only test the webhook again, slowly)."""
    with world.db() as session:
        project_id = projects.get(session, repo).id
        for number in range(1, count + 1):
            opened = START + timedelta(days=number)
            pull_requests.upsert(
                session,
                project_id,
                PullRequestFacts(number, f"PR {number}", f"dev{number % 3}", "merged", "main", f"topic-{number}",
                                 f"{number:040x}", opened, opened + timedelta(hours=2), opened + timedelta(hours=2),
                                 opened + timedelta(hours=2)),
            )  # fmt: skip
            reviews.record_api(
                session,
                project_id,
                pr_number=number,
                reviewer="rhumbline-reviewer[bot]",
                verdict=VERDICTS[number % 3],
                summary=f"Review of PR {number} in {repo}",
                status="completed",
                head_sha=f"{number:040x}",
                is_bot=True,
            )


def test_a_pr_older_than_any_recency_window_is_found(review_world: ReviewWorld) -> None:
    seed(review_world, review_world.repo, 500)
    first = review_world.call("get_pr_verdict", {"repo": review_world.repo, "pr_number": 1})
    assert first["ok"], first
    assert {k: first["result"][k] for k in ("pr_number", "verdict", "summary", "state", "head_sha", "reviewer")} == {
        "pr_number": 1,
        "verdict": "CHANGES_REQUESTED",
        "summary": f"Review of PR 1 in {review_world.repo}",
        "state": "merged",
        "head_sha": f"{1:040x}",
        "reviewer": "rhumbline-reviewer[bot]",
    }
    recent = review_world.call("get_recent_reviews", {"repo": review_world.repo, "limit": 3})["result"]
    assert recent["total"] == 500
    assert [review["pr_number"] for review in recent["reviews"]] == [500, 499, 498]


def test_limit_defaults_to_ten_and_is_capped_at_fifty(review_world: ReviewWorld) -> None:
    seed(review_world, review_world.repo, 60)
    default = review_world.call("get_recent_reviews", {"repo": review_world.repo})["result"]
    assert (len(default["reviews"]), default["total"]) == (10, 60)
    capped = review_world.call("get_recent_reviews", {"repo": review_world.repo, "limit": 1000})["result"]
    assert (len(capped["reviews"]), capped["total"]) == (50, 60)
    assert [r["pr_number"] for r in capped["reviews"]] == list(range(60, 10, -1))
    assert review_world.call("get_recent_reviews", {"repo": review_world.repo, "limit": 0})["error"]["code"] == "invalid_arguments"


def test_recent_reviews_have_the_contract_shape(review_world: ReviewWorld) -> None:
    seed(review_world, review_world.repo, 1)
    review = review_world.call("get_recent_reviews", {"repo": review_world.repo})["result"]["reviews"][0]
    assert set(review) >= {"id", "repo", "pr_number", "verdict", "summary", "created_at", "status"}
    assert (review["repo"], review["pr_number"], review["verdict"], review["status"]) == (review_world.repo, 1, "CHANGES_REQUESTED", "completed")
    assert datetime.fromisoformat(review["created_at"].replace("Z", "+00:00")).tzinfo is not None


def test_two_repos_do_not_see_each_other(review_world: ReviewWorld) -> None:
    seed(review_world, review_world.repo, 3)
    seed(review_world, review_world.other_repo, 5)
    both = (review_world.repo, review_world.other_repo)
    mine = review_world.call("get_recent_reviews", {"repo": review_world.repo, "limit": 50}, projects=both)["result"]
    theirs = review_world.call("get_recent_reviews", {"repo": review_world.other_repo, "limit": 50}, projects=both)["result"]
    assert (mine["total"], theirs["total"]) == (3, 5)
    assert {r["repo"] for r in mine["reviews"]} == {review_world.repo}
    assert all(r["summary"].endswith(f"in {review_world.other_repo}") for r in theirs["reviews"])
    verdict = review_world.call("get_pr_verdict", {"repo": review_world.repo, "pr_number": 5}, projects=both)
    assert verdict["error"] == {"code": "not_found", "message": f"PR not found: no PR #5 is recorded for {review_world.repo}", "details": {}}
    mine_health = review_world.call("get_repo_health", {"repo": review_world.repo}, projects=both)["result"]
    assert (mine_health["merged_prs"], mine_health["reviewed_prs"]) == (3, 3)


@pytest.mark.parametrize("tool", ["get_recent_reviews", "get_pr_verdict", "get_repo_health", "get_contributor_stats"])
def test_a_repo_the_token_cannot_see_is_refused_alike_whether_it_exists(review_world: ReviewWorld, tool: str) -> None:
    seed(review_world, review_world.other_repo, 1)
    for repo in (review_world.other_repo, "ghost/never-recorded"):
        arguments = {"repo": repo, "pr_number": 1} if tool == "get_pr_verdict" else {"repo": repo}
        outcome = review_world.call(tool, arguments)
        assert outcome["error"] == {"code": "forbidden", "message": f"this token has no access to project '{repo}'", "details": {}}


def test_a_visible_but_unknown_repo_is_not_found_rather_than_empty(review_world: ReviewWorld) -> None:
    outcome = review_world.call("get_recent_reviews", {"repo": "ghost/never-recorded"}, projects=("*",))
    assert outcome["error"]["code"] == "not_found"
    assert outcome["error"]["message"].startswith("no project 'ghost/never-recorded': nothing has been ingested or recorded")


def test_pr_found_but_not_reviewed_yet(review_world: ReviewWorld) -> None:
    with review_world.db() as session:
        project_id = projects.get(session, review_world.repo).id
        pull_requests.upsert(
            session, project_id,
            PullRequestFacts(9, "Unreviewed", "dev", "open", "main", "x", "9" * 40, START, None, None, START),
        )  # fmt: skip
    outcome = review_world.call("get_pr_verdict", {"repo": review_world.repo, "pr_number": 9})
    assert outcome["error"] == {
        "code": "not_reviewed",
        "message": f"PR found but not reviewed yet: #9 in {review_world.repo} is open and has no review (dismissed reviews do not count)",
        "details": {},
    }


def test_a_long_summary_is_cut_in_the_listing_but_whole_in_the_verdict(review_world: ReviewWorld) -> None:
    summary = "x" * 10_000
    review_world.call(
        "record_review",
        {"project": review_world.repo, "pr_number": 3, "verdict": "COMMENT", "summary": summary},
        scopes=("write",),
    )
    listed = review_world.call("get_recent_reviews", {"repo": review_world.repo})["result"]["reviews"][0]
    assert (len(listed["summary"]), listed["summary"][-1], listed["summary_truncated"]) == (4000, "…", True)
    assert review_world.call("get_pr_verdict", {"repo": review_world.repo, "pr_number": 3})["result"]["summary"] == summary
