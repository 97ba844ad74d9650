"""blast_radius on the depot graph: dependents, exact ranking by betweenness, caps and cursors."""

from __future__ import annotations

from tests.functional.tools.exploration.depot import (
    ADD_ITEM, CACHED, CART, CART_FILE, CHECKOUT, GIFT_CART, HANDLE, PRICE_OF, PRICING_FILE, ROUTE, TOTAL, ok,
)  # fmt: skip

from rhumbline import centrality

# Betweenness (see depot.py), as stored: six significant digits.
B = {CHECKOUT: 0.0909091, PRICE_OF: 0.0909091, HANDLE: 0.0545455, TOTAL: 0.0409091, ADD_ITEM: 0.0409091}


def _impacted(result: dict) -> list[tuple[str, int, float]]:
    return [(i["id"], i["distance"], i["betweenness"]) for i in result["impacted"]]


def test_dependents_ranked_by_betweenness_then_distance_then_id(depot, call_as):
    result = ok(call_as("blast_radius", {"project": depot.project, "node_id": PRICE_OF}))

    assert (result["node_id"], result["depth"], result["members"], result["total"]) == (PRICE_OF, 2, 0, 3)
    assert _impacted(result) == [
        (CHECKOUT, 2, B[CHECKOUT]),
        (ADD_ITEM, 1, B[ADD_ITEM]),  # ties with total on betweenness and distance: by id
        (TOTAL, 1, B[TOTAL]),
    ]
    first = result["impacted"][0]
    assert (first["label"], first["kind"], first["file"], first["line"]) == (
        "shop.checkout.checkout", "Function", "shop/checkout.py", 3,
    )  # fmt: skip
    assert result["centrality"]["exact"] is True and result["next_cursor"] is None

    deepest = ok(call_as("blast_radius", {"project": depot.project, "node_id": PRICE_OF, "depth": 4}))
    assert _impacted(deepest) == [
        (CHECKOUT, 2, B[CHECKOUT]), (HANDLE, 3, B[HANDLE]), (ADD_ITEM, 1, B[ADD_ITEM]), (TOTAL, 1, B[TOTAL]),
        (ROUTE, 4, 0.0),
    ]  # fmt: skip


def test_a_decorator_impacts_what_it_decorates_and_their_callers(depot, call_as):
    result = ok(call_as("blast_radius", {"project": depot.project, "node_id": CACHED}))
    assert _impacted(result) == [(PRICE_OF, 1, B[PRICE_OF]), (ADD_ITEM, 2, B[ADD_ITEM]), (TOTAL, 2, B[TOTAL])]


def test_a_class_or_file_counts_with_its_members(depot, call_as):
    cart = ok(call_as("blast_radius", {"project": depot.project, "node_id": CART}))
    # Members add_item and total; GiftCart inherits, checkout calls the methods, handle calls checkout.
    assert cart["members"] == 2
    assert _impacted(cart) == [(CHECKOUT, 1, B[CHECKOUT]), (HANDLE, 2, B[HANDLE]), (GIFT_CART, 1, 0.0)]

    pricing = ok(call_as("blast_radius", {"project": depot.project, "node_id": PRICING_FILE, "depth": 1}))
    assert pricing["members"] == 1  # price_of
    assert _impacted(pricing) == [(ADD_ITEM, 1, B[ADD_ITEM]), (TOTAL, 1, B[TOTAL]), (CART_FILE, 1, 0.0)]


def test_capped_with_an_exact_total_and_continued_by_cursor(depot, call_as):
    arguments = {"project": depot.project, "node_id": PRICE_OF, "depth": 4, "limit": 2}
    first = ok(call_as("blast_radius", arguments))
    assert ([i["id"] for i in first["impacted"]], first["total"], first["offset"]) == ([CHECKOUT, HANDLE], 5, 0)
    second = ok(call_as("blast_radius", {**arguments, "cursor": first["next_cursor"]}))
    assert ([i["id"] for i in second["impacted"]], second["offset"]) == ([ADD_ITEM, TOTAL], 2)
    third = ok(call_as("blast_radius", {**arguments, "cursor": second["next_cursor"]}))
    assert ([i["id"] for i in third["impacted"]], third["offset"], third["next_cursor"]) == ([ROUTE], 4, None)
    # The cursor is bound to its depth.
    other = call_as("blast_radius", {**arguments, "depth": 3, "cursor": first["next_cursor"]})
    assert other["error"]["details"]["reason"] == "other_query"


def test_a_name_that_names_one_node_is_accepted(depot, call_as):
    assert ok(call_as("blast_radius", {"project": depot.project, "node_id": "price_of"}))["node_id"] == PRICE_OF
    missing = call_as("blast_radius", {"project": depot.project, "node_id": "function:nowhere.py:nothing"})
    assert missing["error"]["code"] == "not_found"


def test_centrality_is_computed_once_per_graph_and_stored(depot, call_as, monkeypatch):
    calls = []
    real = centrality.betweenness
    monkeypatch.setattr(centrality, "betweenness", lambda *a, **k: calls.append(1) or real(*a, **k))

    for _ in range(3):
        ok(call_as("blast_radius", {"project": depot.project, "node_id": PRICE_OF}))
    assert len(calls) == 1
    # A cold function (empty memory) reads the stored scores instead of computing them.
    centrality.forget()
    ok(call_as("blast_radius", {"project": depot.project, "node_id": PRICE_OF}))
    assert len(calls) == 1
    stored = centrality.scores(depot.graph, depot.engine, depot.project)
    assert stored.values == B and stored.exact and stored.node_count == 12 and stored.edge_count == 10
