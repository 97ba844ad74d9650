"""query_graph on the depot graph: seeds, breadth-first neighborhood, caps, summary, annotations."""

from __future__ import annotations

from tests.functional.tools.exploration.depot import ADD_ITEM, CART, CHECKOUT, HANDLE, PRICE_OF, ROUTE, TOTAL, ok

from rhumbline.stores.graph.model import GraphBatch, Node


def _nodes(result: dict) -> list[tuple[str, int, bool, int]]:
    return [(n["id"], n["depth"], n["seed"], n["annotation_count"]) for n in result["nodes"]]


def test_seeds_expanded_to_depth_two_with_the_subgraph_edges(depot, call_as):
    ok(call_as("add_annotation", {"project": depot.project, "node_id": TOTAL, "content": "Rounds half-even."},
               scopes=("read", "write")))  # fmt: skip

    result = ok(call_as("query_graph", {"project": depot.project, "question": "how does checkout work?"}))

    found = _nodes(result)
    assert found[0] == (CHECKOUT, 0, True, 0)  # the seed first
    # Then by edge certainty x centrality x the question's words, divided by the distance: every
    # node of depth 1 before those of depth 2 here.
    assert sorted(found[1:4]) == sorted([(HANDLE, 1, False, 0), (ADD_ITEM, 1, False, 0), (TOTAL, 1, False, 1)])
    assert sorted(found[4:]) == sorted([(ROUTE, 2, False, 0), (PRICE_OF, 2, False, 0), (CART, 2, False, 0)])
    assert (result["nodes_total"], result["depth"], result["edges_total"]) == (7, 2, 8)
    assert [(e["source"], e["relation"], e["target"]) for e in result["edges"]] == [
        (CART, "DEFINES", ADD_ITEM),
        (CART, "DEFINES", TOTAL),
        (HANDLE, "CALLS", CHECKOUT),
        (ROUTE, "CALLS", HANDLE),
        (CHECKOUT, "CALLS", ADD_ITEM),
        (CHECKOUT, "CALLS", TOTAL),
        (ADD_ITEM, "CALLS", PRICE_OF),
        (TOTAL, "CALLS", PRICE_OF),
    ]
    assert result["summary"] == (
        "Seeds: the best search hits for “checkout” (left out: how, does, work (names no particular code)),"
        " those scoring close to the first: shop.checkout.checkout (Function). "
        "Neighbourhood: 7 of 7 nodes within 2 hops of the seeds (both directions, code relations), the rest"
        " chosen by the certainty of the edge reaching them x their centrality x the question's words in their"
        " names, nearer first; 8 of 8 edges among them. "
        "Most connected here: shop.checkout.checkout (3 edges); shop.cart.ShoppingCart.add_item (3 edges); "
        "shop.cart.ShoppingCart.total (3 edges); shop.cart.ShoppingCart (2 edges); shop.api.handle (2 edges). "
        "Nothing was cut. 1 node(s) carry annotations (see get_node)."
    )


def test_max_nodes_caps_the_neighborhood_and_the_summary_says_what_was_cut(depot, call_as):
    result = ok(call_as("query_graph", {"project": depot.project, "question": "checkout", "max_nodes": 3}))

    # The seed and the two best of the seven nodes around it.
    assert result["nodes"][0]["id"] == CHECKOUT and len(result["nodes"]) == 3
    assert {n["id"] for n in result["nodes"][1:]} <= {HANDLE, ADD_ITEM, TOTAL}
    assert (result["nodes_total"], result["depth"]) == (7, 1)
    assert "Seeds: the best search hits for “checkout”, those scoring close to the first" in result["summary"]
    assert result["summary"].endswith("Cut: 4 nodes (raise max_nodes, up to 100, or ask narrower).")


def test_no_match_is_an_empty_answer_that_says_so(depot, call_as):
    result = ok(call_as("query_graph", {"project": depot.project, "question": "the zebra quokka"}))
    assert (result["nodes"], result["edges"], result["nodes_total"]) == ([], [], 0)
    assert result["summary"] == "No node matches the question (searched for: zebra quokka); try `search` with a name."


def test_max_nodes_is_bounded(depot, call_as):
    outcome = call_as("query_graph", {"project": depot.project, "question": "cart", "max_nodes": 101})
    assert outcome["error"]["code"] == "invalid_arguments"


def test_the_seeds_are_the_first_hits_of_search(depot, call_as):
    """query_graph seeds from `search`'s own ranking over its own kinds: a document titled like the
    code it describes is no seed (it would fill the neighbourhood with what it mentions)."""
    document = Node(
        "document:docs/checkout.md", "Document", "checkout", "docs/checkout.md", "docs/checkout.md", 1, 20,
        None, None, "Checkout: how checkout totals the cart and charges it.",
    )  # fmt: skip
    depot.graph.apply(depot.project, GraphBatch(nodes=[document]))
    assert ok(call_as("search", {"project": depot.project, "query": "checkout", "all": True}))["hits"][0]["kind"] == "Document"

    searched = ok(call_as("search", {"project": depot.project, "query": "checkout"}))
    result = ok(call_as("query_graph", {"project": depot.project, "question": "checkout"}))

    seeds = [n["id"] for n in result["nodes"] if n["seed"]]
    assert seeds == [CHECKOUT]
    assert [hit["id"] for hit in searched["hits"]][: len(seeds)] == seeds
