"""The migrations custom resource always answers CloudFormation, whatever the migration does.

A real HTTP server stands in for the pre-signed S3 response URL; the migration itself is replaced
(the schema is tested with the relational store), so these tests are about the protocol.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from rhumbline.deploy import migrations_resource
from tests.functional.infra.cfn import FakeContext


def event(request_type: str, url: str, physical_id: str | None = None) -> dict[str, Any]:
    body = {
        "RequestType": request_type,
        "ResponseURL": url,
        "StackId": "arn:aws:cloudformation:us-east-1:123456789012:stack/rhumbline-dev/guid",
        "RequestId": f"req-{request_type}",
        "ResourceType": "Custom::Migrations",
        "LogicalResourceId": "Migrations",
        "ResourceProperties": {"ServiceToken": "arn:aws:lambda:...", "LayerVersion": "arn:...:1"},
    }
    if physical_id:
        body["PhysicalResourceId"] = physical_id
    return body


@pytest.fixture
def migrations(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []

    def fake() -> str:
        calls.append("upgrade")
        return "0007_head"

    monkeypatch.setattr(migrations_resource, "run_migrations", fake)
    return calls


@pytest.mark.parametrize("request_type", ["Create", "Update"])
def test_create_and_update_run_the_migrations(cloudformation, migrations, request_type) -> None:
    migrations_resource.handler(event(request_type, cloudformation["url"]), FakeContext())
    assert migrations == ["upgrade"]
    [answer] = cloudformation["received"]
    assert answer["path"].startswith("/signed?")
    # A content type would break the pre-signed URL's signature.
    assert not answer["content_type"]
    body = answer["body"]
    assert body["Status"] == "SUCCESS"
    assert body["PhysicalResourceId"] == migrations_resource.PHYSICAL_RESOURCE_ID
    assert (body["RequestId"], body["LogicalResourceId"]) == (f"req-{request_type}", "Migrations")
    assert body["StackId"].endswith("/rhumbline-dev/guid")
    assert body["Data"] == {"Revision": "0007_head"}


def test_update_keeps_the_physical_id(cloudformation, migrations) -> None:
    migrations_resource.handler(event("Update", cloudformation["url"], physical_id="kept-id"), FakeContext())
    assert cloudformation["received"][0]["body"]["PhysicalResourceId"] == "kept-id"


def test_delete_does_not_touch_the_database(cloudformation, migrations) -> None:
    migrations_resource.handler(event("Delete", cloudformation["url"], physical_id="kept-id"), FakeContext())
    assert migrations == []
    body = cloudformation["received"][0]["body"]
    assert (body["Status"], body["PhysicalResourceId"]) == ("SUCCESS", "kept-id")


def test_a_failing_migration_is_reported_as_failed(cloudformation, monkeypatch) -> None:
    def broken() -> None:
        raise RuntimeError("relation already exists " + "x" * 5000)

    monkeypatch.setattr(migrations_resource, "run_migrations", broken)
    migrations_resource.handler(event("Create", cloudformation["url"]), FakeContext())
    body = cloudformation["received"][0]["body"]
    assert body["Status"] == "FAILED"
    assert "RuntimeError: relation already exists" in body["Reason"]
    assert FakeContext.log_stream_name in body["Reason"]
    assert len(json.dumps(body)) < 4096, "CloudFormation rejects answers over 4 KiB"


def test_a_broken_import_is_reported_as_failed(cloudformation, monkeypatch) -> None:
    # What happens when the layer lacks the migration code: still an answer, not a hung stack.
    def missing() -> None:
        import rhumbline.no_such_module  # noqa: F401

    monkeypatch.setattr(migrations_resource, "run_migrations", missing)
    migrations_resource.handler(event("Update", cloudformation["url"]), FakeContext())
    body = cloudformation["received"][0]["body"]
    assert body["Status"] == "FAILED" and "ModuleNotFoundError" in body["Reason"]


def test_a_hung_migration_is_answered_before_the_lambda_times_out(cloudformation, monkeypatch) -> None:
    release = threading.Event()
    monkeypatch.setattr(migrations_resource, "run_migrations", lambda: release.wait(30))
    # 16.5 s left, 15 s kept for the answer: the migration gets 1.5 s.
    context = FakeContext(remaining_ms=16_500)
    started = time.monotonic()
    try:
        migrations_resource.handler(event("Create", cloudformation["url"]), context)
    finally:
        release.set()
    assert time.monotonic() - started < 5
    body = cloudformation["received"][0]["body"]
    assert body["Status"] == "FAILED" and "MigrationTimeout" in body["Reason"]


def test_unknown_request_type_fails(cloudformation, migrations) -> None:
    migrations_resource.handler(event("Rename", cloudformation["url"]), FakeContext())
    assert migrations == []
    assert cloudformation["received"][0]["body"]["Status"] == "FAILED"


def test_an_unreachable_response_url_raises_so_lambda_retries(migrations, monkeypatch) -> None:
    monkeypatch.setattr(migrations_resource.time, "sleep", lambda seconds: None)
    with pytest.raises(OSError):
        migrations_resource.handler(event("Delete", "http://127.0.0.1:9/closed"), FakeContext())


def test_the_module_imports_only_the_standard_library() -> None:
    # Keeps the "always answers" promise even when the layer's third-party code is broken.
    import ast
    import sys
    from pathlib import Path

    tree = ast.parse(Path(migrations_resource.__file__).read_text())
    top_level = {
        (node.module if isinstance(node, ast.ImportFrom) else alias.name).split(".")[0]
        for node in tree.body
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }
    assert top_level <= set(sys.stdlib_module_names) | {"__future__"}, top_level


# ------------------------------------------------------------------ the real migration path


@pytest.fixture
def fresh_resources(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """Settings and engines rebuilt from the environment this test sets, and dropped after it."""
    from rhumbline.runtime import resources

    for name in ("RHUMBLINE_DATABASE_URL", "RHUMBLINE_DATABASE_SECRET_ARN", "RHUMBLINE_MODE"):
        monkeypatch.delenv(name, raising=False)
    resources.reset()
    yield monkeypatch
    resources.reset()


def tables(url: str) -> set[str]:
    from sqlalchemy import create_engine, inspect

    engine = create_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_create_migrates_a_real_database(cloudformation, fresh_resources, tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'rhumbline.sqlite3'}"
    fresh_resources.setenv("RHUMBLINE_DATABASE_URL", url)
    migrations_resource.handler(event("Create", cloudformation["url"]), FakeContext())
    body = cloudformation["received"][0]["body"]
    assert body["Status"] == "SUCCESS", body["Reason"]
    assert "alembic_version" in tables(url) and len(tables(url)) > 1
    # A second deploy (Update) finds the schema current.
    migrations_resource.handler(event("Update", cloudformation["url"], physical_id=body["PhysicalResourceId"]), FakeContext())
    assert cloudformation["received"][1]["body"]["Status"] == "SUCCESS"


@pytest.mark.postgres
def test_hosted_path_reads_the_secret_shape_the_template_creates(cloudformation, fresh_resources, postgres_url) -> None:
    """Secret JSON as GenerateSecretString + SecretTargetAttachment leave it -> engine -> migrate."""
    import boto3
    from moto import mock_aws
    from sqlalchemy.engine import make_url

    target = make_url(postgres_url)
    secret = {
        # From the template's SecretStringTemplate / GenerateStringKey:
        "username": target.username,
        "dbname": target.database,
        "password": target.password,
        # Added by the SecretTargetAttachment for an AWS::RDS::DBCluster:
        "engine": "postgres",
        "host": target.host,
        "port": target.port,
        "dbClusterIdentifier": "rhumbline-dev-databasecluster-abc",
    }
    fresh_resources.setenv("AWS_DEFAULT_REGION", "us-east-1")
    fresh_resources.setenv("AWS_ACCESS_KEY_ID", "testing")
    fresh_resources.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    with mock_aws():
        arn = boto3.client("secretsmanager").create_secret(Name="rhumbline-db", SecretString=json.dumps(secret))["ARN"]
        fresh_resources.setenv("RHUMBLINE_MODE", "hosted")
        fresh_resources.setenv("RHUMBLINE_DATABASE_SECRET_ARN", arn)
        migrations_resource.handler(event("Update", cloudformation["url"], physical_id="kept-id"), FakeContext())
    body = cloudformation["received"][0]["body"]
    assert body["Status"] == "SUCCESS", body["Reason"]
    assert "alembic_version" in tables(postgres_url)
