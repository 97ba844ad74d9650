"""The thin HTTP layer: 404 for other paths, 401 without an authenticated verdict (naming the
protected-resource metadata), the metadata itself, 400 for a meaningless toolset, 405 for GET."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from rhumbline.config import Settings
from rhumbline.gateway.edge import GatewayEdge
from rhumbline.gateway.identity import SCOPE_KEY, Identity, identity_of_scope
from rhumbline.gateway.resource_metadata import bearer_challenge
from rhumbline.gateway.toolsets import SELECTION_KEY, Selection

SETTINGS = Settings(oidc_issuer="https://issuer.example/pool", oidc_scope_prefix="rhumbline/")
HOST = [(b"host", b"abc.execute-api.eu-west-1.amazonaws.com"), (b"x-forwarded-proto", b"https")]
METADATA = "https://abc.execute-api.eu-west-1.amazonaws.com/.well-known/oauth-protected-resource/mcp"

AUTHENTICATED = {"authenticated": "true", "principal": "a", "token_id": "tk_1", "projects": "*", "scopes": "read"}


async def inner_app(scope: dict, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 299, "headers": []})
    await send({"type": "http.response.body", "body": b"inner"})


def exchange(app: Any, scope: dict, settings: Settings = SETTINGS) -> list[dict]:
    """The messages the edge in front of `app` sends for one empty-bodied request."""
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    asyncio.run(GatewayEdge(app, settings)(scope, receive, send))
    return sent


def request(
    method: str, path: str, authorizer: dict | None, headers: list | None = None, query: bytes = b""
) -> tuple[int, dict[str, str], bytes]:
    event = {"requestContext": {"authorizer": {"lambda": authorizer}}} if authorizer is not None else {}
    scope = {"type": "http", "method": method, "path": path, "headers": HOST + (headers or []), "query_string": query, "aws.event": event}
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

    event = {"requestContext": {"authorizer": {"lambda": AUTHENTICATED}}}
    exchange(recording_app, {"type": "http", "method": "POST", "path": "/mcp", "headers": [], "aws.event": event})
    identity = seen[0][SCOPE_KEY]
    assert isinstance(identity, Identity) and identity.caller is not None
    assert identity.caller.principal == "a"
    # The handlers read that one; without the edge they read the event themselves.
    assert identity_of_scope(seen[0]) is identity
    assert identity_of_scope({"aws.event": event}).caller == identity.caller
    assert identity_of_scope({"aws.event": {}}).reason == "no_context"


def test_a_refused_request_reaches_no_handler_and_leaves_no_identity() -> None:
    seen: list[dict] = []

    async def recording_app(scope: dict, receive: Any, send: Any) -> None:
        seen.append(scope)

    refused = {"requestContext": {"authorizer": {"lambda": {"authenticated": "false", "reason": "revoked"}}}}
    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": [], "aws.event": refused}
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
    status, headers, body = request("POST", "/mcp", {"authenticated": "false", "reason": "expired"})
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
    sent = exchange(inner_app, {"type": "http", "method": "POST", "path": "/mcp", "headers": HOST, "aws.event": {}}, settings)
    challenge = dict(sent[0]["headers"])[b"www-authenticate"].decode()
    assert 'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"' in challenge


def test_the_edge_reads_the_selection_from_a_header_the_query_or_the_token() -> None:
    seen: list[dict] = []

    async def recording_app(scope: dict, receive: Any, send: Any) -> None:
        seen.append(scope)
        await inner_app(scope, receive, send)

    def selection(headers: list, query: bytes, authorizer: dict = AUTHENTICATED) -> Selection:
        event = {"requestContext": {"authorizer": {"lambda": authorizer}}}
        scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": headers, "query_string": query, "aws.event": event}
        exchange(recording_app, scope)
        return seen[-1][SELECTION_KEY]

    assert selection([], b"") == Selection()
    assert selection([(b"x-rhumbline-toolsets", b"code, review")], b"toolsets=admin") == Selection(frozenset({"code", "review"}))
    assert selection([], b"toolsets=admin&read_only=true") == Selection(frozenset({"admin"}), read_only=True)
    assert selection([(b"x-rhumbline-read-only", b"1")], b"") == Selection(read_only=True)
    assert selection([], b"", {**AUTHENTICATED, "toolsets": "exploration"}) == Selection(frozenset({"exploration"}))
    assert selection([], b"toolsets=all", {**AUTHENTICATED, "toolsets": "exploration"}) == Selection()


def test_a_meaningless_selection_is_400_with_the_reason() -> None:
    status, _, body = request("POST", "/mcp", AUTHENTICATED, [(b"x-rhumbline-toolsets", b"code,everything")])
    assert status == 400
    assert json.loads(body) == {
        "error": "invalid_toolsets",
        "message": "header x-rhumbline-toolsets: unknown toolset everything; toolsets are code, exploration, review, admin (or all)",
    }
    status, _, body = request("POST", "/mcp", AUTHENTICATED, query=b"read_only=maybe")
    assert (status, json.loads(body)["message"]) == (400, "query parameter read_only: expected true or false, not 'maybe'")
