"""A revoked token stops working on its next request, through a real `rhumbline serve`.

The authorizer has no identity source, so API Gateway (and the local stand-in) caches no verdict:
it runs on every request and refuses the revoked token with the OAuth challenge. A tools/call is
checked once more by the gateway in the statement that meters it (gateway/meter.py), which the
functional metering tests prove on their own.
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
    for method, params in (("tools/call", listing), ("tools/list", None)):
        refused = rpc(server, token, method, params)
        assert refused.status_code == 401
        assert refused.headers["www-authenticate"].startswith("Bearer ")
        assert refused.json() == {"error": "invalid_token", "error_description": "the token has been revoked"}
    assert load_template(find_template()).authorizers()[0].identity_headers == ()


def test_a_token_revoked_before_its_first_request_gets_401(server: LocalServer) -> None:
    created = run_cli(server.env, "token", "create", "--principal", "never@example.com", "--projects", "*", "--scopes", "read")
    token = created.stdout.strip()
    assert run_cli(server.env, "token", "revoke", "tk_" + token.split("_")[1]).returncode == 0
    assert rpc(server, token, "tools/list").status_code == 401
