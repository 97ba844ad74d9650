"""A revoked token stops working within the bound, through a real `rhumbline serve`.

The local stand-in caches the authorizer's verdict for the template's AuthorizerCacheSeconds (60 s
by default), as API Gateway does. A tools/call does not depend on that cache: the gateway checks
the token's row on every call (gateway/meter.py), so the first call after the revocation is
refused; other requests (tools/list) are refused once the cached verdict expires, within 60 s.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from tests.e2e.conftest import LocalServer, run_cli, start_server  # noqa: F401 - the fixture is used by name

from rhumbline.local.template import find_template, load_template

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json", "MCP-Protocol-Version": "2025-06-18"}


@pytest.fixture(scope="module")
def server(start_server: Any) -> LocalServer:  # noqa: F811
    return start_server("inprocess")


def rpc(server: LocalServer, token: str, method: str, params: dict[str, Any] | None = None) -> httpx.Response:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, **({"params": params} if params is not None else {})}
    return httpx.post(server.url, json=body, headers={**HEADERS, "Authorization": f"Bearer {token}"}, timeout=30)


def test_a_revoked_token_is_refused_on_its_next_tool_call(server: LocalServer) -> None:
    created = run_cli(server.env, "token", "create", "--principal", "leaver@example.com", "--projects", "acme/shop", "--scopes", "read")
    assert created.returncode == 0, created.stderr
    token = created.stdout.strip()
    listing = {"name": "list_projects", "arguments": {}}
    assert rpc(server, token, "tools/call", listing).json()["result"]["isError"] is False

    revoked = run_cli(server.env, "token", "revoke", "tk_" + token.split("_")[1])
    assert revoked.returncode == 0, revoked.stderr
    refused = rpc(server, token, "tools/call", listing).json()["result"]
    assert refused["isError"] is True
    assert refused["content"][0]["text"].splitlines()[0] == "unauthenticated: the token has been revoked"
    # Within the authorizer's cache the token may still list tools, and nothing more.
    assert rpc(server, token, "tools/list").status_code == 200
    assert load_template(find_template()).authorizers()[0].ttl_seconds <= 60


def test_a_token_revoked_before_its_first_request_gets_401(server: LocalServer) -> None:
    created = run_cli(server.env, "token", "create", "--principal", "never@example.com", "--projects", "*", "--scopes", "read")
    token = created.stdout.strip()
    assert run_cli(server.env, "token", "revoke", "tk_" + token.split("_")[1]).returncode == 0
    assert rpc(server, token, "tools/list").status_code == 401
