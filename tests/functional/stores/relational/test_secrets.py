from __future__ import annotations

import json

import boto3
import pytest
from moto import mock_aws
from sqlalchemy import make_url

from rhumbline import secrets as secret_reads
from rhumbline.stores.relational import secrets

PASSWORD = "p@ss:w/rd%?#&=+ é'\""


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    # A fresh provider per test: its cache would otherwise outlive moto's fake account.
    monkeypatch.setattr(secret_reads, "_provider", None)
    with mock_aws():
        yield boto3.client("secretsmanager", region_name="eu-west-1")


def test_url_from_an_rds_attachment_secret(aws) -> None:
    arn = aws.create_secret(
        Name="rhumbline/db",
        SecretString=json.dumps(
            {
                "engine": "postgres",
                "username": "rhumbline_app",
                "password": PASSWORD,
                "host": "cluster.cluster-abc.eu-west-1.rds.amazonaws.com",
                "port": 5432,
                "dbname": "rhumbline",
            }
        ),
    )["ARN"]

    url = secrets.database_url_from_secret(arn)

    parsed = make_url(url)
    assert parsed.drivername == "postgresql+pg8000"
    assert (parsed.username, parsed.password) == ("rhumbline_app", PASSWORD)
    assert (parsed.host, parsed.port, parsed.database) == ("cluster.cluster-abc.eu-west-1.rds.amazonaws.com", 5432, "rhumbline")
    assert url == (
        "postgresql+pg8000://rhumbline_app:p%40ss%3Aw%2Frd%25%3F%23%26%3D+ %C3%A9%27%22"
        "@cluster.cluster-abc.eu-west-1.rds.amazonaws.com:5432/rhumbline"
    )


def test_secret_value_is_cached(aws) -> None:
    arn = aws.create_secret(
        Name="rhumbline/cached",
        SecretString=json.dumps({"username": "u", "password": "one", "host": "h", "port": "6543", "dbname": "d"}),
    )["ARN"]
    first = secrets.database_url_from_secret(arn)
    aws.put_secret_value(SecretId=arn, SecretString=json.dumps({"username": "u", "password": "two", "host": "h", "dbname": "d"}))
    assert secrets.database_url_from_secret(arn) == first == "postgresql+pg8000://u:one@h:6543/d"


def test_incomplete_secret_names_the_missing_keys_only(aws) -> None:
    arn = aws.create_secret(Name="rhumbline/partial", SecretString=json.dumps({"username": "u", "password": "hunter2"}))[
        "ARN"
    ]
    with pytest.raises(ValueError) as raised:
        secrets.database_url_from_secret(arn)
    assert str(raised.value) == "database secret lacks host, dbname"
    assert "hunter2" not in str(raised.value)


def test_port_defaults_to_5432() -> None:
    assert secrets.url_from_secret_values({"username": "u", "password": "p", "host": "h", "dbname": "d"}) == (
        "postgresql+pg8000://u:p@h:5432/d"
    )
