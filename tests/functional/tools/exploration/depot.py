"""The depot graph of the exploration tool tests, and a caller with any token.

The `depot` fixture (conftest.py) adds to the world's shop graph (../conftest.py, shop_graph) a
call chain and a few dependency kinds, so that blast radius, paths and rankings have exact,
hand-checked answers:

    route -CALLS-> handle -CALLS-> checkout -CALLS-> ShoppingCart.total ----CALLS--> price_of -CALLS-> discount
                                   checkout -CALLS-> ShoppingCart.add_item -CALLS-> price_of
    cached -DECORATES-> price_of          GiftCart -INHERITS-> ShoppingCart

Betweenness of the dependency graph (12 nodes, normalized by 11 * 10 = 110; DECORATES read as
price_of depending on cached): checkout 10/110, price_of 10/110, handle 6/110, total 4.5/110,
add_item 4.5/110, every other node 0.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rhumbline.contract import INVOCATION_CONTRACT
from rhumbline.runtime.handler import handle
from rhumbline.stores.graph.model import Edge, Node

if TYPE_CHECKING:
    from tests.functional.tools.conftest import ToolWorld

CART = "class:shop/cart.py:ShoppingCart"
ADD_ITEM = "method:shop/cart.py:ShoppingCart.add_item"
TOTAL = "method:shop/cart.py:ShoppingCart.total"
PRICE_OF = "function:shop/pricing.py:price_of"
CART_FILE = "file:shop/cart.py"
PRICING_FILE = "file:shop/pricing.py"
CHECKOUT = "function:shop/checkout.py:checkout"
HANDLE = "function:shop/api.py:handle"
ROUTE = "function:shop/api.py:route"
DISCOUNT = "function:shop/discounts.py:discount"
CACHED = "function:shop/util.py:cached"
GIFT_CART = "class:shop/cart.py:GiftCart"


def _function(node_id: str, line: int) -> Node:
    _, path, name = node_id.split(":")
    module = path.removesuffix(".py").replace("/", ".")
    return Node(node_id, "Function", name, f"{module}.{name}", path, line, line + 5, "python", f"def {name}()")


def _calls(source: str, target: str, line: int) -> Edge:
    name = target.rsplit(":", 1)[-1].rsplit(".", 1)[-1]
    path = source.split(":")[1]
    return Edge(source, target, "CALLS", "EXTRACTED", 1.0, f"call `{name}(...)` at {path}:{line}", path, line)


DEPOT_NODES = [
    _function(CHECKOUT, 3),
    _function(HANDLE, 3),
    _function(ROUTE, 12),
    _function(DISCOUNT, 1),
    _function(CACHED, 1),
    Node(GIFT_CART, "Class", "GiftCart", "shop.cart.GiftCart", "shop/cart.py", 42, 50, "python", "class GiftCart"),
]
DEPOT_EDGES = [
    _calls(CHECKOUT, TOTAL, 5),
    _calls(CHECKOUT, ADD_ITEM, 4),
    _calls(HANDLE, CHECKOUT, 4),
    _calls(ROUTE, HANDLE, 13),
    _calls(PRICE_OF, DISCOUNT, 8),
    _calls(ADD_ITEM, PRICE_OF, 12),
    Edge(CACHED, PRICE_OF, "DECORATES", "EXTRACTED", 1.0, "`@cached` on function `price_of` at shop/pricing.py:2",
         "shop/pricing.py", 2),
    Edge(GIFT_CART, CART, "INHERITS", "EXTRACTED", 1.0, "class `GiftCart` at shop/cart.py:42 lists base `ShoppingCart`",
         "shop/cart.py", 42),
]  # fmt: skip


@dataclass
class Caller:
    """Calls a tool through the real handler as any token, with the world's stores:
    `call_as(tool, arguments, token_id=...)`."""

    world: ToolWorld

    def __call__(
        self, tool: str, arguments: dict, *, token_id: str = "tk_test", projects=None, scopes=("read",)
    ) -> dict:
        return handle(
            tool,
            {
                "contract": INVOCATION_CONTRACT,
                "tool": tool,
                "arguments": arguments,
                "caller": {
                    "principal": f"tester-{token_id}",
                    "token_id": token_id,
                    "projects": list(projects or (self.world.project,)),
                    "scopes": list(scopes),
                },
                "request_id": f"req-{uuid.uuid4().hex[:8]}",
                "deadline_ms": int((time.time() + 30) * 1000),
            },
            self.world.stores,
        )


def ok(outcome: dict) -> dict:
    assert outcome["ok"], outcome
    return outcome["result"]
