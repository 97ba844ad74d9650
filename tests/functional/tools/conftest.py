"""Tools driven through the real tool handler, on both deployment shapes:

- embedded: SQLite relational store + SQLite graph (the local default);
- production: PostgreSQL relational store + Neo4j graph (what the SAM stack runs).

Each test gets stores of its own, opened by the fixture (a fresh SQLite file, or the suite's
PostgreSQL database and unique Neo4j project slugs: tests/stores.py), a known graph written through
the store's own `apply`, and a `call` helper that builds a real `ToolInvocation` and runs
`rhumbline.runtime.handler.handle` with those stores, as the handler passes a tool the container's.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from sqlalchemy import Engine
from tests.stores import embedded_stores, production_stores, refuse_container_stores, sqlite_url

from rhumbline.config import settings
from rhumbline.contract import INVOCATION_CONTRACT
from rhumbline.runtime.context import Stores
from rhumbline.runtime.handler import handle
from rhumbline.runtime.spec import load_spec
from rhumbline.stores.graph.model import Edge, GraphBatch, Node
from rhumbline.stores.graph.protocol import GraphStore


def shop_graph() -> tuple[list[Node], list[Edge]]:
    """A small, fully known graph: two files, a class with two methods, a helper function."""
    nodes = [
        Node("repository:", "Repository", "acme/shop", "acme/shop"),
        Node("file:shop/cart.py", "File", "cart.py", "shop/cart.py", "shop/cart.py", 1, 40, "python"),
        Node("file:shop/pricing.py", "File", "pricing.py", "shop/pricing.py", "shop/pricing.py", 1, 12, "python"),
        Node("class:shop/cart.py:ShoppingCart", "Class", "ShoppingCart", "shop.cart.ShoppingCart", "shop/cart.py",
             3, 40, "python", "class ShoppingCart", "A customer's cart of line items."),
        Node("method:shop/cart.py:ShoppingCart.add_item", "Method", "add_item", "shop.cart.ShoppingCart.add_item",
             "shop/cart.py", 10, 20, "python", "def add_item(self, sku, quantity=1)", "Add a line item."),
        Node("method:shop/cart.py:ShoppingCart.total", "Method", "total", "shop.cart.ShoppingCart.total",
             "shop/cart.py", 22, 40, "python", "def total(self)", "Sum of prices, with discounts."),
        Node("function:shop/pricing.py:price_of", "Function", "price_of", "shop.pricing.price_of",
             "shop/pricing.py", 3, 12, "python", "def price_of(sku)", "Look up the unit price of a SKU."),
    ]
    edges = [
        Edge("repository:", "file:shop/cart.py", "CONTAINS", "EXTRACTED", 1.0, "shop/cart.py is in the repository"),
        Edge("repository:", "file:shop/pricing.py", "CONTAINS", "EXTRACTED", 1.0, "shop/pricing.py is in the repository"),
        Edge("file:shop/cart.py", "class:shop/cart.py:ShoppingCart", "DEFINES", "EXTRACTED", 1.0,
             "class ShoppingCart defined at shop/cart.py:3", "shop/cart.py", 3),
        Edge("class:shop/cart.py:ShoppingCart", "method:shop/cart.py:ShoppingCart.add_item", "DEFINES", "EXTRACTED",
             1.0, "method add_item defined at shop/cart.py:10", "shop/cart.py", 10),
        Edge("class:shop/cart.py:ShoppingCart", "method:shop/cart.py:ShoppingCart.total", "DEFINES", "EXTRACTED",
             1.0, "method total defined at shop/cart.py:22", "shop/cart.py", 22),
        Edge("file:shop/pricing.py", "function:shop/pricing.py:price_of", "DEFINES", "EXTRACTED", 1.0,
             "function price_of defined at shop/pricing.py:3", "shop/pricing.py", 3),
        Edge("method:shop/cart.py:ShoppingCart.total", "function:shop/pricing.py:price_of", "CALLS", "INFERRED", 0.8,
             "call `price_of(...)` at shop/cart.py:25 resolved through `from shop.pricing import price_of`",
             "shop/cart.py", 25),
        Edge("file:shop/cart.py", "file:shop/pricing.py", "IMPORTS", "EXTRACTED", 1.0,
             "`from shop.pricing import price_of` at shop/cart.py:1", "shop/cart.py", 1),
    ]
    return nodes, edges


def assert_output_contract(tool: str, result: dict) -> None:
    """Every answer is its output model's own JSON form, key order included, and valid against the
    compact output schema agents are sent (the SDK's clients check structuredContent with it)."""
    import jsonschema

    spec = load_spec(tool)
    assert json.dumps(spec.output_model.model_validate(result).model_dump(mode="json")) == json.dumps(result)
    jsonschema.validate(result, spec.output_schema(), cls=jsonschema.Draft202012Validator)


@dataclass
class ToolWorld:
    shape: str
    project: str  # the seeded project
    other_project: str  # a second seeded project the default token cannot see
    stores: Stores  # what every call reaches: opened by the fixture (a test may replace one)
    database_url: str  # the relational store's, for a child process to reach it

    @property
    def graph(self) -> GraphStore:
        return self.stores.graph()

    @property
    def engine(self) -> Engine:
        return self.stores.relational()

    def call(self, tool: str, arguments: dict, *, projects=None, scopes=("read",)) -> dict:
        """The outcome of a real invocation of `tool` by a token of `projects` (default: the
        seeded one) and `scopes`, through the tool handler, with the world's stores."""
        outcome = handle(
            tool,
            {
                "contract": INVOCATION_CONTRACT,
                "tool": tool,
                "arguments": arguments,
                "caller": _caller((self.project,) if projects is None else projects, scopes),
                "request_id": f"req-{uuid.uuid4().hex[:8]}",
                "deadline_ms": int((time.time() + 30) * 1000),
            },
            self.stores,
        )
        if outcome["ok"]:
            assert_output_contract(tool, outcome["result"])
        return outcome


def _caller(projects, scopes) -> dict:
    return {"principal": "tester", "token_id": "tk_test", "projects": list(projects), "scopes": list(scopes)}


@pytest.fixture(scope="session")
def tools_database_url(postgres_url) -> Iterator[str]:
    """One PostgreSQL database for this suite; tests stay apart through unique project slugs and
    tokens that see only their own projects."""
    from tests.pg_database import fresh_database_url

    url, drop = fresh_database_url(postgres_url, f"rhumbline_tools_{uuid.uuid4().hex[:8]}")
    yield url
    drop()


@pytest.fixture(params=["embedded", pytest.param("production", marks=[pytest.mark.postgres, pytest.mark.neo4j])])
def world(request, tmp_path, monkeypatch) -> Iterator[ToolWorld]:
    suffix = uuid.uuid4().hex[:10]
    project, other = f"acme/shop{suffix}", f"rival/shop{suffix}"
    # Configuration the tools read (where a local ingest takes its lock, what mode it runs in); the
    # stores themselves are opened here and handed to every call.
    monkeypatch.setenv("RHUMBLINE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RHUMBLINE_MODE", "local")
    if request.param == "embedded":
        database_url = sqlite_url(tmp_path / "stores")
        opening = embedded_stores(tmp_path / "stores")
    else:
        neo4j = request.getfixturevalue("neo4j_server")
        database_url = request.getfixturevalue("tools_database_url")
        opening = production_stores(database_url, neo4j)
    settings.cache_clear()
    # One door: a call reaches the stores it is given; the container's are out of its reach.
    refuse_container_stores(monkeypatch)
    with opening as stores:
        from rhumbline.stores.relational import projects
        from rhumbline.stores.relational.session import session_scope

        with session_scope(stores.relational()) as session:
            projects.get_or_create(session, project)
            projects.get_or_create(session, other)
        graph = stores.graph()
        nodes, edges = shop_graph()
        graph.apply(project, GraphBatch(nodes=nodes, edges=edges))
        graph.apply(other, GraphBatch(nodes=nodes[:3], edges=edges[:2]))

        try:
            yield ToolWorld(
                shape=request.param, project=project, other_project=other, stores=stores, database_url=database_url
            )
        finally:
            graph.delete_project(project)
            graph.delete_project(other)
            settings.cache_clear()
