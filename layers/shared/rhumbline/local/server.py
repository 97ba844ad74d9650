"""`rhumbline serve`: the template's HTTP API and the Lambda Invoke API on one local endpoint.

Like API Gateway, it matches the request to a template route and calls the route's function with
a payload 2.0 event (no authorizer runs before it: the gateway authenticates each request itself).
Like the Lambda service, it answers `POST /2015-03-31/functions/{name}/invocations`, so the
gateway's unchanged boto3 dispatcher can reach the tool functions through it.
"""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Literal

from starlette.types import Message, Receive, Scope, Send

from rhumbline.local.apigw import HttpRequest, HttpResponse, build_event, json_response, proxy_response
from rhumbline.local.functions import REGION, FunctionRunner
from rhumbline.local.http_stack import choose_http_stack
from rhumbline.local.lambda_api import INVOKE_PATH, InvokeCredentials, LambdaInvokeApi
from rhumbline.local.template import Template
from rhumbline.heap import freeze_after_init

logger = logging.getLogger("rhumbline.local")

Dispatch = Literal["inprocess", "invoke-api"]


class LocalApi:
    def __init__(
        self,
        template: Template,
        runner: FunctionRunner,
        *,
        invoke_api: LambdaInvokeApi | None = None,
        freeze_heap: bool = False,
    ) -> None:
        self.template = template
        self.runner = runner
        # Served only when the gateway dispatches through it (`--dispatch invoke-api`).
        self.invoke_api = invoke_api
        # `rhumbline serve` freezes the heap once the functions are loaded (heap.py); tests
        # that start and stop many servers in one process leave it alone.
        self.freeze_heap = freeze_heap

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        request = await read_request(scope, receive)
        response = await self.respond(request)
        headers = response.headers
        if not any(name == "content-length" for name, _ in headers):
            headers = [*headers, ("content-length", str(len(response.body)))]
        await send({"type": "http.response.start", "status": response.status, "headers": encode_headers(headers)})
        await send({"type": "http.response.body", "body": response.body})

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                # Load the routed functions now, so the first request does not pay their init.
                functions = {route.function for route in self.template.routes}
                try:
                    await asyncio.gather(*(asyncio.to_thread(self.runner.handler, name) for name in sorted(functions)))
                except Exception as error:  # noqa: BLE001 - reported to uvicorn, which exits with it
                    logger.exception("a function failed to load")
                    await send({"type": "lifespan.startup.failed", "message": f"cannot load the functions: {error}"})
                    return
                if self.freeze_heap:
                    # The end of the local containers' init: the routed functions share this
                    # process, as every function does with --dispatch inprocess.
                    freeze_after_init()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def respond(self, request: HttpRequest) -> HttpResponse:
        invoke = INVOKE_PATH.fullmatch(request.path)
        if invoke and request.method == "POST" and self.invoke_api is not None:
            return await self.invoke_api.respond(invoke["name"], request)
        found = self.template.route_for(request.method, request.path)
        if found is None:
            return json_response(404, {"message": "Not Found"})
        route, path_parameters = found
        event = build_event(request, route_key=route.route_key, path_parameters=path_parameters)
        invocation = await self.runner.invoke_async(route.function, event)
        if invocation.error is not None:
            logger.error("%s failed: %s: %s", route.function, invocation.error["errorType"], invocation.error["errorMessage"])
            return json_response(500, {"message": "Internal Server Error"})
        try:
            return proxy_response(invocation.result)
        except (TypeError, ValueError) as error:
            logger.error("%s returned a malformed response: %s", route.function, error)
            return json_response(500, {"message": "Internal Server Error"})


async def read_request(scope: Scope, receive: Receive) -> HttpRequest:
    chunks = []
    while True:
        message: Message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    client = scope.get("client") or ("127.0.0.1", 0)
    return HttpRequest(
        method=scope["method"],
        path=scope["path"],
        raw_path=(scope.get("raw_path") or scope["path"].encode()).decode("latin-1"),
        query_string=scope.get("query_string", b"").decode("latin-1"),
        headers=[(name.decode("latin-1"), value.decode("latin-1")) for name, value in scope["headers"]],
        body=b"".join(chunks),
        source_ip=client[0],
        protocol=f"HTTP/{scope.get('http_version', '1.1')}",
    )


def encode_headers(headers: list[tuple[str, str]]) -> list[tuple[bytes, bytes]]:
    return [(name.encode("latin-1"), value.encode("latin-1")) for name, value in headers]


def configure_dispatch(template: Template, dispatch: Dispatch, host: str, port: int) -> InvokeCredentials | None:
    """Set, before the gateway is loaded, how it reaches the tools (it reads the environment at init).

    With `invoke-api`, returns the credentials the local Invoke API accepts: the gateway's boto3
    client finds them in this process's environment, and nothing else has them.
    """
    if dispatch == "inprocess":
        os.environ["RHUMBLINE_DISPATCH"] = "inprocess"
        return None
    prefix = template.tool_function_prefix
    if not template.tool_functions or not prefix:
        raise RuntimeError(f"{template.path} has no tool functions (RHUMBLINE_TOOL_FUNCTION_PREFIX and functions so named)")
    reachable = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    credentials = InvokeCredentials()
    os.environ.update(
        RHUMBLINE_DISPATCH="lambda",
        RHUMBLINE_TOOL_FUNCTION_PREFIX=prefix,
        AWS_ENDPOINT_URL_LAMBDA=f"http://{reachable}:{port}",
        # Real credentials must never be sent to the local endpoint.
        AWS_ACCESS_KEY_ID=credentials.access_key_id,
        AWS_SECRET_ACCESS_KEY=credentials.secret_access_key,
        AWS_DEFAULT_REGION=REGION,
        AWS_REGION=REGION,
    )
    os.environ.pop("AWS_SESSION_TOKEN", None)
    os.environ.pop("AWS_PROFILE", None)
    return credentials


def serve(
    template: Template,
    *,
    host: str = "127.0.0.1",
    port: int = 8080,
    dispatch: Dispatch = "inprocess",
    log_level: str = "info",
    access_log: bool = False,
) -> None:
    import uvicorn

    # A terminal wants neither one EMF JSON blob per call nor every INFO line as JSON; an explicit
    # setting in the environment still wins.
    os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
    credentials = configure_dispatch(template, dispatch, host, port)
    runner = FunctionRunner(template)
    invoke_api = None
    if credentials is not None:
        tools = {template.function(logical_id).name: logical_id for logical_id in template.tool_functions.values()}
        invoke_api = LambdaInvokeApi(runner, functions=tools, credentials=credentials)
    api = LocalApi(template, runner, invoke_api=invoke_api, freeze_heap=True)
    stack = choose_http_stack()
    if stack.fallback_note():
        logger.warning("%s", stack.fallback_note())
    # No access log unless asked: formatting and writing a line per request is work on every call
    # (the audit row already records each call). The keep-alive timeout outlives an agent's pause
    # between calls, so a session's requests reuse one connection (uvicorn's default is 5 s).
    uvicorn.run(
        api,
        host=host,
        port=port,
        http=stack.http,
        loop=stack.loop,
        log_level=log_level,
        lifespan="on",
        access_log=access_log,
        timeout_keep_alive=75,
    )
