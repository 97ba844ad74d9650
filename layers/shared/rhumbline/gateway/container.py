"""One event loop per Lambda container, with the SDK's session manager running on it for good.

The session manager's `run()` may be entered once per instance, and rebuilding the server per call
costs milliseconds. Mangum, though, runs each invocation to completion on the calling thread's loop.
So the gateway's ASGI app lives on a long-lived loop in a daemon thread, and `GatewayContainer.bridge`
(the app Mangum runs) hands each request over to it and replays the response.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

START_TIMEOUT_SECONDS = 10.0


class GatewayContainer:
    def __init__(self, app: "ASGIApp", session_manager: "StreamableHTTPSessionManager") -> None:
        self.app = app
        self.session_manager = session_manager
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="rhumbline-gateway", daemon=True)
        self._stop: asyncio.Event | None = None
        self._serving: Any = None

    def start(self) -> "GatewayContainer":
        self._thread.start()
        started = threading.Event()
        self._serving = asyncio.run_coroutine_threadsafe(self._serve(started), self.loop)
        if not started.wait(START_TIMEOUT_SECONDS):
            raise RuntimeError("the MCP session manager did not start")
        return self

    async def _serve(self, started: threading.Event) -> None:
        self._stop = asyncio.Event()
        async with self.session_manager.run():
            started.set()
            await self._stop.wait()

    def stop(self) -> None:
        """Tests and the local server stop a container; Lambda just freezes and discards it."""
        if self._stop is not None:
            self.loop.call_soon_threadsafe(self._stop.set)
            self._serving.result(START_TIMEOUT_SECONDS)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(START_TIMEOUT_SECONDS)

    def lambda_handler(self) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
        """The Lambda handler: Mangum turns the event into a request for `bridge`, and back."""
        from mangum import Mangum

        # lifespan="off": the default runs the app's lifespan per invocation, which would enter the
        # session manager's run() again on the second warm call (it may run once per instance).
        mangum = Mangum(self.bridge, lifespan="off")

        def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
            ensure_thread_loop()
            return mangum(event, context)

        return handler

    async def bridge(self, scope: "Scope", receive: "Receive", send: "Send") -> None:
        # Mangum delivers the whole body in the first message and buffers the whole response
        # (Lambda cannot stream it either), so one request message in, a list of messages out.
        request = await receive()
        handed_over = asyncio.run_coroutine_threadsafe(self._serve_one(scope, request), self.loop)
        for message in await asyncio.wrap_future(handed_over):
            await send(message)

    async def _serve_one(self, scope: "Scope", request: "Message") -> list["Message"]:
        sent: list[Message] = []
        responded = asyncio.Event()
        delivered = False

        async def receive() -> "Message":
            nonlocal delivered
            if not delivered:
                delivered = True
                return request
            # Only a finished response ends the exchange: a premature disconnect would cancel the call.
            await responded.wait()
            return {"type": "http.disconnect"}

        async def send(message: "Message") -> None:
            sent.append(message)
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                responded.set()

        try:
            await self.app(scope, receive, send)
        finally:
            responded.set()
        return sent


def ensure_thread_loop() -> None:
    # Mangum runs on the calling thread's event loop. Lambda calls from the main thread, which has
    # one; the local server and tests call from other threads, or after asyncio.run() closed it.
    try:
        if not asyncio.get_event_loop().is_closed():
            return
    except RuntimeError:
        pass
    asyncio.set_event_loop(asyncio.new_event_loop())
