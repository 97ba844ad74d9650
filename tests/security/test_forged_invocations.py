"""Forged Lambda invocations against a real `rhumbline serve`: the local Invoke API trusts no one but its gateway.

The invocation payload names its caller, so a request that reaches a tool function unauthenticated
can claim every project and `admin`. Each case sends exactly what an attacker would: a well-formed
`ToolInvocation` claiming everything, from a script on the machine or from a web page.
"""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import pytest
from tests.e2e.conftest import LocalServer, start_server  # noqa: F401 - the fixture is used by name

FORGED = {
    "contract": "rhumbline.tool-invocation/1",
    "tool": "list_projects",
    "arguments": {},
    "caller": {"principal": "mallory", "token_id": "forged", "projects": ["*"], "scopes": ["admin"]},
    "request_id": "forged-1",
    "deadline_ms": int(time.time() * 1000) + 60_000,
}
INVOKE = "/2015-03-31/functions/{function}/invocations"


@pytest.fixture(scope="module", params=["inprocess", "invoke-api"])
def server(request: pytest.FixtureRequest, start_server: Any) -> LocalServer:  # noqa: F811
    return start_server(request.param)


def forge(server: LocalServer, function: str = "rhumbline-local-tool-list_projects", **headers: str) -> httpx.Response:
    return httpx.post(server.base + INVOKE.format(function=function), content=json.dumps(FORGED), headers=headers, timeout=10)


@pytest.mark.parametrize(
    "function",
    ["rhumbline-local-tool-list_projects", "rhumbline-local-tool-ingest", "AdminFunction", "MigrateFunction",
     "GitHubWebhookFunction"],
)
def test_an_unsigned_invocation_reaches_no_function(server: LocalServer, function: str) -> None:
    response = forge(server, function)
    if server.dispatch == "inprocess":
        # Without --dispatch invoke-api there is no Invoke API at all.
        assert response.status_code == 404
        return
    assert response.status_code in (403, 404)
    assert response.headers["x-amzn-errortype"] in ("InvalidSignatureException", "ResourceNotFoundException")
    assert "mallory" not in response.text and "acme/shop" not in response.text


def test_a_web_page_cannot_drive_the_invoke_api(server: LocalServer) -> None:
    # What a browser sends for a cross-site "simple" request, and what DNS rebinding looks like.
    for headers in (
        {"Origin": "https://evil.example", "Content-Type": "text/plain"},
        {"Host": "evil.example"},
        {"Host": f"rebind.evil.example:{server.base.rsplit(':', 1)[1]}", "Content-Type": "text/plain"},
    ):
        response = forge(server, **headers)
        assert response.status_code in ((404,) if server.dispatch == "inprocess" else (403, 415)), headers
        assert "acme/shop" not in response.text


def test_the_gateway_still_reaches_its_tools(server: LocalServer) -> None:
    """The refusals above are not a broken Invoke API: the signed gateway path answers."""
    initialize = {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "list_projects", "arguments": {}}}
    headers = {"Authorization": f"Bearer {server.token}", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-06-18"}
    with httpx.Client(base_url=server.base, headers=headers, timeout=30) as client:
        assert client.post("/mcp", json=initialize).status_code == 200
        answer = client.post("/mcp", json=call).json()
    assert answer["result"]["structuredContent"]["projects"][0]["slug"] == "acme/shop"
