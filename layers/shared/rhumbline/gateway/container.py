"""One event loop per Lambda container, with the SDK's session manager running on it for good.

The session manager's `run()` may be entered once per instance, and rebuilding the server per call
costs milliseconds. So the gateway's ASGI app lives on one long-lived loop, started at init with the
session manager's task on it; each invocation runs its request on that loop from the invoking
thread itself (`DrivenLoop`), with no thread hand-over when calls do not overlap.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rhumbline.gateway.driven_loop import DrivenLoop

if TYPE_CHECKING:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from starlette.types import ASGIApp, Message, Scope

logger = logging.getLogger("rhumbline.gateway")

START_TIMEOUT_SECONDS = 10.0


class GatewayContainer:
    def __init__(self, app: "ASGIApp", session_manager: "StreamableHTTPSessionManager") -> None:
        self.app = app
        self.session_manager = session_manager
        self.driven = DrivenLoop()
        self._stop: asyncio.Event | None = None
        self._serving: asyncio.Task[None] | None = None

    def start(self) -> "GatewayContainer":
        self.driven.run(self._start())
        return self

    async def _start(self) -> None:
        started = asyncio.Event()
        self._stop = asyncio.Event()
        # A task of the loop: it waits, paused between invocations, until the container stops.
        self._serving = asyncio.get_running_loop().create_task(self._serve(started))
        waiting = asyncio.ensure_future(started.wait())
        await asyncio.wait([waiting, self._serving], timeout=START_TIMEOUT_SECONDS, return_when=asyncio.FIRST_COMPLETED)
        if self._serving.done():
            waiting.cancel()
            self._serving.result()  # raises why the session manager could not start
            raise RuntimeError("the MCP session manager stopped as soon as it started")
        if not started.is_set():
            waiting.cancel()
            raise RuntimeError("the MCP session manager did not start")

    async def _serve(self, started: asyncio.Event) -> None:
        assert self._stop is not None
        async with self.session_manager.run():
            started.set()
            await self._stop.wait()

    def stop(self) -> None:
        """Tests and the local server stop a container; Lambda just freezes and discards it."""
        if self._stop is not None and self._serving is not None:
            self.driven.run(self._finish())
        self.driven.close()

    async def _finish(self) -> None:
        assert self._stop is not None and self._serving is not None
        self._stop.set()
        await asyncio.wait_for(self._serving, START_TIMEOUT_SECONDS)

    def lambda_handler(self) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
        """The Lambda handler: Mangum translates the event and the response, the loop runs the request.

        Mangum's own HTTPCycle would run the app on the calling thread's loop, and from there the
        request would need a second hand-over to this loop (and back) to reach the session manager:
        one loop spin and two thread hops per call for nothing. So only Mangum's translation is used
        (`infer` for the event -> scope + body, the adapter's `__call__` for the response).
        """
        from mangum import Mangum

        # lifespan="off": the default runs the app's lifespan per invocation, which would enter the
        # session manager's run() again on the second warm call (it may run once per instance).
        mangum = Mangum(self.app, lifespan="off")

        def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
            adapter = mangum.infer(event, context)
            return adapter(self.driven.run(self.serve_http(adapter.scope, adapter.body)))

        return handler

    async def serve_http(self, scope: "Scope", body: bytes) -> dict[str, Any]:
        """Run one buffered HTTP exchange through the app: Mangum's response dict (status, headers, body).

        Lambda cannot stream a response either, so the whole body is collected. An app that raises
        before answering gives a 500, as Mangum's own cycle would.
        """
        response: dict[str, Any] = {"status": 500, "headers": [], "body": b""}
        chunks: list[bytes] = []
        responded = asyncio.Event()
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
