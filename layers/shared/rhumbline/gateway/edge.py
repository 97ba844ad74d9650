"""The thin HTTP layer in front of the SDK's Streamable HTTP app.

It answers what the SDK would answer badly for a stateless Lambda: an unauthenticated request (401
with a proper WWW-Authenticate challenge), a GET (the SDK would open an SSE stream that never ends),
and any path other than the MCP endpoint.
"""

from __future__ import annotations

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from rhumbline.gateway.identity import SCOPE_KEY, identity_from_event

MCP_PATH = "/mcp"
REALM = "rhumbline"


def bearer_challenge(reason: str, description: str) -> str:
    # RFC 6750 §3.1: a request that sent no credentials gets no error code, only the challenge.
    if reason in ("missing", "no_context"):
        return f'Bearer realm="{REALM}"'
    return f'Bearer realm="{REALM}", error="invalid_token", error_description="{description}"'


class GatewayEdge:
    def __init__(self, app: ASGIApp, path: str = MCP_PATH) -> None:
        self.app = app
        self.path = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["path"].rstrip("/") != self.path:
            response = JSONResponse({"error": "not_found", "message": f"no such endpoint; MCP is served at {self.path}"}, 404)
            await response(scope, receive, send)
            return
        # HTTP API Lambda authorizers cannot put headers on their own denials (a simple-response
        # `false` becomes a bare 403), so the authorizer always lets the request through with its
        # verdict as context, and this layer answers the 401 with the challenge clients expect.
        identity = identity_from_event(scope.get("aws.event"))
        if not identity.authenticated:
            description = identity.description()
            response = JSONResponse(
                {"error": "invalid_token", "error_description": description},
                401,
                headers={"WWW-Authenticate": bearer_challenge(identity.reason, description)},
            )
            await response(scope, receive, send)
            return
        # Read once per request: tools/list and tools/call take it from the scope (identity_of_scope).
        scope[SCOPE_KEY] = identity
        if scope["method"] != "POST":
            response = JSONResponse(
                {"error": "method_not_allowed", "message": "this stateless MCP endpoint only accepts POST"},
                405,
                headers={"Allow": "POST"},
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)
