"""The container's Lambda handler: Mangum translates, one long-lived loop serves every request."""

from __future__ import annotations

import asyncio
import base64
import subprocess
import sys
import textwrap
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from rhumbline.gateway.container import GatewayContainer

EVENT = {
    "version": "2.0",
    "routeKey": "POST /mcp",
    "rawPath": "/mcp",
    "rawQueryString": "",
    "headers": {"content-type": "application/json", "host": "example.test"},
    "requestContext": {
        "http": {"method": "POST", "path": "/mcp", "protocol": "HTTP/1.1", "sourceIp": "203.0.113.9"},
        "requestId": "req-1",
        "routeKey": "POST /mcp",
        "stage": "$default",
    },
    "body": '{"hello": "world"}',
    "isBase64Encoded": False,
}


def event(request_id: str, body: str = '{"hello": "world"}') -> dict[str, Any]:
    return {**EVENT, "body": body, "requestContext": {**EVENT["requestContext"], "requestId": request_id}}


class CountingSessionManager:
    """Stands in for the SDK's session manager, whose `run()` may be entered once per instance."""

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.entered = 0
        self.exited = 0

    @asynccontextmanager
    async def run(self) -> AsyncIterator[None]:
        if self.entered:
            raise RuntimeError("run() can only be called once per instance")
        self.entered += 1
        if self.fail:
            raise RuntimeError("cannot start")
        try:
            yield
        finally:
            self.exited += 1


def start(app: Any) -> tuple[GatewayContainer, CountingSessionManager]:
    manager = CountingSessionManager()
    return GatewayContainer(app, manager).start(), manager  # type: ignore[arg-type]


def test_warm_invocations_reuse_one_loop_and_one_session_manager_run() -> None:
    loops: set[int] = set()
    threads: set[str] = set()

    async def app(scope: dict, receive: Any, send: Any) -> None:
        loops.add(id(asyncio.get_running_loop()))
        threads.add(threading.current_thread().name)
        request = await receive()
        assert scope["aws.event"]["requestContext"]["requestId"] == "req-1"
        await send({"type": "http.response.start", "status": 201, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": b'{"echo": ', "more_body": True})
        await send({"type": "http.response.body", "body": request["body"] + b"}"})

    container, manager = start(app)
    try:
        handler = container.lambda_handler()
        for _ in range(3):
            result = handler(EVENT, None)
            body = base64.b64decode(result["body"]).decode() if result["isBase64Encoded"] else result["body"]
            assert (result["statusCode"], body) == (201, '{"echo": {"hello": "world"}}')
            assert result["headers"]["content-type"] == "application/json"
        assert (manager.entered, manager.exited) == (1, 0)
    finally:
        container.stop()
    assert len(loops) == 1 and threads == {"rhumbline-gateway"}
    # Stopping the container leaves the session manager's run().
    assert (manager.entered, manager.exited) == (1, 1)


def test_an_app_that_fails_before_answering_gives_a_500() -> None:
    async def app(scope: dict, receive: Any, send: Any) -> None:
        raise RuntimeError("boom")

    container, _ = start(app)
    try:
        result = container.lambda_handler()(EVENT, None)
    finally:
        container.stop()
    assert result["statusCode"] == 500
    assert result["body"] == "Internal Server Error"


def test_a_session_manager_that_cannot_start_fails_the_start() -> None:
    async def app(scope: dict, receive: Any, send: Any) -> None:
        raise AssertionError("never served")

    container = GatewayContainer(app, CountingSessionManager(fail=True))  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match="cannot start"):
        container.start()
    with pytest.raises(RuntimeError, match="the gateway container is not running"):
        container.lambda_handler()(EVENT, None)


def test_overlapping_invocations_from_several_threads_all_complete() -> None:
    """The local runner calls one container from several threads at once."""
    inside = threading.Barrier(4, timeout=10)

    async def app(scope: dict, receive: Any, send: Any) -> None:
        request = await receive()
        # Every request is in flight at once before any answers: the calls really overlap.
        await anyio.to_thread.run_sync(inside.wait)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": request["body"]})

    container, manager = start(app)
    handler = container.lambda_handler()
    answers: dict[int, Any] = {}

    def invoke(index: int) -> None:
        answers[index] = handler(event(f"r{index}", f'{{"n": {index}}}'), None)

    try:
        workers = [threading.Thread(target=invoke, args=(index,)) for index in range(4)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(15)
    finally:
        container.stop()
    bodies = {index: (answer["statusCode"], answer["body"]) for index, answer in answers.items()}
    assert bodies == {index: (200, f'{{"n": {index}}}') for index in range(4)}
    assert manager.entered == 1


def test_a_slow_request_does_not_hold_up_another_ones_answer() -> None:
    slow_entered = threading.Event()
    release_slow = threading.Event()

    async def app(scope: dict, receive: Any, send: Any) -> None:
        request = await receive()
        if scope["aws.event"]["requestContext"]["requestId"] == "slow":
            slow_entered.set()
            await anyio.to_thread.run_sync(release_slow.wait, 10)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": request["body"]})

    container, _ = start(app)
    handler = container.lambda_handler()
    answers: dict[str, Any] = {}
    slow = threading.Thread(target=lambda: answers.update(slow=handler(event("slow"), None)))
    try:
        slow.start()
        assert slow_entered.wait(10)
        # Answered while the slow request is still in flight.
        assert handler(event("fast"), None)["statusCode"] == 200
        assert slow.is_alive() and "slow" not in answers
        release_slow.set()
        slow.join(10)
        assert answers["slow"]["statusCode"] == 200
    finally:
        release_slow.set()
        container.stop()


def test_a_container_nobody_stops_does_not_hold_up_the_process_exit() -> None:
    """Lambda never stops its container, nor does a `rhumbline serve` that is interrupted."""
    script = textwrap.dedent("""
        from rhumbline.gateway.container import GatewayContainer
        from tests.unit.gateway.test_gateway_container import EVENT, CountingSessionManager

        async def app(scope, receive, send):
            await receive()
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})

        container = GatewayContainer(app, CountingSessionManager()).start()
        print(container.lambda_handler()(EVENT, None)["body"])
    """)
    repository = Path(__file__).resolve().parents[3]
    done = subprocess.run([sys.executable, "-c", script], cwd=repository, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout.strip()) == (0, "ok"), done.stderr


def test_building_the_lambda_handler_gives_no_event_loop_deprecation_warning() -> None:
    """Lambda imports the gateway on its main thread, where no loop is set: Mangum's probe of it
    must not warn (a DeprecationWarning on 3.12+, an error once the warnings are errors)."""
    script = textwrap.dedent("""
        from rhumbline.gateway.container import GatewayContainer
        from tests.unit.gateway.test_gateway_container import EVENT, CountingSessionManager

        async def app(scope, receive, send):
            await receive()
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})

        container = GatewayContainer(app, CountingSessionManager()).start()
        print(container.lambda_handler()(EVENT, None)["body"])
    """)
    repository = Path(__file__).resolve().parents[3]
    command = [sys.executable, "-W", "error::DeprecationWarning", "-c", script]
    done = subprocess.run(command, cwd=repository, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout.strip()) == (0, "ok"), done.stderr
