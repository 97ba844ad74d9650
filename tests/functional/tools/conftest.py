"""Tools driven through the real tool handler, on both deployment shapes:

- embedded: SQLite relational store + SQLite graph (the local default);
- production: PostgreSQL relational store + Neo4j graph (what the SAM stack runs).

Each test gets fresh stores (a fresh SQLite file, or a fresh PostgreSQL schema and unique Neo4j
project slugs), a known graph written through the store's own `apply`, and a `call` helper that
builds a real `ToolInvocation` and runs `rhumbline.runtime.handler.handle`.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

from rhumbline.contract import INVOCATION_CONTRACT
from rhumbline.runtime import resources
from rhumbline.runtime.handler import handle
from rhumbline.runtime.spec import load_spec
from rhumbline.stores.graph.model import Edge, GraphBatch, Node


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
    call: Callable[..., dict]


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


@pytest.fixture(params=["embedded", "production"])
def world(request, tmp_path, monkeypatch) -> Iterator[ToolWorld]:
    suffix = uuid.uuid4().hex[:10]
    project, other = f"acme/shop{suffix}", f"rival/shop{suffix}"
    monkeypatch.setenv("RHUMBLINE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RHUMBLINE_MODE", "local")
    if request.param == "embedded":
        monkeypatch.setenv("RHUMBLINE_DATABASE_URL", f"sqlite:///{tmp_path / 'rhumbline.sqlite3'}")
        monkeypatch.setenv("RHUMBLINE_GRAPH_BACKEND", "sqlite")
        monkeypatch.setenv("RHUMBLINE_GRAPH_PATH", str(tmp_path / "graph.sqlite3"))
    else:
        neo4j = request.getfixturevalue("neo4j_server")
        monkeypatch.setenv("RHUMBLINE_DATABASE_URL", request.getfixturevalue("tools_database_url"))
        monkeypatch.setenv("RHUMBLINE_GRAPH_BACKEND", "neo4j")
        monkeypatch.setenv("RHUMBLINE_NEO4J_URI", neo4j["uri"])
        monkeypatch.setenv("RHUMBLINE_NEO4J_USER", neo4j["user"])
        monkeypatch.setenv("RHUMBLINE_NEO4J_PASSWORD", neo4j["password"])
    resources.reset()

    from rhumbline.stores.relational import migrate, projects
    from rhumbline.stores.relational.session import session_scope

    engine = resources.relational_engine()
    migrate.upgrade(engine)
    with session_scope(engine) as session:
        projects.get_or_create(session, project)
        projects.get_or_create(session, other)
    graph = resources.graph_store()
    nodes, edges = shop_graph()
    graph.apply(project, GraphBatch(nodes=nodes, edges=edges))
    graph.apply(other, GraphBatch(nodes=nodes[:3], edges=edges[:2]))

    def call(tool: str, arguments: dict, *, projects=(project,), scopes=("read",)) -> dict:
        outcome = handle(
            tool,
            {
                "contract": INVOCATION_CONTRACT,
                "tool": tool,
                "arguments": arguments,
                "caller": _caller(projects, scopes),
                "request_id": f"req-{uuid.uuid4().hex[:8]}",
                "deadline_ms": int((time.time() + 30) * 1000),
            },
        )
        if outcome["ok"]:
            assert_output_contract(tool, outcome["result"])
        return outcome

    try:
        yield ToolWorld(shape=request.param, project=project, other_project=other, call=call)
    finally:
        # The container's store of now: a test may have made it anew (a SnapStart restore).
        resources.graph_store().delete_project(project)
        resources.graph_store().delete_project(other)
        resources.reset()
