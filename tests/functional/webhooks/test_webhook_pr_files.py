"""A pull_request delivery makes the webhook read the PR's files from GitHub's REST API (a fake of
it, a real HTTP server): stored, projected as TOUCHES edges, and shown by get_contributor_stats,
with no CI bot calling record_review."""

from __future__ import annotations

import time

import pytest

from rhumbline.webhooks import pr_files
from tests.functional.reviews.review_world import ReviewWorld, payload

HEAD = "6dcb09b5b57875f334f61aebed695e2e4193db5e"


def files_of(world: ReviewWorld, number: int = 1347) -> tuple[bool, list[str]]:
    from rhumbline.stores.relational import projects, pull_requests

    with world.db() as session:
        row = pull_requests.get(session, projects.get(session, world.repo).id, number)
        return row.files_known, pull_requests.files_of(session, row.id)


def test_opened_reads_the_files_and_contributor_stats_show_them(review_world: ReviewWorld, fake_github) -> None:
    paths = [f"shop/module_{i:03}.py" for i in range(150)]  # two pages of 100
    fake_github.files[(review_world.repo, 1347)] = paths
    answer = review_world.deliver("pull_request", payload("pull_request.opened", review_world.repo), delivery="f-1")

    assert answer.status == 200
    assert answer.body["files"] == "the files of PR #1347 are being read from GitHub"
    assert pr_files.drain(10)
    assert files_of(review_world) == (True, sorted(paths))
    assert [path.split("?")[1] for path, _ in fake_github.requests] == ["per_page=100", "per_page=100&page=2"]
    touches, total = review_world.graph().edges_of(review_world.repo, "pull_request:1347", "out", limit=200)
    assert total == 150 and {e.relation for e in touches} == {"TOUCHES"}
    stats = review_world.call("get_contributor_stats", {"repo": review_world.repo})["result"]
    octocat = next(c for c in stats["contributors"] if c["login"] == "octocat")
    assert octocat["files_touched"] == 150


def test_the_token_is_sent_and_failures_are_retried(review_world: ReviewWorld, fake_github, monkeypatch) -> None:
    monkeypatch.setenv("RHUMBLINE_GITHUB_TOKEN", "ghp_test")
    fake_github.files[(review_world.repo, 1347)] = ["a.py"]
    fake_github.fail(502)
    fake_github.fail(403, **{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(time.time()))})
    job = pr_files.job_for(review_world.repo, review_world.repo, 1347, None)
    review_world.deliver("pull_request", payload("pull_request.opened", review_world.repo), delivery="f-2")
    assert pr_files.drain(15)

    assert files_of(review_world) == (True, ["a.py"])
    # 502, then the rate limit (waited out: its reset is now), then the page; the job below reads once more.
    assert [auth for _, auth in fake_github.requests] == ["Bearer ghp_test"] * 3
    assert pr_files.run(job)["outcome"] == "stored"


def test_what_cannot_be_read_is_said_not_stored(review_world: ReviewWorld, fake_github) -> None:
    review_world.deliver("pull_request", payload("pull_request.opened", review_world.repo), delivery="f-3")
    assert pr_files.drain(10)
    job = pr_files.job_for(review_world.repo, review_world.repo, 1347, HEAD)
    # Not on GitHub (404): nothing stored.
    assert pr_files.run(job) == {
        "outcome": "not_read",
        "detail": f"GitHub has no pull request {review_world.repo}#1347 (or the token cannot see it)",
    }
    assert files_of(review_world) == (False, [])
    # Rate limited for an hour: not waited for.
    fake_github.files[(review_world.repo, 1347)] = ["a.py"]
    fake_github.fail(429, **{"Retry-After": "3600"})
    outcome = pr_files.run(job)
    assert outcome["outcome"] == "not_read" and "rate limit" in outcome["detail"]
    # A job for a head the PR has moved past is left to that push's own job.
    assert pr_files.run(pr_files.job_for(review_world.repo, review_world.repo, 1347, "1" * 40))["outcome"] == "stale"
    assert pr_files.run({"rhumbline_job": "pull_request_files", "project": "x"})["outcome"] == "invalid"


def test_hosted_the_function_invokes_itself_asynchronously(review_world: ReviewWorld, monkeypatch) -> None:
    from rhumbline.webhooks.handler import handle

    calls = []

    class LambdaClient:  # the AWS API's answer to an asynchronous invoke
        def invoke(self, **arguments):  # type: ignore[no-untyped-def]
            calls.append(arguments)
            return {"StatusCode": 202}

    job = pr_files.job_for(review_world.repo, review_world.repo, 1347, HEAD)
    monkeypatch.delenv("AWS_LAMBDA_FUNCTION_NAME", raising=False)
    assert "no function to run the job" in pr_files.schedule(job, hosted=True, client=LambdaClient())
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "stack-GitHubWebhookFunction-abc")
    assert pr_files.schedule(job, hosted=True, client=LambdaClient()).endswith("(asynchronously)")
    assert calls[0]["FunctionName"] == "stack-GitHubWebhookFunction-abc" and calls[0]["InvocationType"] == "Event"
    # The job comes back as the function's own event, not an HTTP one.
    assert handle(job)["outcome"] in ("stale", "not_read", "stored")


@pytest.mark.parametrize("action", ["edited", "labeled"])
def test_other_actions_read_no_files(review_world: ReviewWorld, fake_github, action: str) -> None:
    document = payload("pull_request.opened", review_world.repo)
    document["action"] = action
    answer = review_world.deliver("pull_request", document, delivery=f"f-{action}")
    assert "files" not in answer.body
    assert pr_files.drain(5) and fake_github.requests == []
