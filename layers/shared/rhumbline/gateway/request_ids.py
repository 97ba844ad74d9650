"""JSON-RPC request ids the SDK would mistake for notifications: refused as Invalid Request.

MCP requires a request's `id` to be a string or an integer, never null. The SDK takes a message
whose `id` is null, an object, a list, a boolean or a fraction for a notification and answers 202
with no body: the client then waits for an answer that never comes. This layer answers such a
message with the JSON-RPC error (-32600, HTTP 400) instead, before the SDK sees it.
"""

from __future__ import annotations

from typing import Any

import pydantic_core
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

INVALID_REQUEST = -32600


def bad_id(message: Any) -> str | None:
    """Why `message`'s id is unacceptable, or None (a valid id, or no id: a notification)."""
    if not isinstance(message, dict) or "id" not in message:
        return None
    value = message["id"]
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return None
    kinds = {type(None): "null", dict: "an object", list: "an array", bool: "a boolean", float: "a fraction"}
    kind = kinds.get(type(value), type(value).__name__)
    return f"Invalid Request: `id` must be a string or an integer, not {kind}"


class RequestIdCheck:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        messages: list[Message] = []
        body = b""
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            if not message.get("more_body", False):
                break
        try:
            reason = bad_id(pydantic_core.from_json(body)) if body else None
        except ValueError:
            reason = None  # not JSON: the SDK answers its own parse error
        if reason is not None:
            error = {"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": reason}}
            await JSONResponse(error, 400)(scope, receive, send)
            return

        async def replay() -> Message:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)
