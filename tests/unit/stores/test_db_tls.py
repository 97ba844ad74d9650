"""RHUMBLINE_DB_SSL / RHUMBLINE_DB_CA_BUNDLE: every bad setting a clear error before connecting."""

from __future__ import annotations

import ssl

import pytest

from rhumbline.config import load_settings
from rhumbline.stores.relational.engine import create_engine_from_url
from rhumbline.stores.relational.tls import DbTls, ssl_context

URL = "postgresql+pg8000://someone:s3cret-pass@db.example.com:5432/x"


def test_modes():
    assert ssl_context(DbTls()) is False  # pg8000's None would mean: try TLS, fall back to plain
    required = ssl_context(DbTls("require"))
    assert (required.verify_mode, required.check_hostname) == (ssl.CERT_NONE, False)
    assert required.minimum_version == ssl.TLSVersion.TLSv1_2


def test_an_unknown_mode_names_the_variable():
    with pytest.raises(ValueError, match="RHUMBLINE_DB_SSL must be one of disable, require, verify-full, not 'on'"):
        DbTls("on")


def test_verify_full_needs_a_readable_pem_bundle(tmp_path):
    with pytest.raises(ValueError, match="verify-full needs RHUMBLINE_DB_CA_BUNDLE"):
        create_engine_from_url(URL, tls=DbTls("verify-full"))
    with pytest.raises(ValueError, match=f"RHUMBLINE_DB_CA_BUNDLE {tmp_path}/missing.pem is not a file"):
        ssl_context(DbTls("verify-full", str(tmp_path / "missing.pem")))
    junk = tmp_path / "junk.pem"
    junk.write_text("not a certificate\n")
    with pytest.raises(ValueError, match="holds no usable PEM certificate") as raised:
        create_engine_from_url(URL, tls=DbTls("verify-full", str(junk)))
    assert "s3cret-pass" not in str(raised.value)


def test_settings_default_to_no_tls(monkeypatch):
    monkeypatch.delenv("RHUMBLINE_DB_SSL", raising=False)
    monkeypatch.delenv("RHUMBLINE_DB_CA_BUNDLE", raising=False)
    settings = load_settings()
    assert (settings.db_ssl, settings.db_ca_bundle) == ("disable", "")
