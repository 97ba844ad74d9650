"""The thin HTTP layer: 404 for other paths, 401 without an authenticated verdict, 405 for GET."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from rhumbline.gateway.edge import GatewayEdge, bearer_challenge
from rhumbline.gateway.identity import SCOPE_KEY, Identity, identity_of_scope

AUTHENTICATED = {"authenticated": "true", "principal": "a", "token_id": "tk_1", "projects": "*", "scopes": "read"}


async def inner_app(scope: dict, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 299, "headers": []})
    await send({"type": "http.response.body", "body": b"inner"})


def exchange(app: Any, scope: dict) -> list[dict]:
    """The messages the edge in front of `app` sends for one empty-bodied request."""
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    asyncio.run(GatewayEdge(app)(scope, receive, send))
    return sent


def request(method: str, path: str, authorizer: dict | None) -> tuple[int, dict[str, str], bytes]:
    event = {"requestContext": {"authorizer": {"lambda": authorizer}}} if authorizer is not None else {}
    sent = exchange(inner_app, {"type": "http", "method": method, "path": path, "headers": [], "aws.event": event})
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
        'Bearer realm="rhumbline", error="invalid_token", error_description="the token has expired"'
    )
    assert json.loads(body) == {"error": "invalid_token", "error_description": "the token has expired"}


def test_no_verdict_at_all_is_401_without_an_error_code() -> None:
    status, headers, _ = request("GET", "/mcp", None)
    # Authentication comes before the method check: an anonymous GET learns nothing.
    assert status == 401
    assert headers["www-authenticate"] == 'Bearer realm="rhumbline"'
    assert bearer_challenge("missing", "x") == 'Bearer realm="rhumbline"'
