"""A refused bearer token is told why, through a real `rhumbline serve`: unknown, revoked, expired
and not a token at all each get their own `error_description`; only a header that is not
`Bearer <token>` is told the header is wrong."""

from __future__ import annotations

import re
import sqlite3
from typing import Any

import httpx
import pytest
from tests.e2e.conftest import LocalServer, run_cli, start_server  # noqa: F401 - the fixture is used by name

from rhumbline.gateway.identity import REASON_DESCRIPTIONS

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json", "MCP-Protocol-Version": "2025-06-18"}
TOKEN = re.compile(r"^rhl_[a-z0-9]{10}_[A-Za-z0-9_-]{43}$", re.MULTILINE)


@pytest.fixture(scope="module")
def server(start_server: Any) -> LocalServer:  # noqa: F811
    return start_server("inprocess")


def created_token(server: LocalServer, *extra: str) -> tuple[str, str]:
    """(plaintext, token id) of a new read token on acme/shop."""
    created = run_cli(server.env, "token", "create", "--principal", "someone@example.com", "--projects", "acme/shop",
                      "--scopes", "read", *extra)  # fmt: skip
    assert created.returncode == 0, created.stderr
    plaintext = TOKEN.search(created.stdout)
    assert plaintext is not None, created.stdout
    return plaintext.group(0), "tk_" + plaintext.group(0)[4:14]


def refusal(server: LocalServer, authorization: str) -> str:
    """The error_description of the 401 the server answers a tools/list with this header."""
    answer = httpx.post(server.url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                        headers={**HEADERS, "Authorization": authorization}, timeout=30)  # fmt: skip
    assert answer.status_code == 401, answer.text
    found = re.search(r'error_description="([^"]*)"', answer.headers["www-authenticate"])
    assert found is not None, answer.headers["www-authenticate"]
    return found.group(1)


def test_each_refused_token_is_told_its_own_reason(server: LocalServer) -> None:
    good, _ = created_token(server)
    revoked, revoked_id = created_token(server)
    assert run_cli(server.env, "token", "revoke", revoked_id).returncode == 0
    expired, expired_id = created_token(server, "--expires-in-days", "1")
    # The CLI refuses an expiry in the past: move this one's into the past in the store itself.
    with sqlite3.connect(server.home / "rhumbline.sqlite3") as store:
        moved = store.execute("UPDATE api_tokens SET expires_at = '2020-01-01 00:00:00.000000' WHERE id = ?", (expired_id,))
        assert moved.rowcount == 1
    # Well-formed, never issued: the same id as a real token, another secret.
    unknown = good[:15] + ("A" if good[15] != "A" else "B") + good[16:]

    assert refusal(server, f"Bearer {unknown}") == REASON_DESCRIPTIONS["unknown"] == "the token is not recognized"
    assert refusal(server, f"Bearer {revoked}") == REASON_DESCRIPTIONS["revoked"]
    assert refusal(server, f"Bearer {expired}") == REASON_DESCRIPTIONS["expired"]
    for not_a_token in (good[:-1], good + "x", "rhl_example_not_a_real_token", "eyJhbGciOiJIUzI1NiJ9.e30.sig"):
        described = refusal(server, f"Bearer {not_a_token}")
        assert described == REASON_DESCRIPTIONS["malformed_token"], (not_a_token, described)
        assert "Authorization header" not in described
    for bad_header in (f"Token {good}", f"Bearer {good} extra", f"Basic {good}"):
        assert refusal(server, bad_header) == REASON_DESCRIPTIONS["malformed"], bad_header
    # The token the others were made from still works: each refusal was about its own token.
    listed = httpx.post(server.url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                        headers={**HEADERS, "Authorization": f"Bearer {good}"}, timeout=30)  # fmt: skip
    assert listed.status_code == 200, listed.text
