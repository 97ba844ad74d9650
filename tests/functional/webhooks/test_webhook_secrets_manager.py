"""Hosted secrets: the webhook secrets come from Secrets Manager (moto), cached, with per-repo keys."""

from __future__ import annotations

import json

import boto3
import pytest
from moto import mock_aws

from rhumbline.webhooks import secrets
from tests.functional.reviews.review_world import DEFAULT_SECRET, ReviewWorld, payload


@pytest.fixture
def secretsmanager(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    # A fresh provider per test: its cache would otherwise outlive moto's fake account.
    monkeypatch.setattr(secrets, "_provider", None)
    with mock_aws():
        yield boto3.client("secretsmanager", region_name="eu-west-1")


def test_secrets_manager_secrets_win_over_the_environment(review_world: ReviewWorld, secretsmanager, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    arn = secretsmanager.create_secret(
        Name="rhumbline/github-webhooks",
        SecretString=json.dumps({"default": "from-secrets-manager", review_world.other_repo: "other-from-sm"}),
    )["ARN"]
    monkeypatch.setenv("RHUMBLINE_GITHUB_WEBHOOK_SECRET_ARN", arn)
    body = json.dumps(payload("pull_request.opened", review_world.repo)).encode()
    assert review_world.deliver("pull_request", body, secret=DEFAULT_SECRET).status == 401
    assert review_world.deliver("pull_request", body, secret="from-secrets-manager").status == 200
    other = json.dumps(payload("pull_request.opened", review_world.other_repo)).encode()
    assert review_world.deliver("pull_request", other, secret="from-secrets-manager").status == 401
    assert review_world.deliver("pull_request", other, secret="other-from-sm").status == 200


def test_the_secret_is_cached_between_deliveries(review_world: ReviewWorld, secretsmanager, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    arn = secretsmanager.create_secret(Name="rhumbline/hooks", SecretString=json.dumps({"default": "v1"}))["ARN"]
    monkeypatch.setenv("RHUMBLINE_GITHUB_WEBHOOK_SECRET_ARN", arn)
    body = json.dumps(payload("pull_request.opened", review_world.repo)).encode()
    assert review_world.deliver("pull_request", body, secret="v1").status == 200
    secretsmanager.put_secret_value(SecretId=arn, SecretString=json.dumps({"default": "v2"}))
    # Within SECRET_MAX_AGE_SECONDS the cached value is used: no Secrets Manager call per delivery.
    edited = json.dumps(payload("pull_request.opened", review_world.repo, **{"pull_request.title": "Edited"})).encode()
    assert review_world.deliver("pull_request", edited, secret="v1").body["outcome"] == "processed"


def test_an_unreadable_secret_is_503(review_world: ReviewWorld, secretsmanager, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv(
        "RHUMBLINE_GITHUB_WEBHOOK_SECRET_ARN", "arn:aws:secretsmanager:eu-west-1:123456789012:secret:missing-AbCdEf"
    )
    answer = review_world.deliver("pull_request", payload("pull_request.opened", review_world.repo))
    assert (answer.status, answer.body) == (503, {"error": "the webhook secrets could not be read: retry the delivery later"})


def test_a_secret_that_is_not_json_is_500(review_world: ReviewWorld, secretsmanager, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    arn = secretsmanager.create_secret(Name="rhumbline/plain", SecretString="just-a-string")["ARN"]
    monkeypatch.setenv("RHUMBLINE_GITHUB_WEBHOOK_SECRET_ARN", arn)
    answer = review_world.deliver("pull_request", payload("pull_request.opened", review_world.repo), secret="just-a-string")
    assert (answer.status, answer.body) == (500, {"error": f"the webhook secrets are misconfigured: secret {arn} is not JSON"})
