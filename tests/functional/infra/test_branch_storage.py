"""A branch stack's own database on a shared cluster, and its Neo4j namespace, created and removed
through the custom resources the template declares (deploy/branch_storage.py).

Real PostgreSQL (its `rhumbline_admin` role can do what an Aurora master user can), real Neo4j,
Secrets Manager from moto, CloudFormation's response URL a real HTTP server (cfn.py).
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import make_url, text
from sqlalchemy.exc import DBAPIError

from rhumbline.deploy import branch_storage, migrations_resource
from rhumbline.stores.relational.engine import create_engine_from_url
from tests.functional.infra.cfn import FakeContext

STACK_ID = "arn:aws:cloudformation:us-east-1:123456789012:stack/rhumbline-br-x/{uuid}"


@pytest.fixture
def secrets(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    import boto3
    from moto import mock_aws

    from rhumbline.runtime import resources
    from rhumbline import secrets as secret_cache

    for name, value in (
        ("AWS_DEFAULT_REGION", "us-east-1"),
        ("AWS_ACCESS_KEY_ID", "testing"),
        ("AWS_SECRET_ACCESS_KEY", "testing"),
    ):
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(secret_cache, "_provider", None)
    resources.reset()
    with mock_aws():
        yield boto3.client("secretsmanager")
    resources.reset()


def admin_secret(postgres_url: str) -> dict[str, Any]:
    """The shared cluster's master secret, shaped as RDS attaches it."""
    server = make_url(postgres_url)
    return {
        "username": "rhumbline_admin",
        "password": os.environ.get("PG_ADMIN_PASSWORD", "rhumbline-admin-test"),
        "dbname": "postgres",
        "engine": "postgres",
        "host": server.host,
        "port": server.port,
    }


def event(request_type: str, url: str, properties: dict[str, Any], physical_id: str | None = None) -> dict[str, Any]:
    body = {
        "RequestType": request_type,
        "ResponseURL": url,
        "StackId": STACK_ID,
        "RequestId": f"req-{request_type}",
        "ResourceType": properties.pop("__type", branch_storage.BRANCH_DATABASE),
        "LogicalResourceId": "BranchDatabase",
        "ResourceProperties": {"ServiceToken": "arn:aws:lambda:...", **properties},
    }
    if physical_id:
        body["PhysicalResourceId"] = physical_id
    return body


def branch_secret(client: Any, name: str) -> str:
    """The stack's own secret as the template creates it (GenerateSecretString, no host yet)."""
    value = {"username": name, "dbname": name, "password": uuid.uuid4().hex + uuid.uuid4().hex[:8]}
    return client.create_secret(Name=f"branch-{name}", SecretString=json.dumps(value))["ARN"]


def answers(cloudformation: dict[str, Any]) -> list[dict[str, Any]]:
    return [entry["body"] for entry in cloudformation["received"]]


@pytest.mark.postgres
def test_a_branch_database_lives_and_dies_with_its_stack(cloudformation, secrets, postgres_url) -> None:
    from rhumbline.stores.relational import migrate
    from rhumbline.stores.relational.secrets import database_url_from_secret

    admin_arn = secrets.create_secret(Name="shared-admin", SecretString=json.dumps(admin_secret(postgres_url)))["ARN"]
    names = [f"rhb_{uuid.uuid4().hex}" for _ in range(2)]
    arns = [branch_secret(secrets, name) for name in names]
    created = []
    try:
        for name, arn in zip(names, arns):
            properties = {"Database": name, "AdminSecretArn": admin_arn, "DatabaseSecretArn": arn, "StackName": "rhumbline-br-x"}
            migrations_resource.handler(event("Create", cloudformation["url"], properties), FakeContext())
            body = answers(cloudformation)[-1]
            assert body["Status"] == "SUCCESS", body["Reason"]
            assert body["PhysicalResourceId"] == name
            assert body["Data"] == {"Database": name, "Endpoint": make_url(postgres_url).host}
            created.append(name)
            # An Update (a redeploy) applies the same state again.
            migrations_resource.handler(event("Update", cloudformation["url"], dict(properties), physical_id=name), FakeContext())
            assert answers(cloudformation)[-1]["Status"] == "SUCCESS", answers(cloudformation)[-1]["Reason"]

        # The attachment's part: the secret now says where the database is; the role owns its tables.
        first_url = database_url_from_secret(arns[0])
        assert make_url(first_url).database == names[0]
        engine = create_engine_from_url(first_url, timeout=10)
        migrate.upgrade(engine)
        with engine.connect() as connection:
            owner = connection.execute(text("SELECT tableowner FROM pg_tables WHERE tablename = 'api_tokens'")).scalar()
        assert owner == names[0]

        # Another branch's role, and the cluster's other roles, cannot even connect to it.
        for url in (make_url(database_url_from_secret(arns[1])).set(database=names[0]), make_url(postgres_url).set(database=names[0])):
            intruder = create_engine_from_url(url.render_as_string(hide_password=False), timeout=10)
            with pytest.raises(DBAPIError, match="permission denied"):
                with intruder.connect():
                    pass
            intruder.dispose()

        # Delete while a function still holds a connection: both the database and the role go.
        held = engine.connect()
        held.execute(text("SELECT 1"))
        delete = event("Delete", cloudformation["url"], {"AdminSecretArn": admin_arn}, physical_id=names[0])
        migrations_resource.handler(delete, FakeContext())
        with pytest.raises(DBAPIError):  # the server ended that session
            held.execute(text("SELECT 1"))
        held.invalidate()
        engine.dispose()
        body = answers(cloudformation)[-1]
        assert body["Status"] == "SUCCESS", body["Reason"]
        assert not _exists(postgres_url, names[0])
        assert _exists(postgres_url, names[1])
        created.remove(names[0])
    finally:
        for name in created:
            branch_storage.drop_database(admin_secret(postgres_url), name)


def _exists(postgres_url: str, name: str) -> bool:
    engine = create_engine_from_url(postgres_url, timeout=10)
    try:
        with engine.connect() as connection:
            database = connection.execute(text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name}).first()
            role = connection.execute(text("SELECT 1 FROM pg_roles WHERE rolname = :n"), {"n": name}).first()
        assert bool(database) == bool(role), "database and role are created and dropped together"
        return database is not None
    finally:
        engine.dispose()


@pytest.mark.postgres
def test_delete_never_drops_a_database_it_did_not_name(cloudformation, secrets, postgres_url) -> None:
    admin_arn = secrets.create_secret(Name="shared-admin", SecretString=json.dumps(admin_secret(postgres_url)))["ARN"]
    protected = make_url(postgres_url).database
    migrations_resource.handler(
        event("Delete", cloudformation["url"], {"AdminSecretArn": admin_arn}, physical_id=protected), FakeContext()
    )
    body = answers(cloudformation)[-1]
    assert body["Status"] == "FAILED"
    assert "is not a branch database name" in body["Reason"]
    engine = create_engine_from_url(postgres_url, timeout=10)
    with engine.connect() as connection:
        assert connection.execute(text("SELECT 1")).scalar() == 1
    engine.dispose()


@pytest.mark.postgres
def test_a_secret_of_another_database_is_refused(cloudformation, secrets, postgres_url) -> None:
    admin_arn = secrets.create_secret(Name="shared-admin", SecretString=json.dumps(admin_secret(postgres_url)))["ARN"]
    name = f"rhb_{uuid.uuid4().hex}"
    other = branch_secret(secrets, f"rhb_{uuid.uuid4().hex}")
    properties = {"Database": name, "AdminSecretArn": admin_arn, "DatabaseSecretArn": other}
    migrations_resource.handler(event("Create", cloudformation["url"], properties), FakeContext())
    body = answers(cloudformation)[-1]
    assert (body["Status"], body["PhysicalResourceId"]) == ("FAILED", name)
    assert "is not the secret of database" in body["Reason"]
    assert not _exists(postgres_url, name)


def test_a_create_with_a_bad_name_fails_and_its_rollback_deletes_nothing(cloudformation) -> None:
    migrations_resource.handler(event("Create", cloudformation["url"], {"Database": "rhumbline"}), FakeContext())
    failed = answers(cloudformation)[-1]
    assert failed["Status"] == "FAILED" and "not a branch database name" in failed["Reason"]
    migrations_resource.handler(event("Delete", cloudformation["url"], {}, physical_id=failed["PhysicalResourceId"]), FakeContext())
    assert answers(cloudformation)[-1]["Status"] == "SUCCESS"


def test_the_scram_verifier_is_what_postgres_stores() -> None:
    verifier = branch_storage.scram_verifier("abc123")
    method, rest = verifier.split("$", 1)
    assert method == "SCRAM-SHA-256" and rest.startswith("4096:")
    assert "abc123" not in verifier


@pytest.mark.neo4j
def test_a_graph_namespace_is_deleted_with_its_stack(cloudformation, neo4j_server, monkeypatch, unique_project) -> None:
    from rhumbline.config import settings
    from rhumbline.stores.graph.neo4j.store import Neo4jGraphStore
    from rhumbline.stores.graph.model import GraphBatch
    from tests.functional.stores.graph.graph_samples import node

    for name, value in (
        ("RHUMBLINE_NEO4J_URI", neo4j_server["uri"]),
        ("RHUMBLINE_NEO4J_USER", neo4j_server["user"]),
        ("RHUMBLINE_NEO4J_PASSWORD", neo4j_server["password"]),
    ):
        monkeypatch.setenv(name, value)
    settings.cache_clear()
    namespace = f"rhumbline-br-{uuid.uuid4().hex[:8]}"
    store = Neo4jGraphStore(neo4j_server["uri"], neo4j_server["user"], neo4j_server["password"], namespace=namespace)
    kept = Neo4jGraphStore(neo4j_server["uri"], neo4j_server["user"], neo4j_server["password"], namespace=namespace + "-2")
    try:
        for writer in (store, kept):
            writer.ensure_schema()
            writer.apply(unique_project, GraphBatch(nodes=[node("Function", "pkg.f", "pkg/m.py")], clear=True))
        properties = {"__type": branch_storage.GRAPH_NAMESPACE, "Namespace": namespace}
        migrations_resource.handler(event("Create", cloudformation["url"], dict(properties)), FakeContext())
        created = answers(cloudformation)[-1]
        assert (created["Status"], created["PhysicalResourceId"]) == ("SUCCESS", f"neo4j-namespace:{namespace}")
        assert store.counts(unique_project).nodes == 1

        delete = event("Delete", cloudformation["url"], properties, physical_id=created["PhysicalResourceId"])
        migrations_resource.handler(delete, FakeContext())
        assert answers(cloudformation)[-1]["Status"] == "SUCCESS", answers(cloudformation)[-1]["Reason"]
        store._keys.forget()
        assert store.counts(unique_project).nodes == 0
        assert kept.counts(unique_project).nodes == 1
    finally:
        kept.delete_project(unique_project)
        store.close()
        kept.close()
        settings.cache_clear()
