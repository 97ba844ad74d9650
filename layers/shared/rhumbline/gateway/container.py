"""One event loop per Lambda container, with the SDK's session manager running on it for good.

The session manager's `run()` may be entered once per instance, and rebuilding the server per call
costs milliseconds. So the gateway's ASGI app lives on one long-lived loop in a daemon thread of
its own, where the session manager is entered at init; each invocation hands its request to that
loop with `asyncio.run_coroutine_threadsafe` and waits for the response.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import warnings
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from mangum.types import Response
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from starlette.types import ASGIApp, Message, Scope

logger = logging.getLogger("rhumbline.gateway")

# Entering and leaving the session manager's run() only starts and ends its task group.
START_TIMEOUT_SECONDS = 10.0
STOP_TIMEOUT_SECONDS = 10.0

T = TypeVar("T")


class GatewayContainer:
    def __init__(self, app: "ASGIApp", session_manager: "StreamableHTTPSessionManager") -> None:
        self.app = app
        self.session_manager = session_manager
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> "GatewayContainer":
        """Start the loop thread and enter the session manager's `run()` on it, once."""
        started: Future[asyncio.AbstractEventLoop] = Future()
        # A daemon thread, so a container nobody stops never holds up the process's exit. The loop
        # runs under asyncio.run: its main task (the session manager's) is the root task anyio
        # ties its worker threads to, so they live as long as the container.
        serve = self._serve(started)
        self._thread = threading.Thread(target=asyncio.run, args=(serve,), name="rhumbline-gateway", daemon=True)
        self._thread.start()
        # Raises why the session manager could not start, or TimeoutError.
        self._loop = started.result(START_TIMEOUT_SECONDS)
        return self

    async def _serve(self, started: Future[asyncio.AbstractEventLoop]) -> None:
        self._stop = asyncio.Event()
        try:
            async with self.session_manager.run():
                started.set_result(asyncio.get_running_loop())
                await self._stop.wait()
        except BaseException as error:
            if not started.done():
                started.set_exception(error)
                return
            raise

    def stop(self) -> None:
        """Tests and the local server stop a container; Lambda just freezes and discards it."""
        loop, stop, self._loop = self._loop, self._stop, None
        if loop is not None and stop is not None:
            loop.call_soon_threadsafe(stop.set)
        if self._thread is not None:
            self._thread.join(STOP_TIMEOUT_SECONDS)

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Blocking: run `coroutine` on the container's loop and return its result."""
        if self._loop is None:
            coroutine.close()
            raise RuntimeError("the gateway container is not running")
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

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
        # Mangum's constructor probes the thread's loop with asyncio.get_event_loop(), which warns
        # on 3.12+ when none is set (Kludex/mangum#377); its translation never uses that loop.
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "There is no current event loop", DeprecationWarning)
            # Starlette types an app as returning any awaitable, Mangum as returning a coroutine.
            mangum = Mangum(self.app, lifespan="off")  # type: ignore[arg-type]

        def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
            adapter = mangum.infer(event, context)
            # No timeout here: each tools/call bounds itself (calls.py), and Lambda bounds the rest.
            return adapter(self.run(self.serve_http(adapter.scope, adapter.body)))

        return handler

    async def serve_http(self, scope: "Scope", body: bytes) -> "Response":
        """Run one buffered HTTP exchange through the app: Mangum's response dict (status, headers, body).

        Lambda cannot stream a response either, so the whole body is collected. An app that raises
        before answering gives a 500, as Mangum's own cycle would.
        """
        response: Response = {"status": 500, "headers": [], "body": b""}
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
