"""What a stack owns in backends it shares with other stacks (per-branch stacks, docs/deploy.md).

- `Custom::BranchDatabase`: a database and a login role of the same name on a shared Aurora
  cluster. The role can connect to that database only, and owns what the migrations create in
  it. Create writes the connection (host, port) into the stack's own database secret, as the RDS
  secret attachment does for a cluster of its own; Delete drops the database and the role.
- `Custom::GraphNamespace`: the stack's namespace in a shared Neo4j database
  (stores/graph/neo4j/keys.py). Delete removes every graph written under it.

Both run inside the migration function (deploy/migrations_resource.py answers CloudFormation).
"""

from __future__ import annotations

import base64
import dataclasses
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlalchemy import Engine

BRANCH_DATABASE = "Custom::BranchDatabase"
GRAPH_NAMESPACE = "Custom::GraphNamespace"
# The template names a branch database `rhb_` + the stack id's UUID without dashes: never the
# name of a database it did not create, which Delete must never drop.
DATABASE_NAME = re.compile(r"^rhb_[0-9a-f]{32}$")
# Generated without punctuation (template.yaml): nothing to escape.
PASSWORD = re.compile(r"^[A-Za-z0-9]{20,128}$")
STACK_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9-]{0,127}$")
SCRAM_ITERATIONS = 4096
AWS_TIMEOUTS = {"connect_timeout": 5, "read_timeout": 10, "retries": {"max_attempts": 3, "mode": "standard"}}


class StorageError(Exception):
    """A request this module refuses, with the reason CloudFormation shows."""


def physical_id(resource_type: str, properties: Mapping[str, Any]) -> str:
    """Names what the resource owns, so a changed name is a replacement (and the old one deleted)."""
    if resource_type == BRANCH_DATABASE:
        return checked_database_name(properties.get("Database"))
    if resource_type == GRAPH_NAMESPACE:
        from rhumbline.stores.graph.neo4j.keys import Namespace

        name = str(properties.get("Namespace") or "")
        if not name:
            raise StorageError("Namespace is empty: a stack of its own Neo4j database has no GraphNamespace resource")
        return f"neo4j-namespace:{Namespace(name).name}"
    raise StorageError(f"unknown resource type {resource_type!r}")


def checked_database_name(name: Any) -> str:
    if not isinstance(name, str) or not DATABASE_NAME.match(name):
        raise StorageError(f"Database {name!r} is not a branch database name (rhb_ and 32 hex digits)")
    return name


def handle(request_type: str, resource_type: str, properties: Mapping[str, Any], physical: str) -> tuple[str, dict[str, str]]:
    """Do what the request asks; the reason to report and the resource's attributes."""
    if resource_type == BRANCH_DATABASE:
        if request_type == "Delete":
            name = checked_database_name(physical)
            drop_database(_secret(_required(properties, "AdminSecretArn")), name)
            return f"dropped database and role {name}", {}
        data = create_database(
            _secret(_required(properties, "AdminSecretArn")),
            _required(properties, "DatabaseSecretArn"),
            checked_database_name(properties.get("Database")),
            stack=str(properties.get("StackName", "")),
        )
        return f"database {data['Database']} ready on {data['Endpoint']}", data
    if request_type == "Delete":
        namespace = physical.removeprefix("neo4j-namespace:")
        delete_graph_namespace(namespace)
        return f"deleted every graph of Neo4j namespace {namespace}", {}
    return f"Neo4j namespace {physical.removeprefix('neo4j-namespace:')} in use", {}


def _required(properties: Mapping[str, Any], key: str) -> str:
    value = properties.get(key)
    if not isinstance(value, str) or not value:
        raise StorageError(f"property {key} is required")
    return value


# ---------------------------------------------------------------- PostgreSQL


def create_database(admin: Mapping[str, Any], branch_secret_arn: str, name: str, *, stack: str) -> dict[str, str]:
    """The role and database `name` (idempotent: Update re-applies the password and grants), then
    the connection written into the branch's secret; the resource's attributes."""
    from sqlalchemy import text

    branch = _secret(branch_secret_arn)
    if branch.get("username") != name or branch.get("dbname") != name:
        raise StorageError(f"secret {branch_secret_arn} is not the secret of database {name} (username/dbname differ)")
    password = str(branch.get("password") or "")
    if not PASSWORD.match(password):
        raise StorageError(f"secret {branch_secret_arn} has no generated password of letters and digits")
    if stack and not STACK_NAME.match(stack):
        raise StorageError(f"StackName {stack!r} is not a CloudFormation stack name")
    # A SCRAM verifier, not the password: the statement text may reach the server's log.
    verifier = scram_verifier(password)
    engine = _admin_engine(admin)
    try:
        with engine.connect() as connection:
            exists = connection.execute(text("SELECT 1 FROM pg_roles WHERE rolname = :n"), {"n": name}).first()
            # DDL takes no bind parameters; every value below was checked against a strict pattern.
            ddl = connection.exec_driver_sql
            # Only a superuser may restate NOSUPERUSER: an existing role (Update) gets its password.
            attributes = "LOGIN" if exists else "LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE"
            ddl(f"{'ALTER' if exists else 'CREATE'} ROLE \"{name}\" WITH {attributes} PASSWORD '{verifier}'")
            if not connection.execute(text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name}).first():
                ddl(f'CREATE DATABASE "{name}"')
            ddl(f'REVOKE ALL ON DATABASE "{name}" FROM PUBLIC')
            ddl(f'GRANT CONNECT, TEMPORARY ON DATABASE "{name}" TO "{name}"')
            if stack:
                ddl(f"COMMENT ON DATABASE \"{name}\" IS 'Rhumbline stack {stack}'")
    finally:
        engine.dispose()
    # The role creates its tables in the database's public schema, which the admin owns.
    engine = _admin_engine(admin, database=name)
    try:
        with engine.connect() as connection:
            connection.exec_driver_sql(f'GRANT USAGE, CREATE ON SCHEMA public TO "{name}"')
    finally:
        engine.dispose()
    host, port = str(admin["host"]), int(admin.get("port") or 5432)
    _put_secret(branch_secret_arn, {**branch, "host": host, "port": port, "engine": "postgres"})
    return {"Database": name, "Endpoint": host}


def drop_database(admin: Mapping[str, Any], name: str) -> None:
    """Database and role `name`, whoever is still connected (idempotent)."""
    checked_database_name(name)
    engine = _admin_engine(admin)
    try:
        with engine.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            connection.exec_driver_sql(f'DROP ROLE IF EXISTS "{name}"')
    finally:
        engine.dispose()


def scram_verifier(password: str) -> str:
    """What PostgreSQL stores for a SCRAM-SHA-256 password; it accepts it in place of the password."""
    from scramp import ScramMechanism

    salt, stored_key, server_key, iterations = ScramMechanism("SCRAM-SHA-256").make_auth_info(
        password, iteration_count=SCRAM_ITERATIONS
    )
    salt64, stored64, server64 = (base64.b64encode(value).decode() for value in (salt, stored_key, server_key))
    return f"SCRAM-SHA-256${iterations}:{salt64}${stored64}:{server64}"


def _admin_engine(admin: Mapping[str, Any], database: str | None = None) -> "Engine":
    """The shared cluster's admin user (its RDS secret), with autocommit: CREATE DATABASE cannot
    run in a transaction. TLS and timeouts as every function's own connections."""
    from rhumbline.config import settings
    from rhumbline.stores.relational.engine import create_engine_from_url
    from rhumbline.stores.relational.secrets import url_from_secret_values
    from rhumbline.stores.relational.tls import DbTls

    values = dict(admin)
    if database:
        values["dbname"] = database
    current = settings()
    engine = create_engine_from_url(
        url_from_secret_values(values), timeout=current.db_timeout, tls=DbTls(current.db_ssl, current.db_ca_bundle)
    )
    return engine.execution_options(isolation_level="AUTOCOMMIT")


def _secret(arn: str) -> dict[str, Any]:
    from rhumbline.secrets import secrets_provider

    # Never cached: Create reads the branch secret, then writes it.
    value = secrets_provider().get(arn, transform="json", max_age=0)
    if not isinstance(value, dict):
        raise StorageError(f"secret {arn} is not a JSON object")
    return value


def _put_secret(arn: str, value: Mapping[str, Any]) -> None:
    import json

    import boto3
    from botocore.config import Config

    client = boto3.client("secretsmanager", config=Config(**AWS_TIMEOUTS))
    client.put_secret_value(SecretId=arn, SecretString=json.dumps(dict(value)))


# ---------------------------------------------------------------- Neo4j


def delete_graph_namespace(namespace: str) -> None:
    from rhumbline.config import settings
    from rhumbline.stores.graph.neo4j import staged
    from rhumbline.stores.graph.factory import open_graph_store
    from rhumbline.stores.graph.neo4j.store import Neo4jGraphStore

    store = open_graph_store(dataclasses.replace(settings(), graph_backend="neo4j", neo4j_namespace=namespace))
    try:
        if not isinstance(store, Neo4jGraphStore):
            raise StorageError("a Neo4j namespace needs the neo4j graph backend")
        staged.delete_namespace(store)
    finally:
        store.close()
