"""The thin HTTP layer: 404 for other paths, 401 for a request its authenticator refuses (naming the
protected-resource metadata), the metadata itself, 400 for a meaningless toolset, 405 for GET; a
tool call admitted as one (counted), and the body handed on unchanged. The authenticator here is a
table of tokens: the real one runs against real stores in tests/functional/gateway."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import anyio

from rhumbline.config import Settings
from rhumbline.contract import Caller
from rhumbline.gateway.authentication import bearer_token
from rhumbline.gateway.edge import GatewayEdge
from rhumbline.gateway.identity import SCOPE_KEY, Identity, identity_of_scope
from rhumbline.gateway.resource_metadata import bearer_challenge
from rhumbline.gateway.toolsets import SELECTION_KEY, Selection

SETTINGS = Settings(oidc_issuer="https://issuer.example/pool", oidc_scope_prefix="rhumbline/")
HOST = [(b"host", b"abc.execute-api.eu-west-1.amazonaws.com"), (b"x-forwarded-proto", b"https")]
METADATA = "https://abc.execute-api.eu-west-1.amazonaws.com/.well-known/oauth-protected-resource/mcp"

CALLER = Caller(principal="a", token_id="tk_1", projects=("*",), scopes=("read",))
AUTHENTICATED = "good"
IDENTITIES = {
    AUTHENTICATED: Identity(caller=CALLER, admitted=True),
    "exploring": Identity(caller=CALLER, toolsets=("exploration",), admitted=True),
    "expired": Identity(caller=None, reason="expired"),
}


class TokenTable:
    """An authenticator that knows IDENTITIES, recording what it was asked."""

    def __init__(self) -> None:
        self.asked: list[tuple[str | None, bool]] = []

    def authenticate(self, header: str | None, *, counted: bool) -> Identity:
        self.asked.append((header, counted))
        token, reason = bearer_token(header)
        return IDENTITIES.get(token or "", Identity(caller=None, reason=reason or "unknown"))


async def inner_app(scope: dict, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 299, "headers": []})
    await send({"type": "http.response.body", "body": b"inner"})


def exchange(app: Any, scope: dict, settings: Settings = SETTINGS, body: bytes = b"", table: TokenTable | None = None) -> list[dict]:
    """The messages the edge in front of `app` sends for one request with `body` (in two chunks)."""
    sent: list[dict] = []
    chunks = [body[: len(body) // 2], body[len(body) // 2 :]]

    async def receive() -> dict:
        chunk = chunks.pop(0) if chunks else b""
        return {"type": "http.request", "body": chunk, "more_body": bool(chunks)}

    async def send(message: dict) -> None:
        sent.append(message)

    edge = GatewayEdge(app, settings, table or TokenTable(), anyio.CapacityLimiter(2))  # type: ignore[arg-type]
    asyncio.run(edge(scope, receive, send))
    return sent


def bearer(token: str | None) -> list[tuple[bytes, bytes]]:
    return [(b"authorization", f"Bearer {token}".encode())] if token is not None else []


def request(
    method: str, path: str, token: str | None, headers: list | None = None, query: bytes = b""
) -> tuple[int, dict[str, str], bytes]:
    scope = {"type": "http", "method": method, "path": path, "headers": HOST + bearer(token) + (headers or []), "query_string": query}
    sent = exchange(inner_app, scope)
    headers = {name.decode(): value.decode() for name, value in sent[0]["headers"]}
    return sent[0]["status"], headers, b"".join(message.get("body", b"") for message in sent[1:])


def test_authenticated_post_reaches_the_mcp_app() -> None:
    assert request("POST", "/mcp", AUTHENTICATED)[0] == 299
    assert request("POST", "/mcp/", AUTHENTICATED)[0] == 299


def test_the_edge_leaves_the_identity_it_read_for_the_handlers() -> None:
    seen: list[dict] = []

    async def recording_app(scope: dict, receive: Any, send: Any) -> None:
        seen.append(scope)
        await inner_app(scope, receive, send)

    exchange(recording_app, {"type": "http", "method": "POST", "path": "/mcp", "headers": bearer(AUTHENTICATED)})
    identity = seen[0][SCOPE_KEY]
    assert identity is IDENTITIES[AUTHENTICATED]
    # The handlers read that one; without the edge nobody is calling.
    assert identity_of_scope(seen[0]) is identity
    assert identity_of_scope({}) == Identity(caller=None, reason="missing")


def test_a_tool_call_is_admitted_as_one_and_its_body_reaches_the_app_unchanged() -> None:
    bodies: list[bytes] = []

    async def reading_app(scope: dict, receive: Any, send: Any) -> None:
        message = await receive()
        bodies.append(message["body"])
        await inner_app(scope, receive, send)

    table = TokenTable()
    header = f"Bearer {AUTHENTICATED}"
    for message in (
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "search", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        [{"jsonrpc": "2.0", "id": 3, "method": "tools/call"}],
    ):
        body = json.dumps(message).encode()
        scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": bearer(AUTHENTICATED)}
        assert exchange(reading_app, scope, body=body, table=table)[0]["status"] == 299
        assert bodies[-1] == body
    exchange(reading_app, {"type": "http", "method": "POST", "path": "/mcp", "headers": bearer(AUTHENTICATED)}, body=b"{no", table=table)
    # Only a JSON-RPC tools/call counts in a quota; a batch is not one (the SDK refuses it).
    assert table.asked == [(header, True), (header, False), (header, False), (header, False)]


def test_a_request_without_a_bearer_token_is_refused_without_asking() -> None:
    table = TokenTable()
    for headers in ([], [(b"authorization", b"Basic eDp5")], [(b"authorization", b"Bearer")]):
        scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": HOST + headers}
        assert exchange(inner_app, scope, body=b'{"method": "tools/call"}', table=table)[0]["status"] == 401
    assert table.asked == []


def test_a_refused_request_reaches_no_handler_and_leaves_no_identity() -> None:
    seen: list[dict] = []

    async def recording_app(scope: dict, receive: Any, send: Any) -> None:
        seen.append(scope)

    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": bearer("revoked")}
    sent = exchange(recording_app, scope)
    assert seen == [] and SCOPE_KEY not in scope
    assert sent[0]["status"] == 401


def test_get_and_other_methods_are_405_with_allow() -> None:
    for method in ("GET", "DELETE", "PUT"):
        status, headers, body = request(method, "/mcp", AUTHENTICATED)
        assert (status, headers["allow"]) == (405, "POST")
        assert json.loads(body)["error"] == "method_not_allowed"


def test_other_paths_are_404_json() -> None:
    status, headers, body = request("POST", "/admin", AUTHENTICATED)
    assert status == 404
    assert headers["content-type"] == "application/json"
    assert json.loads(body) == {"error": "not_found", "message": "no such endpoint; MCP is served at /mcp"}


def test_a_refused_token_is_401_with_an_rfc6750_challenge() -> None:
    status, headers, body = request("POST", "/mcp", "expired")
    assert status == 401
    assert headers["www-authenticate"] == (
        f'Bearer realm="rhumbline", resource_metadata="{METADATA}", error="invalid_token", '
        'error_description="the token has expired"'
    )
    assert json.loads(body) == {"error": "invalid_token", "error_description": "the token has expired"}


def test_no_verdict_at_all_is_401_without_an_error_code() -> None:
    status, headers, _ = request("GET", "/mcp", None)
    # Authentication comes before the method check: an anonymous GET learns nothing.
    assert status == 401
    assert headers["www-authenticate"] == f'Bearer realm="rhumbline", resource_metadata="{METADATA}"'
    assert bearer_challenge("missing", "x", "u") == 'Bearer realm="rhumbline", resource_metadata="u"'


def test_the_protected_resource_metadata_is_served_without_a_token_at_both_addresses() -> None:
    for path in ("/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"):
        status, headers, body = request("GET", path, None)
        assert status == 200 and headers["content-type"] == "application/json"
        assert json.loads(body) == {
            "resource": "https://abc.execute-api.eu-west-1.amazonaws.com/mcp",
            "resource_name": "Rhumbline",
            "bearer_methods_supported": ["header"],
            "scopes_supported": ["rhumbline/read", "rhumbline/write", "rhumbline/admin", "rhumbline/cypher"],
            "authorization_servers": ["https://issuer.example/pool"],
        }
    assert request("POST", "/.well-known/oauth-protected-resource/mcp", None)[0] == 405


def test_a_configured_resource_url_wins_over_the_host_and_no_issuer_names_no_server() -> None:
    settings = Settings(resource_url="https://mcp.example.com/mcp")
    scope = {"type": "http", "method": "GET", "path": "/.well-known/oauth-protected-resource/mcp", "headers": HOST}
    sent = exchange(inner_app, scope, settings)
    document = json.loads(sent[1]["body"])
    assert document["resource"] == "https://mcp.example.com/mcp" and "authorization_servers" not in document
    sent = exchange(inner_app, {"type": "http", "method": "POST", "path": "/mcp", "headers": HOST}, settings)
    challenge = dict(sent[0]["headers"])[b"www-authenticate"].decode()
    assert 'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"' in challenge


def test_the_edge_reads_the_selection_from_a_header_the_query_or_the_token() -> None:
    seen: list[dict] = []

    async def recording_app(scope: dict, receive: Any, send: Any) -> None:
        seen.append(scope)
        await inner_app(scope, receive, send)

    def selection(headers: list, query: bytes, token: str = AUTHENTICATED) -> Selection:
        scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": bearer(token) + headers, "query_string": query}
        exchange(recording_app, scope)
        return seen[-1][SELECTION_KEY]

    assert selection([], b"") == Selection()
    assert selection([(b"x-rhumbline-toolsets", b"code, review")], b"toolsets=admin") == Selection(frozenset({"code", "review"}))
    assert selection([], b"toolsets=admin&read_only=true") == Selection(frozenset({"admin"}), read_only=True)
    assert selection([(b"x-rhumbline-read-only", b"1")], b"") == Selection(read_only=True)
    assert selection([], b"", "exploring") == Selection(frozenset({"exploration"}))
    assert selection([], b"toolsets=all", "exploring") == Selection()


def test_a_meaningless_selection_is_400_with_the_reason() -> None:
    status, _, body = request("POST", "/mcp", AUTHENTICATED, [(b"x-rhumbline-toolsets", b"code,everything")])
    assert status == 400
    assert json.loads(body) == {
        "error": "invalid_toolsets",
        "message": "header x-rhumbline-toolsets: unknown toolset everything; toolsets are code, exploration, review, admin (or all)",
    }
    status, _, body = request("POST", "/mcp", AUTHENTICATED, query=b"read_only=maybe")
    assert (status, json.loads(body)["message"]) == (400, "query parameter read_only: expected true or false, not 'maybe'")
