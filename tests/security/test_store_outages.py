"""Issue 15, item 5: PostgreSQL down is an `unavailable` naming the store, never `internal_error`.

A real PostgreSQL sits behind a TCP proxy the test cuts (connections reset, then refused: what
a crashed or unreachable database gives). Through the real local API stack (API Gateway stand-in,
gateway, tool functions in-process):
- a call to any tool with a token that worked just before the cut: the gateway cannot check it,
  and answers a clear 503 with Retry-After (not a bare 500, not a 401 that would call the token
  bad), never dispatching the call;
- each tool function invoked directly, as the gateway invokes it, with PostgreSQL down:
  `unavailable` naming PostgreSQL, except the tools that read only the graph store, which answer;
- a token not seen before: the same 503;
- once PostgreSQL is back, that very token is served.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import make_url

from rhumbline.local.functions import FunctionRunner
from rhumbline.local.server import LocalApi, configure_dispatch
from rhumbline.local.template import load_template
from rhumbline.runtime import resources
from rhumbline.runtime.spec import all_specs
from tests.functional.gateway.gateway_harness import legacy_request
from tests.security.tcp_proxy import TcpProxy
from tests.security.tool_arguments import valid_arguments

TEMPLATE = Path(__file__).resolve().parents[2] / "template.yaml"
PYPROJ = Path(__file__).resolve().parents[1] / "fixtures" / "ingest" / "pyproj"
GRAPH_ONLY = {"search", "trace_path", "blast_radius"}
UNAVAILABLE = {
    "error": "temporarily_unavailable",
    "error_description": "the token could not be checked (the token store or the OAuth issuer is unreachable); retry in a few seconds",
}
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json",
           "mcp-protocol-version": "2025-06-18"}  # fmt: skip


class Stack:
    def __init__(self, api: LocalApi, proxy: TcpProxy, project: str, tree: Path) -> None:
        self.api, self.proxy, self.project, self.tree = api, proxy, project, tree

    def post(self, token: str, body: dict[str, Any]) -> httpx.Response:
        async def send() -> httpx.Response:
            transport = httpx.ASGITransport(app=self.api)
            async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8080", timeout=60) as client:
                return await client.post("/mcp", json=body, headers={**HEADERS, "authorization": f"Bearer {token}"})

        return asyncio.run(send())

    def call(self, token: str, tool: str, arguments: dict[str, Any]) -> tuple[int, dict[str, Any] | None]:
        message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
        response = self.post(token, message)
        return response.status_code, (response.json().get("result") if response.status_code == 200 else None)


def _token(scopes: list[str]) -> str:
    from rhumbline.stores.relational import tokens
    from rhumbline.stores.relational.session import session_scope

    with session_scope(resources.relational_engine()) as session:
        plaintext, _ = tokens.create(session, principal="outage@example.com", projects=["*"], scopes=scopes)
    return plaintext


@pytest.fixture
def stack(postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Stack]:
    from tests.pg_database import fresh_database_url

    url, drop = fresh_database_url(postgres_url, f"rhumbline_outage_{uuid.uuid4().hex[:8]}")
    server = make_url(url)
    proxy = TcpProxy((server.host or "127.0.0.1", server.port or 5432)).start()
    tree = tmp_path / "pyproj"
    shutil.copytree(PYPROJ, tree)
    for name, value in {
        "RHUMBLINE_HOME": str(tmp_path / "home"), "RHUMBLINE_MODE": "local", "RHUMBLINE_GRAPH_BACKEND": "sqlite",
        "RHUMBLINE_GRAPH_PATH": str(tmp_path / "graph.sqlite3"), "RHUMBLINE_INGEST_ROOTS": str(tmp_path),
        "RHUMBLINE_DATABASE_URL": server.set(port=proxy.port).render_as_string(hide_password=False),
        # Short, so a cut connection is given up on in seconds rather than the default ten.
        "RHUMBLINE_DB_TIMEOUT": "3",
    }.items():  # fmt: skip
        monkeypatch.setenv(name, value)
    resources.reset()
    template = load_template(TEMPLATE)
    monkeypatch.setenv("RHUMBLINE_DISPATCH", "inprocess")
    configure_dispatch(template, "inprocess", "127.0.0.1", 8080)
    from rhumbline.ingest.pipeline import ingest_local

    project = f"acme/outage{uuid.uuid4().hex[:6]}"
    ingest_local(tree, project, store=resources.graph_store(), engine=resources.relational_engine())
    try:
        yield Stack(LocalApi(template, FunctionRunner(template)), proxy, project, tree)
    finally:
        proxy.cut()
        # The gateway function's module keeps its container (built for this test's settings).
        entry = sys.modules.pop("rhumbline.gateway.lambda_entry", None)
        if entry is not None:
            entry.container.stop()
        resources.reset()
        drop()


def test_every_tool_answers_unavailable_naming_postgresql(stack: Stack) -> None:
    token = _token(["admin"])
    status, listed = stack.call(token, "list_projects", {})
    assert status == 200 and not listed["isError"], listed
    arguments = valid_arguments(stack.project, str(stack.tree))
    tools = sorted(spec.name for spec in all_specs())
    assert not set(tools) - set(arguments), "add the new tools to tests/security/tool_arguments.py"

    stack.proxy.cut()
    for tool in tools:
        response = stack.post(token, legacy_request("tools/call", {"name": tool, "arguments": arguments[tool]}))
        assert (response.status_code, response.headers["retry-after"]) == (503, "5"), (tool, response.text)
        assert response.json() == UNAVAILABLE, (tool, response.text)

    answers = {tool: _invoke(tool, arguments[tool]) for tool in tools}
    for tool, outcome in answers.items():
        if outcome["ok"]:
            # Named a project, these read the graph store only (and blast_radius its cached scores).
            assert tool in GRAPH_ONLY, (tool, outcome)
            continue
        message = f"{outcome['error']['code']}: {outcome['error']['message']}"
        assert message.startswith("unavailable: the relational store (PostgreSQL) is unavailable"), (tool, message)
        assert str(stack.proxy.port) not in message, (tool, message)
    assert len([tool for tool, outcome in answers.items() if not outcome["ok"]]) >= len(tools) - len(GRAPH_ONLY)

    stack.proxy.restore()
    status, listed = stack.call(token, "list_projects", {})
    assert status == 200 and not listed["isError"], listed


def _invoke(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The tool function's outcome for an invocation from the gateway (an admin caller)."""
    from rhumbline.contract import INVOCATION_CONTRACT
    from rhumbline.runtime.handler import handle

    caller = {"principal": "outage@example.com", "token_id": "tk_outage", "projects": ["*"], "scopes": ["admin"]}
    return handle(tool, {"contract": INVOCATION_CONTRACT, "tool": tool, "arguments": arguments, "caller": caller,
                         "request_id": f"req-{uuid.uuid4().hex[:8]}", "deadline_ms": int((time.time() + 60) * 1000)})  # fmt: skip


def test_an_uncached_token_gets_a_clear_503_then_works_once_postgresql_is_back(stack: Stack) -> None:
    token = _token(["read"])
    stack.proxy.cut()
    response = stack.post(token, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert response.status_code == 503, response.text
    assert response.headers["retry-after"] == "5"
    assert response.json() == UNAVAILABLE
    # The gateway checks the token on every request: the caller is served as soon as the store is back.
    stack.proxy.restore()
    status, listed = stack.call(token, "list_projects", {})
    assert status == 200 and not listed["isError"], listed
    assert stack.post("rhl_aaaaaaaaaa_" + "b" * 43, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).status_code == 401
