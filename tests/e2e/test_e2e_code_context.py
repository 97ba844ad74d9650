"""The code-context tools through a real `rhumbline serve` and the real mcp SDK client: output
schemas accepted by the client, markdown delivered as text, callers with the line of the call."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from tests.e2e.conftest import LocalServer
from tests.e2e.test_e2e_local_server import sdk_session


@pytest.fixture(scope="module")
def server(start_server: Any) -> LocalServer:
    return start_server("inprocess")


async def calls(server: LocalServer) -> dict[str, Any]:
    async with sdk_session(server, "auto") as client:
        context = await client.call_tool("context", {"file": "pkg/shop.py", "format": "markdown"})
        context_json = await client.call_tool("context", {"file": "pkg/shop.py"})
        function = await client.call_tool("function", {"name": "total_price"})
        klass = await client.call_tool("class", {"name": "Cart"})
        query = await client.call_tool("query", {"cypher": "RETURN 1"})
        return {"context": context, "context_json": context_json, "function": function, "class": klass, "query": query}


def test_code_context_tools_over_http(server: LocalServer) -> None:
    seen = anyio.run(calls, server)
    context = seen["context"]
    assert not context.is_error
    text = context.content[0].text
    assert text.startswith("# pkg/shop.py (python")  # the markdown itself, not a JSON string
    assert "- 4-9 Class `Cart`" in text and "Method `Cart.add_item`" in text
    assert context.structured_content["markdown"] == text
    # The compact JSON bundle (the client checked it against the advertised output schema): a
    # definition says neither its file nor its language, the bundle's `file` does once.
    bundle = seen["context_json"].structured_content
    assert not seen["context_json"].is_error
    assert (bundle["file"]["path"], bundle["file"]["language"]) == ("pkg/shop.py", "python")
    assert bundle["definitions"]["items"][0] == {
        "id": "class:pkg/shop.py:Cart", "kind": "Class", "name": "Cart", "qualified_name": "shop.Cart", "line": 4,
        "end_line": 9, "signature": "class Cart", "docstring": "A shopping cart.",
    }  # fmt: skip
    function = seen["function"].structured_content
    assert function["node"]["qualified_name"] == "shop.total_price"
    assert [(c["qualified_name"], c["evidence_line"]) for c in function["callers"]["items"]] == [("shop.Cart.add_item", 9)]
    assert seen["class"].structured_content["methods"]["items"][0]["callers"] == 0
    # The e2e token has only `read`; the embedded backend has no Cypher anyway.
    assert seen["query"].is_error and seen["query"].content[0].text == "forbidden: this token lacks the 'cypher' scope"
