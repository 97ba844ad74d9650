"""`rhumbline serve` end to end: real MCP clients of both protocol generations over HTTP."""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from tests.e2e.conftest import LocalServer, run_cli

from rhumbline.runtime.spec import all_specs, load_spec

TOOL_NAMES = [spec.name for spec in all_specs()]

# The e2e token is read-only: tools/list shows it the tools that need only `read`.
READ_TOOLS = [name for name in TOOL_NAMES if load_spec(name).scope == "read"]

SEARCH_HIT = {
    "kind": "Class",
    "id": "class:pkg/shop.py:Cart",
    "name": "Cart",
    "qualified_name": "shop.Cart",
    "file": "pkg/shop.py",
    "line": 4,
    "snippet": "A shopping cart.",
    "project": "acme/shop",
    "match": "exact",
}


@pytest.fixture(scope="module", params=["inprocess", "invoke-api"])
def server(request: pytest.FixtureRequest, start_server: Any) -> LocalServer:
    return start_server(request.param)


def sdk_session(server: LocalServer, mode: str) -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {server.token}"}, timeout=30)
    return Client(streamable_http_client(server.url, http_client=http), mode=mode)


async def list_and_call(server: LocalServer, mode: str) -> dict[str, Any]:
    async with sdk_session(server, mode) as client:
        tools = await client.list_tools()
        projects = await client.call_tool("list_projects", {})
        search = await client.call_tool("search", {"query": "Cart", "project": "acme/shop", "limit": 1})
        denied = await client.call_tool("search", {"query": "Cart", "project": "other/repo"})
        hidden = await client.call_tool("add_annotation", {"project": "acme/shop", "node_id": "x", "content": "n"})
        return {
            "version": client.protocol_version,
            "tools": [tool.name for tool in tools.tools],
            "projects": projects.structured_content,
            "search": search.structured_content,
            "denied": (denied.is_error, denied.content[0].text),
            "hidden": (hidden.is_error, hidden.content[0].text),
        }


@pytest.mark.parametrize(("mode", "version"), [("auto", "2026-07-28"), ("legacy", "2025-11-25")])
def test_the_sdk_client_lists_and_calls_tools(server: LocalServer, mode: str, version: str) -> None:
    seen = anyio.run(list_and_call, server, mode)
    assert seen["version"] == version
    assert seen["tools"] == READ_TOOLS  # what a read-only token may call, in registry order
    [project] = seen["projects"]["projects"]
    assert (project["slug"], project["node_count"], project["edge_count"]) == ("acme/shop", 7, 7)
    assert project["last_build"]["status"] == "completed"
    assert seen["projects"]["total"] == 1
    [hit] = seen["search"]["hits"]
    assert {key: value for key, value in hit.items() if key != "score"} == SEARCH_HIT
    assert seen["denied"] == (True, "forbidden: this token has no access to project 'other/repo'")
    # Not listed for this token, yet callable by name: the call gets the scope error, as before.
    assert seen["hidden"] == (True, "forbidden: this token lacks the 'write' scope")


async def listed_tools(server: LocalServer, token: str, mode: str) -> list[str]:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
    async with Client(streamable_http_client(server.url, http_client=http), mode=mode) as client:
        return [tool.name for tool in (await client.list_tools()).tools]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_tools_list_follows_the_token_scopes(server: LocalServer, mode: str) -> None:
    def token(scopes: str) -> str:
        created = run_cli(server.env, "token", "create", "--principal", "e2e@example.com", "--projects", "acme/shop",
                          "--scopes", scopes)  # fmt: skip
        assert created.returncode == 0, created.stderr
        return created.stdout.strip()

    everything = anyio.run(listed_tools, server, token("read,write,cypher"), mode)
    assert everything == [name for name in TOOL_NAMES if load_spec(name).scope != "admin"]
    assert anyio.run(listed_tools, server, token("admin"), mode) == list(TOOL_NAMES)
    with_cypher = anyio.run(listed_tools, server, token("read,cypher"), mode)
    assert with_cypher == [name for name in TOOL_NAMES if load_spec(name).scope in ("read", "cypher")]
    assert "query" in with_cypher and "ingest" not in with_cypher
    assert anyio.run(listed_tools, server, server.token, mode) == READ_TOOLS


def test_a_2025_06_18_client_speaking_json_rpc(server: LocalServer) -> None:
    """The handshake exactly as a 2025-06-18 client (Claude Code, MCP Inspector) sends it."""
    headers = {
        "Authorization": f"Bearer {server.token}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
    }
    with httpx.Client(base_url=server.base, headers=headers, timeout=30) as http:
        init = http.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "1"}}})
        assert init.status_code == 200
        assert init.json()["result"]["protocolVersion"] == "2025-06-18"
        assert "mcp-session-id" not in init.headers  # stateless
        versioned = {"MCP-Protocol-Version": "2025-06-18"}
        initialized = http.post("/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=versioned)
        assert initialized.status_code == 202
        tools = http.post("/mcp", json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=versioned)
        assert [tool["name"] for tool in tools.json()["result"]["tools"]] == READ_TOOLS
        called = http.post("/mcp", headers=versioned, json={"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                                                            "params": {"name": "list_projects", "arguments": {}}})
        result = called.json()["result"]
        assert result["isError"] is False
        assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
        assert result["structuredContent"]["projects"][0]["slug"] == "acme/shop"


def test_http_refusals(server: LocalServer) -> None:
    # The gateway answers every 401, with or without a token, naming the protected-resource metadata.
    metadata = f'resource_metadata="{server.base}/.well-known/oauth-protected-resource/mcp"'
    missing = httpx.post(server.url, json={})
    assert (missing.status_code, missing.json()["error_description"]) == (401, "no bearer token was sent")
    assert missing.headers["www-authenticate"] == f'Bearer realm="rhumbline", {metadata}'
    invalid = httpx.post(server.url, json={}, headers={"Authorization": "Bearer rhl_abcdefghij_" + "x" * 43})
    assert invalid.status_code == 401
    assert invalid.headers["www-authenticate"] == (
        f'Bearer realm="rhumbline", {metadata}, error="invalid_token", error_description="the token is not recognized"'
    )
    get = httpx.get(server.url, headers={"Authorization": f"Bearer {server.token}"})
    assert (get.status_code, get.headers["allow"]) == (405, "POST")
    elsewhere = httpx.post(f"{server.base}/other", headers={"Authorization": f"Bearer {server.token}"})
    assert (elsewhere.status_code, elsewhere.json()) == (404, {"message": "Not Found"})


def test_every_call_is_audited(server: LocalServer) -> None:
    from sqlalchemy import create_engine, text

    engine = create_engine(f"sqlite:///{server.home / 'rhumbline.sqlite3'}")
    with engine.connect() as connection:
        rows = connection.execute(text("SELECT principal, tool, outcome FROM audit_log")).all()
    engine.dispose()
    assert ("e2e@example.com", "search", "denied") in rows
    assert ("e2e@example.com", "list_projects", "ok") in rows


def test_token_cli_lists_without_secrets(server: LocalServer) -> None:
    listed = server.cli("token", "list")
    assert listed.returncode == 0
    lines = listed.stdout.splitlines()
    assert lines[0].split() == [
        "ID", "PRINCIPAL", "PROJECTS", "SCOPES", "RATE", "LIMIT", "QUOTA", "CREATED", "EXPIRES", "REVOKED", "LAST", "USED",
    ]  # fmt: skip
    assert "e2e@example.com" in lines[1] and "acme/shop" in lines[1]
    assert server.token not in listed.stdout


def test_the_dispatch_path_is_the_one_asked_for(server: LocalServer) -> None:
    anyio.run(list_and_call, server, "auto")
    access_log = server.log.read_text()
    through_invoke_api = '"POST /2015-03-31/functions/rhumbline-local-tool-search/invocations HTTP/1.1" 200' in access_log
    assert through_invoke_api == (server.dispatch == "invoke-api")
    assert '"POST /mcp HTTP/1.1" 200' in access_log
