"""get_repo_health with exact values, from PRs and reviews delivered as GitHub would deliver them."""

from __future__ import annotations

from tests.functional.reviews.review_world import BOT, ReviewWorld, payload


def pr_event(world: ReviewWorld, repo: str, number: int, opened: str, *, merged: str | None = None,
             closed: str | None = None, author: str = "octocat") -> None:  # fmt: skip
    changes = {
        "pull_request.number": number,
        "number": number,
        "pull_request.created_at": opened,
        "pull_request.updated_at": merged or closed or opened,
        "pull_request.user.login": author,
    }
    if merged or closed:
        changes.update({
            "action": "closed", "pull_request.state": "closed", "pull_request.merged": merged is not None,
            "pull_request.merged_at": merged, "pull_request.closed_at": merged or closed,
        })  # fmt: skip
    answer = world.deliver("pull_request", payload("pull_request.opened", repo, **changes), secret=_secret(world, repo))
    assert answer.status == 200, answer


def review_event(world: ReviewWorld, repo: str, number: int, review_id: int, login: str, state: str, at: str) -> None:
    changes = {
        "pull_request.number": number,
        "pull_request.created_at": "2026-01-01T00:00:00Z",
        "pull_request.updated_at": "2026-01-01T00:00:00Z",
        "review.id": review_id,
        "review.user.login": login,
        "review.state": state,
        "review.submitted_at": at,
    }
    answer = world.deliver("pull_request_review", payload("pull_request_review.submitted", repo, **changes), secret=_secret(world, repo))
    assert answer.status == 200, answer


def _secret(world: ReviewWorld, repo: str) -> str:
    from tests.functional.reviews.review_world import DEFAULT_SECRET, OTHER_SECRET

    return OTHER_SECRET if repo == world.other_repo else DEFAULT_SECRET


def health(world: ReviewWorld, repo: str | None = None) -> dict:
    repo = repo or world.repo
    outcome = world.call("get_repo_health", {"repo": repo}, projects=(world.repo, world.other_repo))
    assert outcome["ok"], outcome
    return outcome["result"]


def seed_repo(world: ReviewWorld) -> None:
    repo = world.repo
    # Reviews first (their PR objects say "open" as of 2026-01-01), then the PR events (later).
    review_event(world, repo, 1, 101, BOT, "approved", "2026-01-01T05:00:00Z")
    review_event(world, repo, 2, 201, BOT, "changes_requested", "2026-01-02T05:00:00Z")
    review_event(world, repo, 2, 202, "hubot", "approved", "2026-01-03T05:00:00Z")  # the bot's verdict wins
    review_event(world, repo, 5, 501, "hubot", "commented", "2026-01-06T05:00:00Z")
    review_event(world, repo, 6, 601, BOT, "changes_requested", "2026-01-07T05:00:00Z")
    pr_event(world, repo, 1, "2026-01-01T00:00:00Z", merged="2026-01-01T10:00:00Z")  # 10 h
    pr_event(world, repo, 2, "2026-01-02T00:00:00Z", merged="2026-01-04T02:00:00Z")  # 50 h
    pr_event(world, repo, 3, "2026-01-05T00:00:00Z", merged="2026-01-12T12:00:00Z")  # 180 h, unreviewed
    pr_event(world, repo, 4, "2026-01-06T00:00:00Z")  # open, files recorded by a pending review
    pr_event(world, repo, 5, "2026-01-06T00:00:00Z")  # open, a human COMMENT
    pr_event(world, repo, 6, "2026-01-07T00:00:00Z", closed="2026-01-08T00:00:00Z")  # abandoned
    pending = {"project": repo, "pr_number": 4, "verdict": "UNKNOWN", "summary": "", "status": "pending", "files": ["shop/cart.py"]}
    assert world.call("record_review", pending, scopes=("write",))["ok"]


def test_exact_health_values(review_world: ReviewWorld) -> None:
    seed_repo(review_world)
    result = health(review_world)
    note = result.pop("note")
    assert result == {
        "repo": review_world.repo,
        "review_coverage_pct": 60.0,  # PRs 1, 2, 5 of the considered 1-5 (6 is closed unmerged)
        "avg_merge_time_hours": 80.0,  # (10 + 50 + 180) / 3
        "median_merge_time_hours": 50.0,
        "open_prs": 2,
        "open_prs_indexed": 1,  # PR 5: a completed review (PR 4's is pending)
        "open_prs_with_files": 1,  # PR 4: its files recorded
        "reviewed_prs": 3,
        "considered_prs": 5,
        "merged_prs": 3,
        "approval_pct": 50.0,  # PR 1 APPROVED, PR 2 CHANGES_REQUESTED (the bot's), PR 5 COMMENT not counted
        # 0.5 × 60 + 0.3 × 100 × (168 − 50) / 144 + 0.2 × 50 = 64.58 → 65
        "health_score": 65,
    }
    assert note.startswith("health_score = (0.5×review_coverage_pct + 0.3×merge_score + 0.2×approval_pct)")
    assert "No PR has merged yet" not in note


def test_the_other_repo_does_not_leak_in(review_world: ReviewWorld) -> None:
    seed_repo(review_world)
    other = review_world.other_repo
    pr_event(review_world, other, 1, "2026-02-01T00:00:00Z", merged="2026-02-01T01:00:00Z")
    pr_event(review_world, other, 2, "2026-02-01T00:00:00Z")
    review_event(review_world, other, 2, 9001, BOT, "approved", "2026-02-01T02:00:00Z")
    assert health(review_world)["health_score"] == 65
    theirs = health(review_world, other)
    assert {k: theirs[k] for k in ("review_coverage_pct", "avg_merge_time_hours", "open_prs", "reviewed_prs", "approval_pct")} == {
        "review_coverage_pct": 50.0, "avg_merge_time_hours": 1.0, "open_prs": 1, "reviewed_prs": 1, "approval_pct": 100.0}  # fmt: skip
    # 0.5 × 50 + 0.3 × 100 + 0.2 × 100 = 75
    assert theirs["health_score"] == 75


def test_a_dismissed_review_stops_counting(review_world: ReviewWorld) -> None:
    seed_repo(review_world)
    dismissed = payload(
        "pull_request_review.submitted", review_world.repo,
        **{"action": "dismissed", "review.id": 101, "review.state": "dismissed", "pull_request.number": 1,
           "pull_request.created_at": "2026-01-01T00:00:00Z", "pull_request.updated_at": "2026-01-01T00:00:00Z"},
    )  # fmt: skip
    assert review_world.deliver("pull_request_review", dismissed).status == 200
    result = health(review_world)
    # PR 1 is no longer reviewed: coverage 2/5, approvals 0 of 1 decisive.
    assert (result["review_coverage_pct"], result["reviewed_prs"], result["approval_pct"]) == (40.0, 2, 0.0)
    # 0.5 × 40 + 0.3 × 81.94 + 0.2 × 0 = 44.58 → 45
    assert result["health_score"] == 45


def test_no_merged_pr_means_null_merge_times_and_a_note(review_world: ReviewWorld) -> None:
    pr_event(review_world, review_world.repo, 1, "2026-03-01T00:00:00Z")
    review_event(review_world, review_world.repo, 1, 7001, BOT, "approved", "2026-03-01T03:00:00Z")
    pr_event(review_world, review_world.repo, 2, "2026-03-02T00:00:00Z")
    result = health(review_world)
    assert (result["avg_merge_time_hours"], result["median_merge_time_hours"], result["merged_prs"]) == (None, None, 0)
    assert "No PR has merged yet: merge times are null and left out of the score." in result["note"]
    # (0.5 × 50 + 0.2 × 100) / 0.7 = 64.29 → 64
    assert (result["review_coverage_pct"], result["approval_pct"], result["health_score"]) == (50.0, 100.0, 64)


def test_a_repo_with_no_prs_has_no_score_and_says_why(review_world: ReviewWorld) -> None:
    result = health(review_world)
    assert (result["review_coverage_pct"], result["health_score"], result["open_prs"]) == (None, None, 0)
    assert "No PRs recorded for this repo yet" in result["note"]
