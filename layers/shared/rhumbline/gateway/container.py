"""One event loop per Lambda container, with the SDK's session manager running on it for good.

The session manager's `run()` may be entered once per instance, and rebuilding the server per call
costs milliseconds. So the gateway's ASGI app lives on one long-lived loop in a thread of its own
(anyio's blocking portal), where the session manager is entered at init; each invocation hands its
request to that loop through the portal and waits for the response.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

import anyio
from anyio.from_thread import BlockingPortal, start_blocking_portal

if TYPE_CHECKING:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from starlette.types import ASGIApp, Message, Scope

logger = logging.getLogger("rhumbline.gateway")


class GatewayContainer:
    def __init__(self, app: "ASGIApp", session_manager: "StreamableHTTPSessionManager") -> None:
        self.app = app
        self.session_manager = session_manager
        self._running = ExitStack()
        self._portal: BlockingPortal | None = None

    def start(self) -> "GatewayContainer":
        """Start the loop thread and enter the session manager's `run()` on it, once."""
        try:
            portal = self._running.enter_context(start_blocking_portal(name="rhumbline-gateway"))
            self._running.enter_context(portal.wrap_async_context_manager(self.session_manager.run()))
        except BaseException:
            self._running.close()
            raise
        self._portal = portal
        return self

    def stop(self) -> None:
        """Tests and the local server stop a container; Lambda just freezes and discards it."""
        self._portal = None
        self._running.close()

    @property
    def portal(self) -> BlockingPortal:
        if self._portal is None:
            raise RuntimeError("the gateway container is not running")
        return self._portal

    def lambda_handler(self) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
        """The Lambda handler: Mangum translates the event and the response, the loop runs the request.

        Mangum's own HTTP cycle would run the app on a loop of the calling thread, from which the
        request would still have to reach this loop, where the session manager runs. So only
        Mangum's translation is used: `infer` for the event -> scope + body, the adapter's
        `__call__` for the response.
        """
        from mangum import Mangum

        # lifespan="off": the default runs the app's lifespan per invocation, which would enter the
        # session manager's run() again on the second warm call (it may run once per instance).
        mangum = Mangum(self.app, lifespan="off")

        def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
            adapter = mangum.infer(event, context)
            # No timeout here: each tools/call bounds itself (calls.py), and Lambda bounds the rest.
            return adapter(self.portal.call(self.serve_http, adapter.scope, adapter.body))

        return handler

    async def serve_http(self, scope: "Scope", body: bytes) -> dict[str, Any]:
        """Run one buffered HTTP exchange through the app: Mangum's response dict (status, headers, body).

        Lambda cannot stream a response either, so the whole body is collected. An app that raises
        before answering gives a 500, as Mangum's own cycle would.
        """
        response: dict[str, Any] = {"status": 500, "headers": [], "body": b""}
        chunks: list[bytes] = []
        responded = anyio.Event()
        delivered = False

        async def receive() -> "Message":
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            # Only a finished response ends the exchange: a premature disconnect would cancel the call.
            await responded.wait()
            return {"type": "http.disconnect"}

        async def send(message: "Message") -> None:
            if message["type"] == "http.response.start":
                response["status"] = message["status"]
                response["headers"] = list(message.get("headers", []))
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False):
                    responded.set()

        try:
            await self.app(scope, receive, send)
        except Exception:
            logger.exception("the gateway app failed on %s %s", scope.get("method"), scope.get("path"))
            if not responded.is_set():
                plain = [[b"content-type", b"text/plain; charset=utf-8"]]
                return {"status": 500, "headers": plain, "body": b"Internal Server Error"}
        finally:
            responded.set()
        response["body"] = b"".join(chunks)
        return response
