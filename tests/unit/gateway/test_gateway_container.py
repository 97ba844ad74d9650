"""The container's Lambda handler: Mangum translates, the invoking thread drives the container loop."""

from __future__ import annotations

import base64
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

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


class IdleSessionManager:
    """Stands in for the SDK's session manager: `run()` entered once, for the container's life."""

    def __init__(self) -> None:
        self.runs = 0

    @asynccontextmanager
    async def run(self) -> AsyncIterator[None]:
        self.runs += 1
        yield


def start(app: Any) -> tuple[GatewayContainer, IdleSessionManager]:
    manager = IdleSessionManager()
    return GatewayContainer(app, manager).start(), manager  # type: ignore[arg-type]


def test_the_request_runs_on_the_invoking_thread_and_comes_back_as_a_proxy_result() -> None:
    threads: list[str] = []

    async def app(scope: dict, receive: Any, send: Any) -> None:
        threads.append(threading.current_thread().name)
        request = await receive()
        assert scope["aws.event"]["requestContext"]["requestId"] == "req-1"
        await send({"type": "http.response.start", "status": 201, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": b'{"echo": ', "more_body": True})
        await send({"type": "http.response.body", "body": request["body"] + b"}"})

    container, manager = start(app)
    try:
        handler = container.lambda_handler()
        for _ in range(2):
            result = handler(EVENT, None)
            body = base64.b64decode(result["body"]).decode() if result["isBase64Encoded"] else result["body"]
            assert (result["statusCode"], body) == (201, '{"echo": {"hello": "world"}}')
            assert result["headers"]["content-type"] == "application/json"
    finally:
        container.stop()
    # No hand-over: the Lambda's own thread ran the request on the container loop.
    assert threads == [threading.current_thread().name] * 2
    assert manager.runs == 1


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


def test_overlapping_invocations_from_several_threads_all_complete_on_the_one_loop() -> None:
    """The local runner calls one container from several threads: a caller that finds the loop
    driven hands its request over, and the driver keeps the loop running until it is answered."""
    loops: set[int] = set()
    inside = threading.Barrier(4, timeout=10)

    async def app(scope: dict, receive: Any, send: Any) -> None:
        import asyncio

        loops.add(id(asyncio.get_running_loop()))
        request = await receive()
        if scope["aws.event"]["requestContext"]["requestId"] != "warm":
            # Every request is in flight at once before any answers: the calls really overlap.
            await asyncio.get_running_loop().run_in_executor(None, inside.wait)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": request["body"]})

    container, manager = start(app)
    handler = container.lambda_handler()
    answers: dict[int, Any] = {}

    def invoke(index: int) -> None:
        event = {**EVENT, "body": f'{{"n": {index}}}', "requestContext": {**EVENT["requestContext"], "requestId": f"r{index}"}}
        answers[index] = handler(event, None)

    try:
        workers = [threading.Thread(target=invoke, args=(index,)) for index in range(4)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(15)
        # The loop is free again afterwards: the next call drives it alone.
        warm = handler({**EVENT, "requestContext": {**EVENT["requestContext"], "requestId": "warm"}}, None)
    finally:
        container.stop()
    bodies = {index: (answer["statusCode"], answer["body"]) for index, answer in answers.items()}
    assert bodies == {index: (200, f'{{"n": {index}}}') for index in range(4)}
    assert warm["statusCode"] == 200
    assert len(loops) == 1
    assert manager.runs == 1


def test_the_drivers_answer_does_not_wait_for_a_slower_handed_over_request() -> None:
    """A request handed over to the driving thread may outlast the driver's own: the driver answers
    at once and a drain thread keeps the loop running until the slow one is done."""
    fast_entered = threading.Event()
    slow_entered = threading.Event()
    release_slow = threading.Event()

    async def app(scope: dict, receive: Any, send: Any) -> None:
        import asyncio

        request = await receive()
        request_id = scope["aws.event"]["requestContext"]["requestId"]
        loop = asyncio.get_running_loop()
        if request_id == "fast":
            fast_entered.set()
            # Stay in flight until the slow request has been handed over to this loop.
            await loop.run_in_executor(None, slow_entered.wait, 10)
        else:
            slow_entered.set()
            await loop.run_in_executor(None, release_slow.wait, 10)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": request["body"]})

    container, _ = start(app)
    handler = container.lambda_handler()
    answers: dict[str, Any] = {}

    def invoke(request_id: str) -> None:
        answers[request_id] = handler({**EVENT, "requestContext": {**EVENT["requestContext"], "requestId": request_id}}, None)

    fast = threading.Thread(target=invoke, args=("fast",))
    slow = threading.Thread(target=invoke, args=("slow",))
    try:
        fast.start()
        assert fast_entered.wait(10)  # the fast caller drives the loop; the slow one is handed over
        slow.start()
        fast.join(10)
        # The fast caller has its answer while the slow request is still running.
        assert not fast.is_alive() and answers["fast"]["statusCode"] == 200
        assert slow.is_alive() and "slow" not in answers
        release_slow.set()
        slow.join(10)
        assert answers["slow"]["statusCode"] == 200
        # And the loop is free for the next caller.
        invoke("after")
        assert answers["after"]["statusCode"] == 200
    finally:
        release_slow.set()
        container.stop()
