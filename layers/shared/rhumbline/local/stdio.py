"""`rhumbline mcp`: the MCP server over stdio, for clients that start their servers as a subprocess
(Claude Desktop, Claude Code's stdio servers, IDE plugins).

It is the gateway's own MCP server (same tool list, scope and toolset checks, audit rows) with the
tools dispatched in-process, as `rhumbline serve` does by default. There is no bearer token: the
process belongs to whoever started it, so its caller is a fixed local principal, and the audit
rows name it. The SDK's stdio transport serves both protocol generations and carries progress
notifications (an `ingest` with a progressToken reports files parsed of the total).
"""

from __future__ import annotations

import getpass
from typing import TYPE_CHECKING

import anyio

from rhumbline.contract import ALL_PROJECTS, Caller, Scope
from rhumbline.gateway.access import Access, fixed_access
from rhumbline.gateway.identity import Identity
from rhumbline.gateway.toolsets import Selection

if TYPE_CHECKING:
    from rhumbline.config import Settings

# The audit table's token id column holds 16 characters.
LOCAL_TOKEN_ID = "local-stdio"


def local_principal() -> str:
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "unknown"
    return f"local:{user}"


def local_access(scopes: tuple[Scope, ...], selection: Selection) -> Access:
    caller = Caller(principal=local_principal(), token_id=LOCAL_TOKEN_ID, projects=(ALL_PROJECTS,), scopes=scopes)
    return Access(Identity(caller=caller), selection)


async def serve_stdio(settings: "Settings", access: Access) -> None:
    from mcp.server.stdio import stdio_server

    from rhumbline.gateway.audit import RelationalAuditLog
    from rhumbline.gateway.calls import ToolCalls
    from rhumbline.gateway.catalog import Catalog
    from rhumbline.gateway.dispatch import InProcessDispatcher
    from rhumbline.gateway.meter import RelationalMeter
    from rhumbline.gateway.server import build_mcp_server
    from rhumbline.runtime import resources

    catalog = Catalog.from_registry()
    stores = resources.stores()
    meter = RelationalMeter.from_settings(settings, stores)
    tool_calls = ToolCalls(
        catalog, InProcessDispatcher(stores), RelationalAuditLog(stores), meter, tool_timeout=settings.tool_timeout
    )
    server = build_mcp_server(catalog, tool_calls, fixed_access(access))
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def run_stdio(settings: "Settings", access: Access) -> None:
    anyio.run(serve_stdio, settings, access)
