"""The container's Lambda handler: Mangum translates, the container loop runs the request."""

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


def test_the_request_runs_on_the_container_loop_and_comes_back_as_a_proxy_result() -> None:
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
    assert threads == ["rhumbline-gateway", "rhumbline-gateway"]
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
