"""What the `query` tool connects as: a dedicated read-only Neo4j user when one is configured
(settings or a Secrets Manager secret), else the graph store's own user."""

from __future__ import annotations

import json
from collections.abc import Iterator

import boto3
import pytest
from moto import mock_aws

from rhumbline.config import Settings
from rhumbline import secrets as secret_reads
from rhumbline.stores.graph.factory import Neo4jCredentials, neo4j_readonly_credentials

MAIN = Settings(graph_backend="neo4j", neo4j_uri="bolt://graph:7687", neo4j_password="main-secret", neo4j_database="g")


@pytest.fixture
def secretsmanager(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    # A fresh provider per test: its cache (and its client's region) would outlive moto's fake account.
    monkeypatch.setattr(secret_reads, "_provider", None)
    with mock_aws():
        yield boto3.client("secretsmanager", region_name="eu-west-1")


def test_without_a_read_only_user_the_graph_user_is_used() -> None:
    assert neo4j_readonly_credentials(MAIN) == (Neo4jCredentials("bolt://graph:7687", "neo4j", "main-secret", "g"), False)


def test_a_read_only_user_from_settings() -> None:
    settings = Settings(**{**MAIN.__dict__, "neo4j_readonly_user": "reader", "neo4j_readonly_password": "r-secret"})
    assert neo4j_readonly_credentials(settings) == (Neo4jCredentials("bolt://graph:7687", "reader", "r-secret", "g"), True)
    missing = Settings(**{**MAIN.__dict__, "neo4j_readonly_user": "reader"})
    with pytest.raises(ValueError, match="without RHUMBLINE_NEO4J_READONLY_PASSWORD"):
        neo4j_readonly_credentials(missing)


def test_a_read_only_user_from_its_secret(secretsmanager) -> None:
    arn = secretsmanager.create_secret(  # type: ignore[attr-defined]
        Name="rhumbline/neo4j-reader-test1",
        SecretString=json.dumps({"username": "reader", "password": "r-secret", "uri": "neo4j+s://aura:7687"}),
    )["ARN"]
    settings = Settings(**{**MAIN.__dict__, "neo4j_readonly_secret_arn": arn})
    assert neo4j_readonly_credentials(settings) == (Neo4jCredentials("neo4j+s://aura:7687", "reader", "r-secret", "g"), True)
    bad = secretsmanager.create_secret(Name="rhumbline/neo4j-reader-test2", SecretString=json.dumps({"password": "x"}))["ARN"]  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="'username' and 'password'"):
        neo4j_readonly_credentials(Settings(**{**MAIN.__dict__, "neo4j_readonly_secret_arn": bad}))


def test_settings_read_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from rhumbline.config import load_settings

    monkeypatch.setenv("RHUMBLINE_NEO4J_READONLY_USER", "reader")
    monkeypatch.setenv("RHUMBLINE_NEO4J_READONLY_PASSWORD", "r-secret")
    monkeypatch.setenv("RHUMBLINE_NEO4J_READONLY_SECRET_ARN", "arn:aws:secretsmanager:eu-west-1:123456789012:secret:x-AbCdEf")
    loaded = load_settings()
    assert (loaded.neo4j_readonly_user, loaded.neo4j_readonly_password) == ("reader", "r-secret")
    assert loaded.neo4j_readonly_secret_arn.endswith("x-AbCdEf")
    assert "r-secret" not in repr(loaded)
