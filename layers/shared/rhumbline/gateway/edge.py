"""The thin HTTP layer in front of the SDK's Streamable HTTP app.

It authenticates every request to the MCP endpoint (gateway/authentication.py) and answers what
the SDK would answer badly for a stateless Lambda: the protected-resource metadata (RFC 9728,
unauthenticated), an unauthenticated request (401 with a challenge naming that metadata), a token
its store or issuer could not check (503), a toolset selection that means nothing (400), a GET (the
SDK would open an SSE stream that never ends), and any path other than the MCP endpoint.

A request's admission is its authentication, so the edge needs to know whether the request is a
tool call (counted in the quota) before the SDK reads it: it reads the JSON-RPC message's method
from the body, then hands the SDK the same body.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
import pydantic_core
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rhumbline.gateway.authentication import Authenticator, bearer_token
from rhumbline.gateway.identity import SCOPE_KEY, UNAVAILABLE, Identity
from rhumbline.gateway.throttle import TOOLS_CALL
from rhumbline.gateway.resource_metadata import bearer_challenge, metadata_document, metadata_paths, metadata_url
from rhumbline.gateway.toolsets import SELECTION_KEY, SelectionError, selection_from_request

if TYPE_CHECKING:
    from rhumbline.config import Settings

MCP_PATH = "/mcp"
# What a client is asked to wait when the token store is down.
RETRY_AFTER_SECONDS = 5


def request_headers(scope: Scope) -> dict[str, str]:
    return {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope.get("headers") or ()}


def is_tool_call(body: bytes) -> bool:
    """Whether the body is a JSON-RPC `tools/call` request; anything else (another method, a batch,
    not JSON) is not counted, and the SDK answers it as it would."""
    try:
        message: Any = pydantic_core.from_json(body)
    except ValueError:
        return False
    return isinstance(message, dict) and message.get("method") == TOOLS_CALL


async def read_body(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that gives the body read already, then whatever the client sends next."""
    delivered = False

    async def again() -> Message:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again


class GatewayEdge:
    def __init__(
        self, app: ASGIApp, settings: "Settings", authenticator: Authenticator, limiter: anyio.CapacityLimiter, path: str = MCP_PATH
    ) -> None:
        self.app = app
        self.settings = settings
        self.authenticator = authenticator
        # The worker threads the gateway's blocking work shares (calls.py): admission runs on one.
        self.limiter = limiter
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
        header = request_headers(scope).get("authorization")
        token, reason = bearer_token(header)
        if token is None:
            # Refused without a query: no bearer token, or not in the header's format.
            await self.answer(Identity(caller=None, reason=reason), scope, receive, send)
            return
        counted = False
        if scope["method"] == "POST":
            body = await read_body(receive)
            receive = replay(body, receive)
            counted = is_tool_call(body)
        identity = await anyio.to_thread.run_sync(
            lambda: self.authenticator.authenticate(header, counted=counted), limiter=self.limiter
        )
        await self.answer(identity, scope, receive, send)

    async def answer(self, identity: Identity, scope: Scope, receive: Receive, send: Send) -> None:
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
