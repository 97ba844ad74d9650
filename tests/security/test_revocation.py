"""A revoked token stops working on its next request, through a real `rhumbline serve`.

Revocation takes effect at once because nothing caches a verdict: the gateway authenticates every
request in the statement that admits it, which reads the token's row as it is then
(gateway/authentication.py; tests/functional/gateway/test_gateway_metering.py,
test_a_dead_token_is_refused_with_a_401_before_metering_and_dispatch).
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from tests.e2e.conftest import LocalServer, run_cli, start_server  # noqa: F401 - the fixture is used by name


HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json", "MCP-Protocol-Version": "2025-06-18"}


@pytest.fixture(scope="module")
def server(start_server: Any) -> LocalServer:  # noqa: F811
    return start_server("inprocess")


def rpc(server: LocalServer, token: str, method: str, params: dict[str, Any] | None = None) -> httpx.Response:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, **({"params": params} if params is not None else {})}
    return httpx.post(server.url, json=body, headers={**HEADERS, "Authorization": f"Bearer {token}"}, timeout=30)


def test_a_revoked_token_is_refused_on_its_next_request(server: LocalServer) -> None:
    created = run_cli(server.env, "token", "create", "--principal", "leaver@example.com", "--projects", "acme/shop", "--scopes", "read")
    assert created.returncode == 0, created.stderr
    token = created.stdout.strip()
    listing = {"name": "list_projects", "arguments": {}}
    assert rpc(server, token, "tools/call", listing).json()["result"]["isError"] is False
    assert rpc(server, token, "tools/list").status_code == 200

    revoked = run_cli(server.env, "token", "revoke", "tk_" + token.split("_")[1])
    assert revoked.returncode == 0, revoked.stderr
    for method, params in (("tools/call", listing), ("tools/list", None)):
        refused = rpc(server, token, method, params)
        assert refused.status_code == 401, (method, refused.text)
        assert refused.headers["www-authenticate"].startswith("Bearer ")
        assert 'error_description="the token has been revoked"' in refused.headers["www-authenticate"]


def test_a_token_revoked_before_its_first_request_gets_401(server: LocalServer) -> None:
    created = run_cli(server.env, "token", "create", "--principal", "never@example.com", "--projects", "*", "--scopes", "read")
    token = created.stdout.strip()
    assert run_cli(server.env, "token", "revoke", "tk_" + token.split("_")[1]).returncode == 0
    assert rpc(server, token, "tools/list").status_code == 401
