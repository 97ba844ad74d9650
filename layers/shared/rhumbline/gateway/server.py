"""The gateway's MCP server: the SDK's low-level `Server` with our own tools/list and tools/call.

The low-level server hands `tools/call` the raw arguments dict, which is exactly what the gateway
forwards (MCPServer would want a Python function per tool and parse the arguments itself). It
serves both protocol generations: the initialize handshake (2025-06-18, 2025-11-25) and the
handshake-free 2026-07-28 with `server/discover`.
"""

from __future__ import annotations

import logging
import time
import uuid
from typing import TYPE_CHECKING, Any

import anyio.from_thread
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.transport_security import TransportSecuritySettings

from rhumbline import __version__
from rhumbline.gateway.access import AccessOf, access_of_request, request_scope
from rhumbline.gateway.authentication import Authenticator
from rhumbline.gateway.calls import CallRequest, ToolCalls, WireResult, error_result
from rhumbline.gateway.catalog import Catalog
from rhumbline.gateway.edge import MCP_PATH, GatewayEdge
from rhumbline.gateway.identity import request_id_of
from rhumbline.gateway.request_ids import RequestIdCheck
from rhumbline.gateway.throttle import RequestThrottle
from rhumbline.gateway.tool_list import ToolListCache, list_result, visible_tools
from rhumbline.runtime import progress

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from starlette.types import ASGIApp

    from rhumbline.config import Settings

INSTRUCTIONS = (
    "Rhumbline answers questions about code: search the graph of a project's definitions, calls and "
    "imports, then open nodes with get_node. Call list_projects first to see which projects exist."
)

SDK_TRACING_MIDDLEWARE = "OpenTelemetryMiddleware"

logger = logging.getLogger("rhumbline.gateway")

# A client gets a progress notification at most this often (and always the last one).
PROGRESS_INTERVAL_SECONDS = 0.25

LOOPBACK_HOSTS = ["127.0.0.1", "127.0.0.1:*", "localhost", "localhost:*", "[::1]", "[::1]:*"]
LOOPBACK_ORIGINS = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]


def transport_security(settings: "Settings") -> TransportSecuritySettings:
    if settings.mode == "hosted":
        # Behind API Gateway the Host is the API's domain, and every request carries its bearer
        # token: DNS rebinding protects only a server on the user's machine.
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=LOOPBACK_HOSTS, allowed_origins=LOOPBACK_ORIGINS
    )


def remaining_seconds(lambda_context: Any) -> float | None:
    remaining = getattr(lambda_context, "get_remaining_time_in_millis", None)
    return remaining() / 1000.0 if callable(remaining) else None


def progress_reporter(ctx: "ServerRequestContext[Any]") -> progress.Reporter | None:
    """A reporter a tool's worker thread calls, sending `notifications/progress` on the session's
    loop; None when the client sent no progressToken."""
    if not ctx.meta or ctx.meta.get("progress_token") is None:
        return None
    last_sent = 0.0

    def report(done: int, total: int | None) -> None:
        nonlocal last_sent
        now = time.monotonic()
        if now - last_sent < PROGRESS_INTERVAL_SECONDS and done != total:
            return
        last_sent = now
        try:
            anyio.from_thread.run(ctx.session.report_progress, float(done), None if total is None else float(total))
        except Exception:  # noqa: BLE001 - progress is best effort: the call itself must go on
            logger.debug("a progress notification could not be sent", exc_info=True)

    return report


def build_mcp_server(catalog: Catalog, tool_calls: ToolCalls, access_of: AccessOf = access_of_request) -> Server[Any]:
    """The MCP server; `access_of` says who is calling and what they chose (per HTTP request, or fixed
    for a stdio session)."""

    async def list_tools(ctx: "ServerRequestContext[Any]", params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return list_result(catalog, visible_tools(catalog, access_of(ctx)))

    # The result is the CallToolResult's wire form (calls.WireResult): a dict is what the SDK's
    # handlers may return (`HandlerResult`), validated and dumped per protocol version as a model is.
    async def call_tool(ctx: "ServerRequestContext[Any]", params: types.CallToolRequestParams) -> WireResult:
        scope = request_scope(ctx)
        access = access_of(ctx)
        identity = access.identity
        if identity.caller is None:
            # The edge answers 401 before the SDK sees the request; this only guards a miswiring.
            return error_result("unauthenticated", identity.description())
        request = CallRequest(
            tool=params.name,
            arguments=dict(params.arguments or {}),
            caller=identity.caller,
            request_id=request_id_of(scope.get("aws.event")) or uuid.uuid4().hex,
            remaining_seconds=remaining_seconds(scope.get("aws.context")),
            selection=access.selection,
            admitted=identity.admitted,
            refusal=identity.refusal,
        )
        # The worker thread that runs an in-process tool inherits this context, reporter included.
        with progress.reporting(progress_reporter(ctx)):
            return await tool_calls.call(request)

    server: Server[Any] = Server(
        "rhumbline",
        version=__version__,
        title="Rhumbline",
        instructions=INSTRUCTIONS,
        get_tool_input_schema=catalog.input_schema,
        on_list_tools=list_tools,
        # The SDK sends a plain result dict as it is (its runner accepts a model or a dict); its
        # annotation names only the model.
        on_call_tool=call_tool,  # type: ignore[arg-type]
    )
    if not tracing_configured():
        # The SDK's OpenTelemetry middleware opens a span per message even when no tracer provider
        # is installed, for a span nobody records. The layer ships only
        # opentelemetry-api; a deployment that installs a provider (the ADOT Lambda layer does,
        # before the handler module is imported) keeps the middleware.
        # Matched by name: the SDK documents dropping it from the list but does not export the class.
        server.middleware[:] = [m for m in server.middleware if type(m).__name__ != SDK_TRACING_MIDDLEWARE]
    # Inside the SDK's OpenTelemetry middleware (when kept), so a cached tools/list still gets its
    # span; the throttle outside the cache, so a cached answer is metered too.
    server.middleware.append(RequestThrottle(tool_calls, access_of))
    server.middleware.append(ToolListCache(catalog, access_of))
    return server


def tracing_configured() -> bool:
    """Whether a real OpenTelemetry tracer provider is installed (not the API's default proxy/no-op)."""
    from opentelemetry import trace

    provider = trace.get_tracer_provider()
    return not isinstance(provider, (trace.ProxyTracerProvider, trace.NoOpTracerProvider))


def build_gateway_app(
    settings: "Settings", catalog: Catalog, tool_calls: ToolCalls
) -> tuple["ASGIApp", "StreamableHTTPSessionManager"]:
    """The gateway's ASGI app and the session manager whose `run()` must be entered once before use."""
    server = build_mcp_server(catalog, tool_calls)
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,
        json_response=True,
        transport_security=transport_security(settings),
    )
    authenticator = Authenticator(tool_calls.meter, tool_calls.clock)
    return GatewayEdge(RequestIdCheck(app), settings, authenticator, tool_calls.limiter), server.session_manager
