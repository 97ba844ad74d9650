"""open_graph_store: the backend the settings name, schema ready, credentials from Secrets Manager."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from moto import mock_aws

from rhumbline.config import Settings
from rhumbline import secrets as secret_reads
from rhumbline.stores.graph.factory import neo4j_credentials, neo4j_readonly_credentials, open_graph_store
from rhumbline.stores.graph.model import GraphBatch, GraphCounts
from rhumbline.stores.graph.protocol import GraphStore
from tests.functional.stores.graph.graph_samples import node


@pytest.fixture
def secretsmanager(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    # A fresh provider per test: its cache (and its client's region) would outlive moto's fake account.
    monkeypatch.setattr(secret_reads, "_provider", None)
    with mock_aws():
        yield boto3.client("secretsmanager", region_name="eu-west-1")


def test_the_neo4j_secrets_are_read_with_bounded_timeouts(secretsmanager, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not Powertools' default provider (botocore's 60 s connect and read timeouts, retried)."""
    arn = secretsmanager.create_secret(  # type: ignore[attr-defined]
        Name="rhumbline/neo4j-timeouts",
        SecretString=json.dumps({"uri": "bolt://db:7687", "username": "reader", "password": "p"}),
    )["ARN"]
    read: list[str] = []
    provider = secret_reads.secrets_provider()
    original = provider.get
    monkeypatch.setattr(provider, "get", lambda name, **options: read.append(name) or original(name, **options))
    settings = Settings(graph_backend="neo4j", neo4j_secret_arn=arn, neo4j_readonly_secret_arn=arn)
    assert neo4j_credentials(settings).password == "p"
    assert neo4j_readonly_credentials(settings)[0].user == "reader"
    assert len(read) >= 2 and set(read) == {arn}  # both credentials, through this provider
    config = provider.client.meta.config
    assert (config.connect_timeout, config.read_timeout) == (secret_reads.CONNECT_TIMEOUT_SECONDS, secret_reads.READ_TIMEOUT_SECONDS)
    assert config.connect_timeout <= 5 and config.read_timeout <= 5


def test_sqlite_store_with_its_directory_and_schema(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "graph.sqlite3"
    store = open_graph_store(Settings(graph_backend="sqlite", graph_path=path, graph_timeout=3.0))
    try:
        assert isinstance(store, GraphStore)
        assert store.backend == "sqlite"
        assert path.is_file()
        store.apply("test/p", GraphBatch(nodes=[node("Function", "f")]))
        assert store.counts("test/p") == GraphCounts(nodes=1, edges=0, nodes_by_kind={"Function": 1})
    finally:
        store.close()


@pytest.mark.neo4j
def test_neo4j_store_from_settings(neo4j_server: dict[str, str], unique_project: str) -> None:
    settings = Settings(
        graph_backend="neo4j",
        neo4j_uri=neo4j_server["uri"],
        neo4j_user=neo4j_server["user"],
        neo4j_password=neo4j_server["password"],
    )
    store = open_graph_store(settings)
    try:
        assert isinstance(store, GraphStore)
        assert store.backend == "neo4j"
        assert store.counts(unique_project) == GraphCounts(nodes=0, edges=0)
    finally:
        store.close()


@pytest.mark.neo4j
def test_neo4j_store_from_a_secret(
    neo4j_server: dict[str, str], secretsmanager, unique_project: str
) -> None:
    arn = secretsmanager.create_secret(  # type: ignore[attr-defined]
        Name="rhumbline/neo4j",
        SecretString=json.dumps(
            {"uri": neo4j_server["uri"], "username": neo4j_server["user"],
             "password": neo4j_server["password"]}
        ),  # fmt: skip
    )["ARN"]
    store = open_graph_store(Settings(graph_backend="neo4j", neo4j_secret_arn=arn))
    try:
        store.apply(unique_project, GraphBatch(nodes=[node("Function", "f")]))
        assert store.counts(unique_project).nodes == 1
    finally:
        store.delete_project(unique_project)
        store.close()


def test_secret_values_override_settings_and_database_defaults(secretsmanager) -> None:
    arn = secretsmanager.create_secret(  # type: ignore[attr-defined]
        Name="rhumbline/neo4j-aura",
        SecretString=json.dumps(
            {"uri": "neo4j+s://abc.databases.neo4j.io", "username": "app", "password": "s3cret"}
        ),
    )["ARN"]
    settings = Settings(graph_backend="neo4j", neo4j_uri="bolt://ignored:7687", neo4j_secret_arn=arn)

    credentials = neo4j_credentials(settings)

    assert (credentials.uri, credentials.user, credentials.password, credentials.database) == (
        "neo4j+s://abc.databases.neo4j.io", "app", "s3cret", "neo4j",
    )  # fmt: skip


def test_an_explicit_password_wins_over_the_secret() -> None:
    settings = Settings(
        graph_backend="neo4j",
        neo4j_uri="bolt://db:7687",
        neo4j_password="local",
        neo4j_secret_arn="arn:aws:secretsmanager:eu-west-1:123456789012:secret:never-read",
    )
    assert neo4j_credentials(settings).password == "local"


def test_neo4j_without_an_address_is_a_configuration_error() -> None:
    with pytest.raises(ValueError, match="RHUMBLINE_NEO4J_URI"):
        open_graph_store(Settings(graph_backend="neo4j", neo4j_password="x"))
