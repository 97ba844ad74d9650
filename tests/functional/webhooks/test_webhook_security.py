"""Signatures, malformed payloads, unknown events: what the webhook refuses, and that refusing
stores nothing. Every delivery is a real API Gateway event through the real handler."""

from __future__ import annotations

import base64
import json
from urllib.parse import urlencode

import pytest
from sqlalchemy import func, select

from rhumbline.stores.relational.schema.reviews import PullRequest, Review, WebhookDelivery
from rhumbline.webhooks.handler import handle
from rhumbline.webhooks.signature import sign
from tests.functional.reviews.review_world import DEFAULT_SECRET, OTHER_SECRET, ReviewWorld, github_event, payload


def stored(world: ReviewWorld) -> tuple[int, int, int]:
    """(PRs, reviews, deliveries) of this test's repositories (the PostgreSQL database is shared)."""
    from rhumbline.stores.relational.schema.core import Project

    mine = f"%{world.repo.rsplit('shop', 1)[1]}"
    with world.db() as session:
        projects = select(Project.id).where(Project.slug.like(mine)).scalar_subquery()
        return (
            session.scalar(select(func.count()).select_from(PullRequest).where(PullRequest.project_id.in_(projects))),
            session.scalar(select(func.count()).select_from(Review).where(Review.project_id.in_(projects))),
            session.scalar(select(func.count()).select_from(WebhookDelivery).where(WebhookDelivery.repository.like(mine))),
        )


def opened(world: ReviewWorld) -> bytes:
    return json.dumps(payload("pull_request.opened", world.repo)).encode()


# ------------------------------------------------------------------ signatures


def test_a_missing_signature_is_401_and_stores_nothing(review_world: ReviewWorld) -> None:
    answer = review_world.deliver("pull_request", opened(review_world), secret=None)
    assert (answer.status, answer.body) == (
        401, {"error": "missing or malformed X-Hub-Signature-256 header: expected sha256=<64 hex digits>"})  # fmt: skip
    assert stored(review_world) == (0, 0, 0)


@pytest.mark.parametrize(
    "signature",
    [
        "sha1=7d38cdd689735b008b3c702edd92eea23791c5f6",  # the legacy X-Hub-Signature format
        "sha256=" + "0" * 64,
        "sha256=" + "g" * 64,
        "sha256=abc",
        "",
    ],
)
def test_malformed_or_wrong_signatures_are_401(review_world: ReviewWorld, signature: str) -> None:
    answer = review_world.deliver("pull_request", opened(review_world), signature=signature)
    assert answer.status == 401
    assert stored(review_world) == (0, 0, 0)


def test_a_signature_made_with_another_secret_is_401(review_world: ReviewWorld) -> None:
    answer = review_world.deliver("pull_request", opened(review_world), secret="not the secret")
    assert (answer.status, answer.body) == (401, {"error": "X-Hub-Signature-256 does not match the payload"})
    assert stored(review_world) == (0, 0, 0)


def test_a_tampered_body_is_401(review_world: ReviewWorld) -> None:
    body = opened(review_world)
    tampered = body.replace(b"Cache the price lookups", b"Cache the price lookupz")
    answer = review_world.deliver("pull_request", tampered, signature=sign(DEFAULT_SECRET, body))
    assert answer.status == 401
    assert stored(review_world) == (0, 0, 0)


def test_the_default_secret_cannot_sign_for_a_repository_with_its_own(review_world: ReviewWorld) -> None:
    other = json.dumps(payload("pull_request.opened", review_world.other_repo)).encode()
    assert review_world.deliver("pull_request", other, secret=DEFAULT_SECRET).status == 401
    assert review_world.deliver("pull_request", other, secret=OTHER_SECRET).status == 200


def test_repository_keys_are_case_insensitive_like_github_names(review_world: ReviewWorld) -> None:
    shouted = review_world.other_repo.upper()
    body = json.dumps(payload("pull_request.opened", shouted)).encode()
    assert review_world.deliver("pull_request", body, secret=DEFAULT_SECRET).status == 401
    answer = review_world.deliver("pull_request", body, secret=OTHER_SECRET)
    # ... and the delivery lands in the existing project, whatever GitHub's casing.
    assert (answer.status, answer.body["repository"]) == (200, shouted)
    health = review_world.call("get_repo_health", {"repo": review_world.other_repo}, projects=(review_world.other_repo,))
    assert health["result"]["open_prs"] == 1


def test_an_installation_secret_signs_for_its_installation(review_world: ReviewWorld, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("RHUMBLINE_GITHUB_WEBHOOK_SECRETS", json.dumps({"installation:2311213": "app-secret"}))
    body = opened(review_world)
    assert review_world.deliver("pull_request", body, secret="app-secret").status == 200
    stranger = json.dumps(payload("pull_request.opened", review_world.repo, **{"installation.id": 999})).encode()
    answer = review_world.deliver("pull_request", stranger, secret="app-secret")
    assert (answer.status, answer.body) == (401, {"error": f"no webhook secret is configured for {review_world.repo} (nor a default one)"})


def test_with_no_secret_configured_nothing_is_accepted(review_world: ReviewWorld, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("RHUMBLINE_GITHUB_WEBHOOK_SECRETS")
    answer = review_world.deliver("pull_request", opened(review_world), secret=DEFAULT_SECRET)
    assert answer.status == 401
    assert stored(review_world) == (0, 0, 0)


def test_misconfigured_secrets_are_a_500_that_names_no_secret(review_world: ReviewWorld, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("RHUMBLINE_GITHUB_WEBHOOK_SECRETS", json.dumps({"default": 42, "acme/x": "hunter2"}))
    answer = review_world.deliver("pull_request", opened(review_world))
    assert answer.status == 500
    assert "'default'" in answer.body["error"] and "hunter2" not in answer.body["error"]


def test_unsigned_garbage_is_401_but_signed_garbage_is_400(review_world: ReviewWorld) -> None:
    assert review_world.deliver("pull_request", b"{not json", signature="sha256=" + "1" * 64).status == 401
    answer = review_world.deliver("pull_request", b'{"action": "opened", ')
    assert (answer.status, answer.body) == (400, {"error": "malformed JSON payload: Expecting property name enclosed in double quotes at line 1 column 22"})


# ------------------------------------------------------------------ malformed but signed


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"pull_request.number": "many"}, "malformed pull_request payload: pull_request.number: Input should be a valid integer, unable to parse string as an integer"),
        ({"pull_request.created_at": "2026-11-02T09:15:00"}, "malformed pull_request payload: pull_request.created_at: Input should have timezone info"),
        ({"pull_request.head.sha": "not-a-sha"}, "malformed pull_request payload: pull_request.head.sha: String should match pattern '^[0-9a-fA-F]{40}([0-9a-fA-F]{24})?$'"),
        ({"pull_request.state": "draft"}, "malformed pull_request payload: pull_request.state: Input should be 'open' or 'closed'"),
        ({"repository": None}, "malformed pull_request payload: repository: Input should be a valid dictionary or instance of Repository"),
        ({"pull_request.merged": True}, "malformed payload: pull_request #1347 is merged but its state is 'open'"),
    ],
)
def test_malformed_payloads_are_400_with_the_field_named(review_world: ReviewWorld, changes: dict, message: str) -> None:
    answer = review_world.deliver("pull_request", payload("pull_request.opened", review_world.repo, **changes))
    assert (answer.status, answer.body) == (400, {"error": message})
    assert stored(review_world) == (0, 0, 0)


def test_a_missing_field_is_named(review_world: ReviewWorld) -> None:
    document = payload("pull_request.opened", review_world.repo)
    del document["pull_request"]["number"]
    answer = review_world.deliver("pull_request", document)
    assert (answer.status, answer.body) == (400, {"error": "malformed pull_request payload: pull_request.number: Field required"})


def test_a_merged_pr_without_merged_at_is_400(review_world: ReviewWorld) -> None:
    answer = review_world.deliver("pull_request", payload("pull_request.closed", review_world.repo, **{"pull_request.merged_at": None}))
    assert (answer.status, answer.body) == (400, {"error": "malformed payload: pull_request #1347 is merged but has no merged_at"})


def test_a_deeply_nested_body_is_400(review_world: ReviewWorld) -> None:
    nested = b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    answer = review_world.deliver("pull_request", nested)
    assert (answer.status, answer.body) == (400, {"error": "malformed payload: the JSON is nested too deeply"})


def test_a_json_array_is_400(review_world: ReviewWorld) -> None:
    assert review_world.deliver("pull_request", b"[1, 2]").body == {"error": "malformed payload: expected a JSON object"}


def test_missing_event_and_delivery_headers_are_400(review_world: ReviewWorld) -> None:
    assert review_world.deliver(None, opened(review_world)).body == {"error": "missing or malformed X-GitHub-Event header"}
    assert review_world.deliver("pull_request", opened(review_world), delivery="").body == {
        "error": "missing or malformed X-GitHub-Delivery header"
    }
    assert stored(review_world) == (0, 0, 0)


def test_an_oversized_body_is_413(review_world: ReviewWorld) -> None:
    huge = b'{"pad": "' + b"x" * (5 * 1024 * 1024) + b'"}'
    assert review_world.deliver("pull_request", huge).status == 413


# ------------------------------------------------------------------ acknowledged, not stored


def test_unknown_events_are_acknowledged_and_ignored(review_world: ReviewWorld) -> None:
    issue = {"action": "opened", "issue": {"number": 5}, "repository": {"full_name": review_world.repo}}
    answer = review_world.deliver("issues", issue, delivery="issue-delivery")
    assert (answer.status, answer.body) == (
        202,
        {"delivery": "issue-delivery", "event": "issues", "outcome": "ignored", "detail": "'issues' events are not used by Rhumbline"},
    )
    assert stored(review_world) == (0, 0, 0)


def test_untracked_actions_are_acknowledged_and_ignored(review_world: ReviewWorld) -> None:
    labeled = payload("pull_request.opened", review_world.repo, action="labeled")
    answer = review_world.deliver("pull_request", labeled)
    assert (answer.status, answer.body["outcome"], answer.body["detail"]) == (202, "ignored", "'labeled' pull_request events are not tracked")
    assert stored(review_world) == (0, 0, 0)


def test_ping_answers_pong(review_world: ReviewWorld) -> None:
    ping = {"zen": "Design for failure.", "hook_id": 12345678, "hook": {"type": "Repository", "events": ["pull_request"]},
            "repository": {"full_name": review_world.repo}}  # fmt: skip
    answer = review_world.deliver("ping", ping)
    assert (answer.status, answer.body["outcome"]) == (200, "pong")


def test_a_repository_name_that_cannot_be_a_project_is_acknowledged(review_world: ReviewWorld) -> None:
    dotted = payload("pull_request.opened", "acme/x")
    dotted["repository"]["full_name"] = "acme/." + review_world.repo.split("/")[1]  # like `acme/.github`
    answer = review_world.deliver("pull_request", dotted)
    assert (answer.status, answer.body["outcome"]) == (202, "ignored")
    assert stored(review_world) == (0, 0, 0)


# ------------------------------------------------------------------ encodings GitHub may use


def test_form_encoded_and_base64_deliveries_are_processed(review_world: ReviewWorld) -> None:
    form = urlencode({"payload": json.dumps(payload("pull_request.opened", review_world.repo))}).encode()
    answer = review_world.deliver("pull_request", form, content_type="application/x-www-form-urlencoded")
    assert (answer.status, answer.body["outcome"]) == (200, "processed")
    body = json.dumps(payload("pull_request_review.submitted", review_world.repo)).encode()
    event = github_event("pull_request_review", body)
    event.update(body=base64.b64encode(body).decode(), isBase64Encoded=True)
    answer = handle(event)
    assert answer["statusCode"] == 200, answer
    assert stored(review_world) == (1, 1, 2)


def test_an_unsupported_content_type_is_400(review_world: ReviewWorld) -> None:
    answer = review_world.deliver("pull_request", opened(review_world), content_type="text/plain")
    assert answer.body == {"error": "unsupported content type 'text/plain': set the webhook's content type to application/json"}


def test_the_handler_never_raises_on_a_non_event(review_world: ReviewWorld) -> None:
    assert handle("not an event")["statusCode"] == 400
    assert handle({"headers": None, "body": 12})["statusCode"] == 400
