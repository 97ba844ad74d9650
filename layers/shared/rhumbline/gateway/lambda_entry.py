"""The gateway Lambda's entry point: `functions/gateway/app.py` re-exports `handler`.

Everything is built at import, during the Lambda init phase: the tool catalog, the dispatcher, the
MCP server and its session manager (started once on the container's own loop). A warm invocation
only converts the event and serves one request.
"""

from __future__ import annotations

from rhumbline.config import settings
from rhumbline.gateway.audit import RelationalAuditLog
from rhumbline.gateway.calls import ToolCalls
from rhumbline.gateway.catalog import Catalog
from rhumbline.gateway.container import GatewayContainer
from rhumbline.gateway.dispatch import dispatcher_from_environment
from rhumbline.gateway.meter import RelationalMeter
from rhumbline.gateway.server import build_gateway_app
from rhumbline.observability import lambda_entry


def build_container() -> GatewayContainer:
    current = settings()
    catalog = Catalog.from_registry()
    tool_calls = ToolCalls(
        catalog,
        dispatcher_from_environment(current),
        RelationalAuditLog(),
        RelationalMeter.from_settings(current),
        tool_timeout=current.tool_timeout,
    )
    app, session_manager = build_gateway_app(current, catalog, tool_calls)
    return GatewayContainer(app, session_manager).start()


container = build_container()
handler = lambda_entry(container.lambda_handler(), function="gateway", trace=True)
