"""The local API Gateway stand-in: routing, proxy responses, and no authorizer (the gateway
authenticates each request itself)."""

from __future__ import annotations

import asyncio
import base64
from typing import Any

import httpx
import pytest

from rhumbline.local.server import LocalApi
from rhumbline.local.template import TemplateError, load_template
from rhumbline import heap


def request(api: LocalApi, method: str, path: str, **options: Any) -> httpx.Response:
    async def send() -> httpx.Response:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=api), base_url="http://127.0.0.1:8080") as client:
            return await client.request(method, path, **options)

    return asyncio.run(send())


def state(api: LocalApi, function: str) -> dict[str, Any]:
    """The globals of a function's loaded module (to look at what it received)."""
    return api.runner.handler(function).__globals__


def test_a_request_reaches_its_function_with_its_authorization_header(stand_in: LocalApi) -> None:
    response = request(stand_in, "POST", "/echo", json={"a": 1}, headers={"Authorization": "Bearer good"})
    assert response.status_code == 200
    assert response.headers["x-echo"] == "1"
    assert response.headers["set-cookie"] == "seen=1"
    assert response.json() == {
        "authorization": "Bearer good",
        "body": '{"a":1}',
        "isBase64Encoded": False,
        "routeKey": "POST /echo",
        "pathParameters": None,
        "function": "EchoFunction",
    }


def test_binary_bodies_reach_the_function_base64_encoded(stand_in: LocalApi) -> None:
    response = request(stand_in, "POST", "/echo", content=b"\x00\xff", headers={"Authorization": "Bearer good", "content-type": "application/octet-stream"})
    assert response.json()["isBase64Encoded"] is True
    assert base64.b64decode(response.json()["body"]) == b"\x00\xff"


def test_no_authorizer_runs_before_the_function(stand_in: LocalApi, tmp_path: Any) -> None:
    # Without a header too: the function (the gateway) answers, and no event carries a verdict.
    assert request(stand_in, "POST", "/echo").json()["authorization"] is None
    assert all("authorizer" not in event["requestContext"] for event in state(stand_in, "EchoFunction")["RECEIVED"])
    # A template with an authorizer is refused, not served with every route open.
    template = tmp_path / "template.yaml"
    template.write_text(template.read_text().replace("      StageName: $default", "      Auth: {Authorizers: {T: {FunctionArn: x}}}"))
    with pytest.raises(TemplateError, match="Api has an authorizer, which the local stand-in does not run"):
        load_template(template)


def test_path_parameters_and_the_query(stand_in: LocalApi) -> None:
    response = request(stand_in, "GET", "/open/widgets?x=1")
    assert response.status_code == 200
    assert response.json()["pathParameters"] == {"name": "widgets"}
    assert state(stand_in, "EchoFunction")["RECEIVED"][-1]["queryStringParameters"] == {"x": "1"}


def test_unrouted_requests_are_404(stand_in: LocalApi) -> None:
    for method, path in (("GET", "/echo"), ("POST", "/nowhere")):
        response = request(stand_in, method, path, headers={"Authorization": "Bearer good"})
        assert (response.status_code, response.json()) == (404, {"message": "Not Found"})


def test_a_crashing_function_is_a_500(stand_in: LocalApi) -> None:
    response = request(stand_in, "POST", "/broken", headers={"Authorization": "Bearer good"})
    assert (response.status_code, response.json()) == (500, {"message": "Internal Server Error"})
    assert int(response.headers["content-length"]) == len(response.content)


def lifespan(api: LocalApi, *events: str) -> list[dict[str, Any]]:
    incoming = [{"type": f"lifespan.{event}"} for event in events]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return incoming.pop(0)

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(api({"type": "lifespan"}, receive, send))
    return sent


def test_startup_loads_the_routed_functions(stand_in: LocalApi) -> None:
    assert lifespan(stand_in, "startup", "shutdown") == [
        {"type": "lifespan.startup.complete"},
        {"type": "lifespan.shutdown.complete"},
    ]
    assert stand_in.runner._handlers.keys() == {"EchoFunction", "BrokenFunction"}


def test_a_function_that_cannot_load_fails_startup(stand_in: LocalApi) -> None:
    stand_in.template.function("EchoFunction").handler_file.write_text("raise ImportError('no such layer')\n")
    assert lifespan(stand_in, "startup") == [
        {"type": "lifespan.startup.failed", "message": "cannot load the functions: no such layer"}
    ]


def test_serve_freezes_the_heap_once_the_functions_are_loaded(stand_in_template: Any) -> None:
    import gc

    from rhumbline.local.functions import FunctionRunner

    # Tests build many servers in one process: only `rhumbline serve` asks for the freeze.
    runner = FunctionRunner(stand_in_template)
    try:
        assert not LocalApi(stand_in_template, runner).freeze_heap
        before = gc.get_freeze_count()
        api = LocalApi(stand_in_template, runner, freeze_heap=True)
        assert lifespan(api, "startup", "shutdown")[0] == {"type": "lifespan.startup.complete"}
        # The loaded handlers' modules are among the frozen objects, no longer scanned by collections.
        handler = runner.handler("EchoFunction")
        assert gc.get_freeze_count() > before
        assert all(found is not handler for found in gc.get_objects())
    finally:
        heap.unfreeze()
