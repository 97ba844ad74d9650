"""trace_path on the depot graph: directed shortest paths, undirected fallback, evidence per hop."""

from __future__ import annotations

from tests.functional.tools.exploration.depot import (
    ADD_ITEM, CART, CHECKOUT, DISCOUNT, GIFT_CART, HANDLE, PRICE_OF, ROUTE, TOTAL, ok,
)  # fmt: skip


def _route(path: dict) -> list[tuple[str, str, str]]:
    return [(hop["source"], hop["relation"], hop["target"]) for hop in path["edges"]]


def test_directed_paths_with_evidence_on_every_hop(depot, call_as):
    result = ok(call_as("trace_path", {"project": depot.project, "from_node": ROUTE, "to_node": PRICE_OF, "max_paths": 5}))

    assert (result["direction"], result["length"], result["total"]) == ("directed", 4, 2)
    assert result["from"]["id"] == ROUTE and result["to"]["id"] == PRICE_OF
    assert [_route(p) for p in result["paths"]] == [
        [(ROUTE, "CALLS", HANDLE), (HANDLE, "CALLS", CHECKOUT), (CHECKOUT, "CALLS", ADD_ITEM), (ADD_ITEM, "CALLS", PRICE_OF)],
        [(ROUTE, "CALLS", HANDLE), (HANDLE, "CALLS", CHECKOUT), (CHECKOUT, "CALLS", TOTAL), (TOTAL, "CALLS", PRICE_OF)],
    ]
    assert [n["id"] for n in result["paths"][1]["nodes"]] == [ROUTE, HANDLE, CHECKOUT, TOTAL, PRICE_OF]
    assert result["paths"][1]["edges"][3] == {
        "source": TOTAL, "target": PRICE_OF, "relation": "CALLS", "direction": "forward", "confidence": "INFERRED",
        "confidence_score": 0.8,
        "explanation": "call `price_of(...)` at shop/cart.py:25 resolved through `from shop.pricing import price_of`",
        "source_location": "shop/cart.py:25",
    }  # fmt: skip
    for path in result["paths"]:
        assert all(hop["explanation"].strip() and hop["source_location"] for hop in path["edges"])
    assert result["explanation"] == "Followed edges in their direction from shop.api.route → shop.pricing.price_of: 4 hop(s)."


def test_max_paths_defaults_to_one_with_the_exact_number_of_shortest_paths(depot, call_as):
    result = ok(call_as("trace_path", {"project": depot.project, "from_node": ROUTE, "to_node": PRICE_OF}))
    assert (len(result["paths"]), result["total"]) == (1, 2)
    assert result["paths"][0]["edges"][2]["target"] == ADD_ITEM


def test_undirected_fallback_says_so_and_marks_backward_hops(depot, call_as):
    result = ok(call_as("trace_path", {"project": depot.project, "from_node": DISCOUNT, "to_node": GIFT_CART, "max_paths": 5}))

    assert (result["direction"], result["length"], result["total"]) == ("undirected", 4, 2)
    assert result["explanation"].startswith("No directed path from shop.discounts.discount → shop.cart.GiftCart")
    first = result["paths"][0]
    assert [n["id"] for n in first["nodes"]] == [DISCOUNT, PRICE_OF, ADD_ITEM, CART, GIFT_CART]
    assert [(h["source"], h["relation"], h["target"], h["direction"]) for h in first["edges"]] == [
        (PRICE_OF, "CALLS", DISCOUNT, "backward"),
        (ADD_ITEM, "CALLS", PRICE_OF, "backward"),
        (CART, "DEFINES", ADD_ITEM, "backward"),
        (GIFT_CART, "INHERITS", CART, "backward"),
    ]
    assert [n["id"] for n in result["paths"][1]["nodes"]] == [DISCOUNT, PRICE_OF, TOTAL, CART, GIFT_CART]


def test_no_path_and_same_node(depot, call_as, world):
    lonely = "function:shop/lonely.py:alone"
    from rhumbline.stores.graph.model import GraphBatch, Node

    depot.graph.apply(depot.project, GraphBatch(nodes=[Node(lonely, "Function", "alone", "shop.lonely.alone")]))
    none = ok(call_as("trace_path", {"project": depot.project, "from_node": ROUTE, "to_node": lonely}))
    assert (none["direction"], none["length"], none["total"], none["paths"]) == ("none", None, 0, [])

    same = ok(call_as("trace_path", {"project": depot.project, "from_node": ROUTE, "to_node": ROUTE}))
    assert (same["direction"], same["length"], same["total"]) == ("directed", 0, 1)
    assert same["paths"] == [{"nodes": [same["from"]], "edges": []}]


def test_names_resolve_and_ambiguity_is_reported(depot, call_as):
    from rhumbline.stores.graph.model import GraphBatch, Node

    result = ok(call_as("trace_path", {"project": depot.project, "from_node": "shop.api.route", "to_node": "checkout"}))
    assert (result["from"]["id"], result["to"]["id"], result["length"]) == (ROUTE, CHECKOUT, 2)
    assert call_as("trace_path", {"project": depot.project, "from_node": "nothing_here", "to_node": ROUTE})["error"]["code"] == "not_found"

    twins = [Node(f"function:shop/{m}.py:helper", "Function", "helper", f"shop.{m}.helper") for m in ("a", "b")]
    depot.graph.apply(depot.project, GraphBatch(nodes=twins))
    ambiguous = call_as("trace_path", {"project": depot.project, "from_node": "helper", "to_node": ROUTE})
    assert ambiguous["error"]["code"] == "ambiguous"
    assert [c["id"] for c in ambiguous["error"]["details"]["candidates"]] == [t.id for t in twins]
