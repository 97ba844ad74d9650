from __future__ import annotations


def hit_ids(outcome: dict) -> list[tuple[str, str]]:
    assert outcome["ok"], outcome
    return [(hit["id"], hit["match"]) for hit in outcome["result"]["hits"]]


def test_exact_name_ranks_first_case_insensitively(world):
    outcome = world.call("search", {"query": "shoppingcart", "project": world.project})
    hits = outcome["result"]["hits"]
    assert hits[0]["id"] == "class:shop/cart.py:ShoppingCart"
    assert hits[0]["match"] == "exact"
    assert 3.0 <= hits[0]["score"] < 3.5  # exact, though not spelled as typed
    assert hits[0]["snippet"] == "A customer's cart of line items."
    assert hits[0]["file"] == "shop/cart.py" and hits[0]["line"] == 3
    assert hits[0]["project"] == world.project


def test_snake_case_words_match_by_prefix(world):
    outcome = world.call("search", {"query": "add", "project": world.project})
    assert hit_ids(outcome)[0] == ("method:shop/cart.py:ShoppingCart.add_item", "prefix")
    assert outcome["result"]["total"] == len(outcome["result"]["hits"])


def test_camel_case_words_are_searchable(world):
    outcome = world.call("search", {"query": "cart", "project": world.project, "kinds": ["Class"]})
    # "cart" is not a prefix of "shoppingcart" but is of its split word "cart".
    assert hit_ids(outcome) == [("class:shop/cart.py:ShoppingCart", "prefix")]
    assert outcome["result"]["total"] == 1


def test_limit_caps_hits_but_total_is_exact(world):
    full = world.call("search", {"query": "shop", "project": world.project, "limit": 50})
    capped = world.call("search", {"query": "shop", "project": world.project, "limit": 1})
    assert full["result"]["total"] >= 2
    assert len(capped["result"]["hits"]) == 1
    assert capped["result"]["total"] == full["result"]["total"]
    assert capped["result"]["hits"][0] == full["result"]["hits"][0]


def test_without_project_only_the_tokens_projects_are_searched(world):
    mine = world.call("search", {"query": "ShoppingCart"})
    assert {hit["project"] for hit in mine["result"]["hits"]} == {world.project}
    both = world.call("search", {"query": "ShoppingCart"}, projects=(world.project, world.other_project))
    # The rival project holds no ShoppingCart class (it has only the repository and two files,
    # whose paths may share a word with it).
    assert both["result"]["hits"][0]["project"] == world.project
    assert [h["project"] for h in both["result"]["hits"] if h["match"] == "exact"] == [world.project]
    files = world.call("search", {"query": "pricing.py", "kinds": ["File"]}, projects=(world.project, world.other_project))
    exact = [hit["project"] for hit in files["result"]["hits"] if hit["match"] == "exact"]
    assert sorted(exact) == sorted([world.project, world.other_project])
    assert {hit["project"] for hit in files["result"]["hits"]} <= {world.project, world.other_project}


def test_searching_a_project_outside_the_token_is_denied(world):
    outcome = world.call("search", {"query": "cart", "project": world.other_project})
    assert outcome["error"]["code"] == "forbidden"


def test_hostile_query_text_is_searched_not_parsed(world):
    for query in ['cart"', "AND OR (", "*", "price_of:", "NEAR(a b)", "'; DROP TABLE nodes; --"]:
        outcome = world.call("search", {"query": query, "project": world.project})
        assert outcome["ok"], (query, outcome)


def test_unknown_kind_and_blank_query_are_specific_errors(world):
    unknown = world.call("search", {"query": "cart", "project": world.project, "kinds": ["Galaxy"]})
    assert unknown["error"]["code"] == "invalid_arguments"
    assert "unknown kinds ['Galaxy']" in unknown["error"]["message"]
    blank = world.call("search", {"query": "   ", "project": world.project})
    assert blank["error"]["code"] == "invalid_arguments"
    too_many = world.call("search", {"query": "cart", "project": world.project, "limit": 51})
    assert "limit: Input should be less than or equal to 50" in too_many["error"]["message"]


def test_a_declaration_without_a_body_is_listed_under_its_implementation(world):
    from rhumbline.stores.graph.model import GraphBatch, Node

    implementation = Node(
        id="method:shop/ledger.js:Ledger.reconcile", kind="Method", name="reconcile",
        qualified_name="shop/ledger:Ledger.reconcile", file="shop/ledger.js", start_line=12, end_line=40,
        language="javascript", signature="reconcile(entries)",
    )  # fmt: skip
    declaration = Node(
        id="method:types/shop.d.ts:Ledger.reconcile", kind="Method", name="reconcile",
        qualified_name="types/shop:Ledger.reconcile", file="types/shop.d.ts", start_line=7, end_line=7,
        language="typescript", signature="reconcile(entries: Entry[]): Balance", docstring="Reconcile the ledger.",
    )  # fmt: skip
    world.stores.graph().apply(world.project, GraphBatch(nodes=[implementation, declaration]))
    result = world.call("search", {"query": "reconcile", "project": world.project})["result"]
    assert [hit["id"] for hit in result["hits"]] == [implementation.id]
    assert result["declarations"] == [
        {"of": implementation.id, "kind": "Method", "id": declaration.id, "qualified_name": "types/shop:Ledger.reconcile",
         "file": "types/shop.d.ts", "line": 7},
    ]  # fmt: skip
    assert result["total"] == 2
