"""Recursion on both shapes: a function's call of itself shows among its callers and callees and a
class's recursive method is marked, though a walk lists each node once."""

from __future__ import annotations

import pytest

from rhumbline.stores.graph.model import GraphBatch
from tests.functional.tools.code_context import shop_graph as g
from tests.functional.tools.code_context.conftest import ok

CALLS_ITSELF = [
    g._e(g.HELPER, g.HELPER, "CALLS", 11, "call `helper(...)` at shop/services.py:11"),
    g._e(g.PRODUCT_SAVE, g.PRODUCT_SAVE, "CALLS", 6, "call `self.save(...)` at shop/models.py:6", "INFERRED"),
]


@pytest.fixture
def recursive(shop):
    shop.stores.graph().apply(shop.project, GraphBatch(edges=CALLS_ITSELF))
    return shop


def test_a_function_calling_itself_lists_the_call_as_recursion_both_ways(recursive) -> None:
    result = ok(recursive.call("function", {"name": "helper", "depth": 2}))
    for way in ("callers", "callees"):
        first = result[way]["items"][0]
        assert (first["id"], first["depth"], first["via"], first["recursion"]) == (g.HELPER.id, 1, g.HELPER.id, True)
        assert (first["evidence_file"], first["evidence_line"], first["confidence"]) == ("shop/services.py", 11, "EXTRACTED")
        assert first["explanation"] == "call `helper(...)` at shop/services.py:11"
    assert [(s["id"], s["recursion"]) for s in result["callers"]["items"]] == [
        (g.HELPER.id, True), (g.INNER.id, False), (g.CHECKOUT.id, False)
    ]
    assert (result["callers"]["total"], result["callees"]["total"]) == (3, 1)
    capped = ok(recursive.call("function", {"name": "helper", "limit": 1}))
    assert [s["id"] for s in capped["callers"]["items"]] == [g.HELPER.id]
    assert capped["callers"]["total"] == 2
    text = ok(recursive.call("function", {"name": "helper", "format": "markdown"}))["markdown"]
    assert "- d1 `shop.services.helper` (Function, shop/services.py:10) recursion @ shop/services.py:11" in text


def test_a_function_that_does_not_call_itself_has_no_recursion(recursive) -> None:
    result = ok(recursive.call("function", {"name": "checkout.inner"}))
    assert [(s["id"], s["recursion"]) for s in result["callees"]["items"]] == [(g.HELPER.id, False)]
    assert [(s["id"], s["recursion"]) for s in result["callers"]["items"]] == [(g.CHECKOUT.id, False)]


def test_a_class_marks_its_recursive_methods(recursive) -> None:
    result = ok(recursive.call("class", {"name": "Product"}))
    methods = {m["name"]: (m["recursion"], m["callers"]) for m in result["methods"]["items"]}
    assert methods == {"save": (True, 1), "render": (False, 1)}
    text = ok(recursive.call("class", {"name": "Product", "format": "markdown"}))["markdown"]
    assert "`def save(self)` — 1 caller (recursion)" in text
