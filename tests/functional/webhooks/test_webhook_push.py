"""Pushes: the default branch schedules a re-ingest (and says honestly what that meant), any other
push is acknowledged only. The hosted path invokes the ingest function asynchronously through a
real boto3 client whose HTTP layer is stubbed (botocore Stubber: no AWS, no Docker)."""

from __future__ import annotations

import json

import boto3
import pytest
from botocore.stub import Stubber
from sqlalchemy import select

from rhumbline.contract import ToolInvocation
from rhumbline.runtime import resources
from rhumbline.stores.relational.schema.reviews import WebhookDelivery
from rhumbline.webhooks import reingest
from tests.functional.reviews.review_world import ReviewWorld, payload

AFTER = "e5bd3914e2e596debea16f433f57875b5b90bcd6"


def delivery_row(world: ReviewWorld, delivery_id: str) -> tuple[str, str | None] | None:
    with world.db() as session:
        row = session.scalar(select(WebhookDelivery).where(WebhookDelivery.delivery_id == delivery_id))
        return (row.outcome, row.detail) if row else None


def hosted(monkeypatch: pytest.MonkeyPatch, function: str | None = "rhumbline-dev-IngestFunction-AbC") -> None:
    monkeypatch.setenv("RHUMBLINE_MODE", "hosted")
    if function:
        monkeypatch.setenv("RHUMBLINE_INGEST_FUNCTION", function)
    resources.reset()  # settings are read once per process: read them again


def test_a_push_to_the_default_branch_is_recorded_locally(review_world: ReviewWorld) -> None:
    answer = review_world.deliver("push", payload("push", review_world.repo), delivery="push-1")
    detail = (
        f"local mode: a re-ingest of {review_world.repo} at e5bd3914e2e5 is recorded but not started (the local "
        f"server has no copy of the repository to read): run `rhumbline ingest PATH --project {review_world.repo}`"
    )
    assert (answer.status, answer.body["outcome"], answer.body["detail"]) == (202, "reingest_recorded", detail)
    assert delivery_row(review_world, "push-1") == ("reingest_recorded", detail)
    replay = review_world.deliver("push", payload("push", review_world.repo), delivery="push-1")
    assert replay.body["outcome"] == "duplicate"


def test_pushes_elsewhere_are_acknowledged_only(review_world: ReviewWorld) -> None:
    feature = review_world.deliver("push", payload("push", review_world.repo, ref="refs/heads/price-cache"), delivery="push-2")
    assert (feature.status, feature.body["detail"]) == (202, "push to refs/heads/price-cache, not the default branch main: not re-ingesting")
    deleted = review_world.deliver("push", payload("push", review_world.repo, deleted=True, after="0" * 40), delivery="push-3")
    assert (deleted.status, deleted.body["detail"]) == (202, "refs/heads/main was deleted: nothing to ingest")
    assert delivery_row(review_world, "push-2")[0] == delivery_row(review_world, "push-3")[0] == "ignored"  # type: ignore[index]


def test_a_push_to_a_repository_that_is_not_a_project_starts_nothing(review_world: ReviewWorld) -> None:
    stranger = review_world.repo.replace("acme/", "nobody/")
    answer = review_world.deliver("push", payload("push", stranger))
    assert (answer.status, answer.body["outcome"], answer.body["detail"]) == (
        202, "ignored", f"{stranger} is not a project yet: nothing to re-ingest")  # fmt: skip
    from rhumbline.stores.relational import projects

    with review_world.db() as session:
        assert projects.get(session, stranger) is None, "a push must not create a project"


def test_hosted_without_a_hosted_ingest_source_records_and_says_so(review_world: ReviewWorld, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    hosted(monkeypatch)
    monkeypatch.setattr(reingest, "ingest_arguments", lambda project, sha: None)
    monkeypatch.setattr(reingest, "_lambda_client", lambda: pytest.fail("nothing may be invoked"))
    answer = review_world.deliver("push", payload("push", review_world.repo))
    assert (answer.status, answer.body["outcome"]) == (202, "reingest_recorded")
    assert answer.body["detail"] == (
        f"re-ingest of {review_world.repo} at e5bd3914e2e5 recorded, not started: this version's ingest tool "
        "accepts no hosted source (a GitHub repository at a ref) yet"
    )


def test_hosted_invokes_the_ingest_function_asynchronously(review_world: ReviewWorld, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    hosted(monkeypatch)
    source = {"type": "github", "repository": review_world.repo, "ref": AFTER}
    monkeypatch.setattr(reingest, "ingest_arguments", lambda project, sha: {"project": project, "source": source})
    client = boto3.client("lambda", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
    sent: list[dict] = []
    with Stubber(client) as stubber:
        stubber.add_response("invoke", {"StatusCode": 202})
        original = client.invoke

        def recording_invoke(**params):  # type: ignore[no-untyped-def]
            sent.append(params)
            return original(**params)

        monkeypatch.setattr(client, "invoke", recording_invoke)
        monkeypatch.setattr(reingest, "_lambda_client", lambda: client)
        answer = review_world.deliver("push", payload("push", review_world.repo), delivery="push-hosted")
        stubber.assert_no_pending_responses()

    assert (answer.status, answer.body["outcome"]) == (202, "reingest_invoked")
    assert answer.body["detail"] == (
        f"incremental re-ingest of {review_world.repo} at e5bd3914e2e5 started asynchronously (request webhook-push-hosted)"
    )
    assert [(call["FunctionName"], call["InvocationType"]) for call in sent] == [("rhumbline-dev-IngestFunction-AbC", "Event")]
    invocation = ToolInvocation.model_validate(json.loads(sent[0]["Payload"]))
    assert (invocation.tool, invocation.arguments) == ("ingest", {"project": review_world.repo, "source": source})
    assert invocation.caller.model_dump() == {
        "principal": "github-webhook", "token_id": "svc-webhook", "projects": (review_world.repo,), "scopes": ("write",)}  # fmt: skip
    assert delivery_row(review_world, "push-hosted")[0] == "reingest_invoked"  # type: ignore[index]


def test_a_failed_invoke_is_503_and_leaves_the_delivery_for_a_redelivery(review_world: ReviewWorld, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    hosted(monkeypatch)
    monkeypatch.setattr(reingest, "ingest_arguments", lambda project, sha: {"project": project})
    client = boto3.client("lambda", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
    with Stubber(client) as stubber:
        stubber.add_client_error("invoke", service_error_code="TooManyRequestsException", http_status_code=429)
        stubber.add_response("invoke", {"StatusCode": 202})
        monkeypatch.setattr(reingest, "_lambda_client", lambda: client)
        failed = review_world.deliver("push", payload("push", review_world.repo), delivery="push-retry")
        assert failed.status == 503
        assert failed.body["error"].startswith("the ingest function could not be invoked")
        assert delivery_row(review_world, "push-retry") is None
        retried = review_world.deliver("push", payload("push", review_world.repo), delivery="push-retry")
    assert (retried.status, retried.body["outcome"]) == (202, "reingest_invoked")


def test_ingest_arguments_are_checked_against_the_ingest_tools_own_model() -> None:
    from rhumbline.tools.ingest import IngestInput

    arguments = reingest.ingest_arguments("acme/shop", AFTER)
    if "source" not in IngestInput.model_fields:
        assert arguments is None
    elif arguments is not None:
        assert IngestInput.model_validate(arguments).project == "acme/shop"
