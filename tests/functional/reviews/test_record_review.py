"""record_review: the authenticated write path of an AI reviewer running in CI."""

from __future__ import annotations

from collections.abc import Callable

from tests.functional.reviews.review_world import ReviewWorld, payload

SHA = "6dcb09b5b57875f334f61aebed695e2e4193db5e"


def record(world: ReviewWorld, **arguments) -> dict:  # type: ignore[no-untyped-def]
    base = {"project": world.repo, "pr_number": 7, "verdict": "APPROVED", "summary": "Looks right."}
    return world.call("record_review", {**base, **arguments}, scopes=("read", "write"))


def test_it_needs_the_write_scope(review_world: ReviewWorld) -> None:
    outcome = review_world.call(
        "record_review", {"project": review_world.repo, "pr_number": 7, "verdict": "APPROVED", "summary": "x"}
    )
    assert outcome["error"] == {"code": "forbidden", "message": "this token lacks the 'write' scope", "details": {}}


def test_it_is_refused_for_a_project_the_token_cannot_see_whether_or_not_it_exists(review_world: ReviewWorld) -> None:
    for project in (review_world.other_repo, "ghost/does-not-exist"):
        outcome = review_world.call(
            "record_review",
            {"project": project, "pr_number": 7, "verdict": "APPROVED", "summary": "x"},
            scopes=("write",),
        )
        assert outcome["error"] == {"code": "forbidden", "message": f"this token has no access to project '{project}'", "details": {}}


def test_a_review_is_recorded_as_the_bots_verdict_with_its_files(review_world: ReviewWorld) -> None:
    outcome = record(review_world, verdict="CHANGES_REQUESTED", summary="Missing tests.", head_sha=SHA.upper(),
                     files=["shop/cart.py", "shop/pricing.py", "shop/cart.py"])  # fmt: skip
    assert outcome["ok"], outcome
    assert outcome["result"] == {
        "id": outcome["result"]["id"],
        "created": True,
        "project": review_world.repo,
        "pr_number": 7,
        "status": "completed",
        "files_recorded": 2,
        "graph": "updated",
    }
    verdict = review_world.call("get_pr_verdict", {"repo": review_world.repo, "pr_number": 7})["result"]
    assert (verdict["verdict"], verdict["summary"], verdict["reviewer"], verdict["head_sha"], verdict["is_bot"], verdict["state"]) == (
        "CHANGES_REQUESTED", "Missing tests.", "ci-reviewer", SHA, True, None)  # fmt: skip
    graph = review_world.graph()
    touches, total = graph.edges_of(review_world.repo, "pull_request:7", "out", limit=10)
    assert total == 2
    assert [(e.relation, e.other_id) for e in touches] == [("TOUCHES", "file:shop/cart.py"), ("TOUCHES", "file:shop/pricing.py")]


def test_new_files_replace_the_old_ones_in_the_graph(review_world: ReviewWorld) -> None:
    record(review_world, files=["a.py", "b.py"])
    record(review_world, summary="Second run.", files=["b.py", "c.py"])
    touches, total = review_world.graph().edges_of(review_world.repo, "pull_request:7", "out", limit=10)
    assert [e.other_id for e in touches] == ["file:b.py", "file:c.py"] and total == 2


def test_a_run_moves_through_its_statuses_on_one_row(review_world: ReviewWorld) -> None:
    pending = record(review_world, verdict="UNKNOWN", summary="", status="pending", head_sha=SHA)["result"]
    processing = record(review_world, verdict="UNKNOWN", summary="", status="processing", head_sha=SHA)["result"]
    done = record(review_world, verdict="APPROVED", summary="Ship it.", status="completed", head_sha=SHA)["result"]
    assert pending["id"] == processing["id"] == done["id"]
    assert (pending["created"], processing["created"], done["created"]) == (True, False, False)
    # A retried CI job posting the same finished review does not duplicate it...
    again = record(review_world, verdict="APPROVED", summary="Ship it.", status="completed", head_sha=SHA)["result"]
    assert (again["id"], again["created"]) == (done["id"], False)
    # ... but a new review of the same commit after a finished one is a new review.
    rereview = record(review_world, verdict="CHANGES_REQUESTED", summary="Found a bug.", head_sha=SHA)["result"]
    assert rereview["created"] is True and rereview["id"] != done["id"]
    recent = review_world.call("get_recent_reviews", {"repo": review_world.repo})["result"]
    assert recent["total"] == 2
    assert [(r["verdict"], r["status"]) for r in recent["reviews"]] == [("CHANGES_REQUESTED", "completed"), ("APPROVED", "completed")]


def test_an_in_progress_review_is_reported_with_its_status(review_world: ReviewWorld) -> None:
    record(review_world, verdict="UNKNOWN", summary="Reviewing…", status="processing", head_sha=SHA)
    verdict = review_world.call("get_pr_verdict", {"repo": review_world.repo, "pr_number": 7})["result"]
    assert (verdict["verdict"], verdict["status"]) == ("UNKNOWN", "processing")
    # A completed review wins over a newer one still in progress.
    record(review_world, verdict="APPROVED", summary="Done.", status="completed", head_sha="a" * 40)
    record(review_world, verdict="UNKNOWN", summary="Again…", status="pending", head_sha="b" * 40)
    verdict = review_world.call("get_pr_verdict", {"repo": review_world.repo, "pr_number": 7})["result"]
    assert (verdict["verdict"], verdict["status"], verdict["head_sha"]) == ("APPROVED", "completed", "a" * 40)


def test_the_webhook_fills_in_a_pr_first_seen_through_a_review(review_world: ReviewWorld) -> None:
    record(review_world, pr_number=1347, files=["shop/pricing.py"])
    assert review_world.call("get_pr_verdict", {"repo": review_world.repo, "pr_number": 1347})["result"]["state"] is None
    # GitHub's event is older than our clock: a row that only a review created must still take it.
    review_world.deliver("pull_request", payload("pull_request.opened", review_world.repo))
    verdict = review_world.call("get_pr_verdict", {"repo": review_world.repo, "pr_number": 1347})["result"]
    assert (verdict["state"], verdict["pr_head_sha"]) == ("open", SHA)
    health = review_world.call("get_repo_health", {"repo": review_world.repo})["result"]
    assert (health["open_prs"], health["open_prs_indexed"], health["open_prs_with_files"]) == (1, 1, 1)


def test_invalid_arguments_are_named(review_world: ReviewWorld) -> None:
    bad = record(review_world, verdict="LGTM", files=["/etc/passwd"], head_sha="xyz")
    assert bad["error"]["code"] == "invalid_arguments"
    message = bad["error"]["message"]
    assert message.startswith("invalid arguments for 'record_review': verdict: Input should be 'APPROVED'")
    assert "head_sha: String should match pattern" in message
    assert "files: Value error, file paths must be 1-1024 characters, relative to the repository root: '/etc/passwd'" in message


def test_the_graph_being_down_does_not_lose_the_review(review_world: ReviewWorld, graph_down: Callable[[], int]) -> None:
    graph_down()
    outcome = record(review_world, files=["a.py"])
    assert outcome["ok"], outcome
    assert outcome["result"]["graph"].startswith("not updated: the graph store is unavailable (Neo4j at bolt://127.0.0.1:")
    assert outcome["result"]["graph"].endswith("; the review is recorded")
    assert review_world.call("get_pr_verdict", {"repo": review_world.repo, "pr_number": 7})["result"]["verdict"] == "APPROVED"
