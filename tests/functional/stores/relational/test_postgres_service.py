"""The read-only role that scripts/services/postgres.sh sets up next to the owner role."""

from __future__ import annotations

import os
import uuid

import pytest
from sqlalchemy import make_url
from sqlalchemy.exc import DBAPIError

from rhumbline.stores.relational.engine import create_engine_from_url

pytestmark = pytest.mark.postgres


def test_read_only_role_reads_new_tables_but_cannot_write(postgres_url: str) -> None:
    schema = f"ro_{uuid.uuid4().hex[:12]}"
    read_only_url = (
        make_url(postgres_url)
        .set(username="rhumbline_ro", password=os.environ.get("PG_RO_PASSWORD", "rhumbline-ro-test"))
        .render_as_string(hide_password=False)
    )
    owner = create_engine_from_url(postgres_url, timeout=5)
    reader = create_engine_from_url(read_only_url, timeout=5)
    try:
        with owner.begin() as connection:
            connection.exec_driver_sql(f"CREATE SCHEMA {schema}")
            connection.exec_driver_sql(f"CREATE TABLE {schema}.t (n int)")
            connection.exec_driver_sql(f"INSERT INTO {schema}.t VALUES (7)")

        with reader.connect() as connection:
            assert connection.exec_driver_sql(f"SELECT n FROM {schema}.t").all() == [(7,)]
        with pytest.raises(DBAPIError) as raised, reader.begin() as connection:
            connection.exec_driver_sql(f"INSERT INTO {schema}.t VALUES (8)")
        assert raised.value.orig.args[0]["C"] == "25006"  # read_only_sql_transaction
        with pytest.raises(DBAPIError) as raised, reader.begin() as connection:
            connection.exec_driver_sql("SET TRANSACTION READ WRITE")
            connection.exec_driver_sql(f"INSERT INTO {schema}.t VALUES (8)")
        assert raised.value.orig.args[0]["C"] == "42501"  # insufficient_privilege
    finally:
        with owner.begin() as connection:
            connection.exec_driver_sql(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        owner.dispose()
        reader.dispose()
