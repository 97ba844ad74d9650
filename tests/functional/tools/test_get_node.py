from __future__ import annotations


def test_node_detail_and_edges_both_directions(world):
    outcome = world.call("get_node", {"project": world.project, "node_id": "class:shop/cart.py:ShoppingCart"})
    assert outcome["ok"], outcome
    result = outcome["result"]
    assert result["node"] == {
        "id": "class:shop/cart.py:ShoppingCart",
        "kind": "Class",
        "name": "ShoppingCart",
        "qualified_name": "shop.cart.ShoppingCart",
        "file": "shop/cart.py",
        "start_line": 3,
        "end_line": 40,
        "language": "python",
        "signature": "class ShoppingCart",
        "docstring": "A customer's cart of line items.",
        "content_hash": None,
    }
    assert result["outgoing"]["total"] == 2
    assert [(e["relation"], e["other_id"], e["other_kind"], e["other_name"]) for e in result["outgoing"]["edges"]] == [
        ("DEFINES", "method:shop/cart.py:ShoppingCart.add_item", "Method", "add_item"),
        ("DEFINES", "method:shop/cart.py:ShoppingCart.total", "Method", "total"),
    ]
    assert result["incoming"] == {
        "edges": [
            {
                "relation": "DEFINES",
                "confidence": "EXTRACTED",
                "confidence_score": 1.0,
                "explanation": "class ShoppingCart defined at shop/cart.py:3",
                "file": "shop/cart.py",
                "line": 3,
                "other_id": "file:shop/cart.py",
                "other_kind": "File",
                "other_name": "cart.py",
            }
        ],
        "total": 1,
        "offset": 0,
    }
    assert result["annotations"] == {"annotations": [], "total": 0}
    assert result["next_cursor"] is None


def test_edges_are_capped_with_exact_totals(world):
    outcome = world.call(
        "get_node", {"project": world.project, "node_id": "class:shop/cart.py:ShoppingCart", "edge_limit": 1}
    )
    outgoing = outcome["result"]["outgoing"]
    assert outgoing["total"] == 2
    assert [edge["other_id"] for edge in outgoing["edges"]] == ["method:shop/cart.py:ShoppingCart.add_item"]


def test_call_edge_carries_confidence_and_explanation(world):
    outcome = world.call("get_node", {"project": world.project, "node_id": "function:shop/pricing.py:price_of"})
    calls = [edge for edge in outcome["result"]["incoming"]["edges"] if edge["relation"] == "CALLS"]
    assert calls == [
        {
            "relation": "CALLS",
            "confidence": "INFERRED",
            "confidence_score": 0.8,
            "explanation": "call `price_of(...)` at shop/cart.py:25 resolved through `from shop.pricing import price_of`",
            "file": "shop/cart.py",
            "line": 25,
            "other_id": "method:shop/cart.py:ShoppingCart.total",
            "other_kind": "Method",
            "other_name": "total",
        }
    ]


def test_project_may_be_omitted_when_the_token_sees_one_project(world):
    outcome = world.call("get_node", {"node_id": "function:shop/pricing.py:price_of"})
    assert outcome["ok"], outcome
    assert outcome["result"]["project"] == world.project


def test_unknown_node_is_a_specific_error(world):
    outcome = world.call("get_node", {"project": world.project, "node_id": "function:nope.py:missing"})
    assert outcome["ok"] is False
    assert outcome["error"]["code"] == "not_found"
    assert outcome["error"]["message"] == (
        f"no node 'function:nope.py:missing' in project '{world.project}'; use `search` to find node ids"
    )


def test_other_project_is_denied_without_revealing_it_exists(world):
    existing = world.call("get_node", {"project": world.other_project, "node_id": "repository:"})
    missing = world.call("get_node", {"project": "ghost/never-created", "node_id": "repository:"})
    assert existing["error"]["code"] == missing["error"]["code"] == "forbidden"
    assert existing["error"]["message"] == f"this token has no access to project '{world.other_project}'"
    assert missing["error"]["message"] == "this token has no access to project 'ghost/never-created'"


def test_bad_arguments_are_specific(world):
    outcome = world.call("get_node", {"project": world.project, "node_id": "", "edge_limit": 0})
    assert outcome["error"]["code"] == "invalid_arguments"
    assert "node_id: String should have at least 1 character" in outcome["error"]["message"]
    assert "edge_limit: Input should be greater than or equal to 1" in outcome["error"]["message"]
