"""tools/list, filtered by the caller's scopes and chosen toolsets, serialized once per (protocol
version, tool set).

A token only sees the tools it may call, as scope-aware MCP servers do: without `write` no ingest,
add_annotation or record_review; without `cypher` no `query`; and only those of the toolsets the
client chose (gateway/toolsets.py). A call to a hidden tool still gets
the gateway's clear scope error (calls.check_call), so hiding is a convenience, never the guard.

The tool definitions with their JSON schemas are tens of KB on the wire, and the SDK dumps,
re-validates and dumps a handler's result on every call (milliseconds). The answer only depends on the
protocol version (which fields the wire form has) and the set of tools shown, so `ToolListCache`, a
server middleware, keeps the first wire form the SDK produced for each key and returns a copy of
it afterwards — after validating the request's params exactly as the SDK would.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp_types import methods

from rhumbline.gateway.access import Access, AccessOf
from rhumbline.gateway.catalog import Catalog

if TYPE_CHECKING:
    from mcp.server.context import CallNext, ServerRequestContext

LIST_METHOD = "tools/list"
# Distinct (version, tool set) keys are few (a handful of versions × scope combinations); the cap
# only guards against a bug growing it without bound.
MAX_CACHED_ANSWERS = 64


def visible_tools(catalog: Catalog, access: Access) -> tuple[str, ...]:
    """Names of the tools this caller holds the scope for and chose, in catalog order (none if
    unauthenticated: the edge answers 401 before the SDK sees such a request; this only guards a
    miswiring)."""
    caller = access.identity.caller
    if caller is None:
        return ()
    return tuple(
        name for name, spec in catalog.specs.items() if caller.has_scope(spec.scope) and access.selection.admits(spec)
    )


def list_result(catalog: Catalog, names: tuple[str, ...]) -> types.ListToolsResult:
    definitions = catalog.definitions
    return types.ListToolsResult(tools=[definitions[name] for name in names])


class ToolListCache:
    """Server middleware: the SDK's own wire form of tools/list, kept per (version, tool set)."""

    def __init__(self, catalog: Catalog, access_of: AccessOf) -> None:
        self.catalog = catalog
        self.access_of = access_of
        self._answers: dict[tuple[str, tuple[str, ...]], dict[str, Any]] = {}

    async def __call__(self, ctx: "ServerRequestContext[Any]", call_next: "CallNext") -> Any:
        if ctx.method != LIST_METHOD:
            return await call_next(ctx)
        key = (ctx.protocol_version, visible_tools(self.catalog, self.access_of(ctx)))
        cached = self._answers.get(key)
        if cached is None:
            answer = await call_next(ctx)
            if isinstance(answer, dict) and len(self._answers) < MAX_CACHED_ANSWERS:
                self._answers[key] = answer
            return answer
        # What the SDK checks before calling the handler; a malformed request fails the same way.
        methods.validate_client_request(LIST_METHOD, ctx.protocol_version, ctx.params)
        types.PaginatedRequestParams.model_validate({} if ctx.params is None else ctx.params, by_name=False)
        # The SDK copies a middleware's result before shaping the envelope: a shallow copy keeps
        # the cached answer's top level ours.
        return dict(cached)
