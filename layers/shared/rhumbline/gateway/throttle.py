"""Every MCP request but tools/call passes the caller's meter too: initialize, tools/list, ping,
server/discover, resources/list ... take a call from the rate limit's bucket and are refused once
the token's monthly quota is used up, without counting in that quota (gateway/meter.py). Over HTTP
the edge admitted the request when it authenticated it: only its verdict is read here.

tools/call is left to calls.py, which answers a refused call with a tool error and audits it.
A refusal is a JSON-RPC error (implementation-defined server error code) whose data carries what a
refused tool call's result carries: the reason, the limit and when to retry.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from mcp.shared.exceptions import MCPError

from rhumbline.gateway.access import AccessOf, request_scope
from rhumbline.gateway.calls import ToolCalls
from rhumbline.gateway.identity import request_id_of

if TYPE_CHECKING:
    from mcp.server.context import CallNext, ServerRequestContext

TOOLS_CALL = "tools/call"
# JSON-RPC 2.0 leaves -32000 to -32099 to the server; MCP defines no code for a limit.
REFUSED = -32000


class RequestThrottle:
    """Server middleware, outside the tools/list cache: a cached answer is metered too."""

    def __init__(self, tool_calls: ToolCalls, access_of: AccessOf) -> None:
        self.tool_calls = tool_calls
        self.access_of = access_of

    async def __call__(self, ctx: "ServerRequestContext[Any]", call_next: "CallNext") -> Any:
        identity = self.access_of(ctx).identity
        caller = identity.caller
        # No caller: the edge answers 401 before the SDK sees such a request (this guards a miswiring,
        # and the handlers refuse it themselves).
        if ctx.method == TOOLS_CALL or caller is None:
            return await call_next(ctx)
        if identity.admitted:
            refusal = identity.refusal
        else:
            request_id = request_id_of(request_scope(ctx).get("aws.event")) or uuid.uuid4().hex
            refusal = await anyio.to_thread.run_sync(
                lambda: self.tool_calls.admit(caller, request_id, ctx.method, counted=False), limiter=self.tool_calls.limiter
            )
        if refusal is not None:
            raise MCPError(REFUSED, f"{refusal.code}: {refusal.message}", {"code": refusal.code, **(refusal.details or {})})
        return await call_next(ctx)
