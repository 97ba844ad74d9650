"""The yardstick of the gateway's cold import (bench/cold_start.py): the mcp SDK's own Streamable
HTTP server - its low-level server and session manager, what any MCP server built on the SDK
imports at init. The gateway's import is reported as a multiple of this one's."""

from typing import Any

from mcp.server.lowlevel import Server  # noqa: F401
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager  # noqa: F401


def handler(event: Any, context: Any) -> None:
    """Only there because bench/cold_start.py checks that an entry point has one."""
