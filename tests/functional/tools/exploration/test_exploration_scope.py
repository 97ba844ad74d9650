"""Scope: a project the token lacks is refused alike whether it exists or not; search without a
project covers only the token's projects."""

from __future__ import annotations

import pytest
from tests.functional.tools.exploration.depot import CART, CHECKOUT, PRICE_OF, ok

ARGUMENTS = {
    "get_node": {"node_id": CART},
    "query_graph": {"question": "cart"},
    "trace_path": {"from_node": CHECKOUT, "to_node": PRICE_OF},
    "blast_radius": {"node_id": PRICE_OF},
    "graph_diff": {},
    "add_annotation": {"node_id": CART, "content": "x"},
    "list_annotations": {},
}


@pytest.mark.parametrize("tool", sorted(ARGUMENTS))
def test_another_project_is_refused_without_revealing_whether_it_exists(depot, call_as, tool):
    scopes = ("read", "write")
    existing = call_as(tool, {"project": depot.other_project, **ARGUMENTS[tool]}, scopes=scopes)
    invented = call_as(tool, {"project": "nobody/nothing", **ARGUMENTS[tool]}, scopes=scopes)

    assert existing["ok"] is False and invented["ok"] is False
    assert existing["error"] == {
        "code": "forbidden", "message": f"this token has no access to project '{depot.other_project}'", "details": {},
    }  # fmt: skip
    assert invented["error"]["message"].replace("nobody/nothing", depot.other_project) == existing["error"]["message"]


def test_search_without_a_project_covers_only_the_tokens_projects(depot, call_as):
    # Both projects hold a file named cart.py; the token sees one of them.
    mine = ok(call_as("search", {"query": "cart.py"}))
    assert {hit["project"] for hit in mine["hits"]} == {depot.project}
    both = ok(call_as("search", {"query": "cart.py"}, projects=(depot.project, depot.other_project)))
    assert {hit["project"] for hit in both["hits"]} == {depot.project, depot.other_project}
    assert both["total"] > mine["total"]
    assert sorted(h["project"] for h in both["hits"] if h["name"] == "cart.py") == sorted([depot.project, depot.other_project])
    denied = call_as("search", {"query": "cart.py", "project": depot.other_project})
    assert denied["error"]["code"] == "forbidden"
