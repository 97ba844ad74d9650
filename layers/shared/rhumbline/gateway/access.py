"""What a request may see and call: who is calling (Identity) and which tools they chose (Selection).

Over HTTP both come from the request (the edge leaves them in the ASGI scope); a stdio server has
one fixed Access for its whole session (local/stdio.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rhumbline.gateway.identity import Identity, identity_of_scope
from rhumbline.gateway.toolsets import EVERYTHING, SELECTION_KEY, Selection

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext


@dataclass(frozen=True)
class Access:
    identity: Identity
    selection: Selection = EVERYTHING


AccessOf = Callable[["ServerRequestContext[Any]"], Access]


def request_scope(ctx: "ServerRequestContext[Any]") -> Mapping[str, Any]:
    return ctx.request.scope if ctx.request is not None else {}


def access_of_request(ctx: "ServerRequestContext[Any]") -> Access:
    scope = request_scope(ctx)
    selection = scope.get(SELECTION_KEY)
    return Access(identity_of_scope(scope), selection if isinstance(selection, Selection) else EVERYTHING)


def fixed_access(access: Access) -> AccessOf:
    return lambda ctx: access
