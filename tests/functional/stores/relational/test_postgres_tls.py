"""TLS from pg8000 to a real PostgreSQL that refuses unencrypted connections (tls_cluster.py)."""

from __future__ import annotations

import logging
import ssl
from collections.abc import Iterator

import pytest
from sqlalchemy import make_url
from sqlalchemy.exc import DBAPIError

from rhumbline.config import load_settings
from rhumbline.stores.relational.engine import create_engine_for, create_engine_from_url
from rhumbline.stores.relational.tls import DbTls
from tests.functional.stores.relational import tls_cluster
from tests.functional.stores.relational.tls_cluster import TlsCluster


@pytest.fixture(scope="module")
def cluster() -> Iterator[TlsCluster]:
    tls_cluster.require_tools()
    work = tls_cluster.new_workdir()
    try:
        yield tls_cluster.start(work)
    finally:
        tls_cluster.stop(work)


def _encrypted(url: str, tls: DbTls) -> bool:
    engine = create_engine_from_url(url, timeout=5, tls=tls)
    try:
        with engine.connect() as connection:
            return connection.exec_driver_sql("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").scalar()
    finally:
        engine.dispose()


def _refused(url: str, tls: DbTls, password: str, caplog: pytest.LogCaptureFixture) -> str:
    # A refused certificate surfaces as pg8000 raises it (ssl.SSLCertVerificationError), a server's
    # refusal as a DBAPIError.
    with caplog.at_level(logging.DEBUG), pytest.raises((DBAPIError, ssl.SSLError)) as raised:
        _encrypted(url, tls)
    message = str(raised.value)
    assert password not in message and password not in caplog.text
    return message


def test_verify_full_with_the_right_ca_and_host_name(cluster: TlsCluster) -> None:
    assert _encrypted(cluster.url("localhost"), DbTls("verify-full", str(cluster.ca))) is True


def test_verify_full_refuses_a_certificate_from_another_ca(cluster: TlsCluster, caplog) -> None:
    message = _refused(cluster.url("localhost"), DbTls("verify-full", str(cluster.wrong_ca)), cluster.password, caplog)
    assert "certificate verify failed" in message


def test_verify_full_refuses_a_host_name_the_certificate_does_not_name(cluster: TlsCluster, caplog) -> None:
    # The certificate names `localhost`, not 127.0.0.1.
    message = _refused(cluster.url("127.0.0.1"), DbTls("verify-full", str(cluster.ca)), cluster.password, caplog)
    assert "certificate verify failed" in message and "mismatch" in message


def test_require_encrypts_without_checking_the_certificate(cluster: TlsCluster) -> None:
    assert _encrypted(cluster.url("127.0.0.1"), DbTls("require")) is True


def test_disable_is_refused_by_a_server_that_forces_tls(cluster: TlsCluster, caplog) -> None:
    message = _refused(cluster.url("127.0.0.1"), DbTls("disable"), cluster.password, caplog)
    assert "no encryption" in message  # pg_hba.conf has hostssl lines only


def test_the_environment_configures_the_deployed_engine(cluster: TlsCluster, monkeypatch) -> None:
    monkeypatch.setenv("RHUMBLINE_DATABASE_URL", cluster.url("localhost"))
    monkeypatch.setenv("RHUMBLINE_DB_SSL", "verify-full")
    monkeypatch.setenv("RHUMBLINE_DB_CA_BUNDLE", str(cluster.ca))
    settings = load_settings()
    assert (settings.db_ssl, settings.db_ca_bundle) == ("verify-full", str(cluster.ca))
    assert cluster.password not in repr(DbTls(settings.db_ssl, settings.db_ca_bundle))
    engine = create_engine_for(settings)
    try:
        with engine.connect() as connection:
            assert connection.exec_driver_sql("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").scalar()
    finally:
        engine.dispose()


@pytest.mark.postgres
def test_require_fails_clearly_on_a_server_without_tls(postgres_url: str, caplog) -> None:
    # The test server started by scripts/services/postgres.sh has ssl = off.
    password = str(make_url(postgres_url).password)
    message = _refused(postgres_url, DbTls("require"), password, caplog)
    assert "Server refuses SSL" in message
