"""The thin HTTP layer in front of the SDK's Streamable HTTP app.

It answers what the SDK would answer badly for a stateless Lambda: the protected-resource metadata
(RFC 9728, unauthenticated), an unauthenticated request (401 with a challenge naming that
metadata), a token its store could not check (503), a toolset selection that means nothing (400), a GET (the SDK would open an SSE stream
that never ends), and any path other than the MCP endpoint.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from rhumbline.gateway.identity import SCOPE_KEY, UNAVAILABLE, identity_from_event
from rhumbline.gateway.resource_metadata import bearer_challenge, metadata_document, metadata_paths, metadata_url
from rhumbline.gateway.toolsets import SELECTION_KEY, SelectionError, selection_from_request

if TYPE_CHECKING:
    from rhumbline.config import Settings

MCP_PATH = "/mcp"
# What a client is asked to wait when the token store is down.
RETRY_AFTER_SECONDS = 5


def request_headers(scope: Scope) -> dict[str, str]:
    return {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope.get("headers") or ()}


class GatewayEdge:
    def __init__(self, app: ASGIApp, settings: "Settings", path: str = MCP_PATH) -> None:
        self.app = app
        self.settings = settings
        self.path = path
        self.metadata_paths = metadata_paths(path)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"].rstrip("/")
        if path in self.metadata_paths:
            await self.metadata(scope, receive, send)
            return
        if path != self.path:
            response = JSONResponse({"error": "not_found", "message": f"no such endpoint; MCP is served at {self.path}"}, 404)
            await response(scope, receive, send)
            return
        # HTTP API Lambda authorizers cannot put headers on their own denials (a simple-response
        # `false` becomes a bare 403), so the authorizer always lets the request through with its
        # verdict as context, and this layer answers the 401 with the challenge clients expect.
        identity = identity_from_event(scope.get("aws.event"))
        if identity.reason == UNAVAILABLE:
            response = JSONResponse(
                {"error": "temporarily_unavailable", "error_description": identity.description()},
                503,
                headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
            )
            await response(scope, receive, send)
            return
        if not identity.authenticated:
            description = identity.description()
            challenge = bearer_challenge(identity.reason, description, metadata_url(self.settings, scope, self.path))
            response = JSONResponse(
                {"error": "invalid_token", "error_description": description}, 401, headers={"WWW-Authenticate": challenge}
            )
            await response(scope, receive, send)
            return
        try:
            selection = selection_from_request(
                request_headers(scope), scope.get("query_string", b"").decode("latin-1"), identity.toolsets
            )
        except SelectionError as error:
            await JSONResponse({"error": "invalid_toolsets", "message": str(error)}, 400)(scope, receive, send)
            return
        # Read once per request: tools/list and tools/call take them from the scope.
        scope[SCOPE_KEY] = identity
        scope[SELECTION_KEY] = selection
        if scope["method"] != "POST":
            response = JSONResponse(
                {"error": "method_not_allowed", "message": "this stateless MCP endpoint only accepts POST"},
                405,
                headers={"Allow": "POST"},
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)

    async def metadata(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] not in ("GET", "HEAD"):
            response = JSONResponse({"error": "method_not_allowed", "message": "GET the metadata"}, 405, headers={"Allow": "GET"})
        else:
            document = metadata_document(self.settings, scope, self.path)
            # Public and the same for every caller: clients and CDNs may keep it for an hour.
            response = JSONResponse(document, headers={"Cache-Control": "public, max-age=3600"})
        await response(scope, receive, send)
