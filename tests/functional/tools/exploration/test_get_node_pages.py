"""get_node: edges page by page with cursors (and every way a cursor is refused), annotations."""

from __future__ import annotations

from tests.functional.tools.exploration.depot import ADD_ITEM, CART, CART_FILE, GIFT_CART, TOTAL, ok

from rhumbline.stores.graph.model import GraphBatch
from rhumbline.tools import cursors


def _page(result: dict) -> tuple:
    return (
        [e["other_id"] for e in result["outgoing"]["edges"]], result["outgoing"]["total"], result["outgoing"]["offset"],
        [e["other_id"] for e in result["incoming"]["edges"]], result["incoming"]["total"], result["incoming"]["offset"],
    )  # fmt: skip


def test_edges_continue_with_the_cursor_until_both_directions_are_done(depot, call_as):
    first = ok(call_as("get_node", {"project": depot.project, "node_id": CART, "edge_limit": 1}))
    # out: DEFINES add_item, DEFINES total; in: DEFINES from cart.py, INHERITS from GiftCart.
    assert _page(first) == ([ADD_ITEM], 2, 0, [CART_FILE], 2, 0)
    assert first["next_cursor"]

    second = ok(call_as(
        "get_node", {"project": depot.project, "node_id": CART, "edge_limit": 1, "cursor": first["next_cursor"]}
    ))  # fmt: skip
    assert _page(second) == ([TOTAL], 2, 1, [GIFT_CART], 2, 1)
    assert second["next_cursor"] is None


def test_a_finished_direction_lists_nothing_more_but_keeps_its_total(depot, call_as):
    first = ok(call_as("get_node", {"project": depot.project, "node_id": TOTAL, "edge_limit": 1}))
    # total: out CALLS price_of (1 edge); in CALLS from checkout, DEFINES from ShoppingCart (2).
    assert _page(first)[1:] == (1, 0, ["function:shop/checkout.py:checkout"], 2, 0)
    second = ok(call_as(
        "get_node", {"project": depot.project, "node_id": TOTAL, "edge_limit": 1, "cursor": first["next_cursor"]}
    ))  # fmt: skip
    assert _page(second) == ([], 1, 1, [CART], 2, 1)
    assert second["next_cursor"] is None


def _refused(outcome: dict) -> tuple[str, str]:
    assert outcome["ok"] is False, outcome
    assert outcome["error"]["code"] == "invalid_arguments"
    return outcome["error"]["details"]["reason"], outcome["error"]["message"]


def test_a_cursor_is_refused_when_tampered_foreign_or_for_another_query(depot, call_as):
    arguments = {"project": depot.project, "node_id": CART, "edge_limit": 1}
    cursor = ok(call_as("get_node", arguments))["next_cursor"]
    payload, stamp, signature = cursor.split(".")

    # One character of the position changed: the signature no longer matches.
    flipped = payload[:-2] + ("A" if payload[-2] != "A" else "B") + payload[-1]
    assert _refused(call_as("get_node", {**arguments, "cursor": f"{flipped}.{stamp}.{signature}"}))[0] == "tampered"
    assert _refused(call_as("get_node", {**arguments, "cursor": "not-a-cursor"}))[0] == "malformed"
    # Another token replays it.
    assert _refused(call_as("get_node", {**arguments, "cursor": cursor}, token_id="tk_other"))[0] == "foreign_caller"
    # Other arguments (another page size, another node).
    assert _refused(call_as("get_node", {**arguments, "edge_limit": 2, "cursor": cursor}))[0] == "other_query"
    assert _refused(call_as("get_node", {**arguments, "node_id": TOTAL, "cursor": cursor}))[0] == "other_query"
    # Unchanged, it still works.
    assert ok(call_as("get_node", {**arguments, "cursor": cursor}))["outgoing"]["offset"] == 1


def test_a_cursor_expires_and_dies_with_the_graph_version(depot, call_as, monkeypatch):
    arguments = {"project": depot.project, "node_id": CART, "edge_limit": 1}
    monkeypatch.setattr(cursors, "TTL_SECONDS", -1)
    stale = ok(call_as("get_node", arguments))["next_cursor"]
    reason, message = _refused(call_as("get_node", {**arguments, "cursor": stale}))
    assert reason == "expired" and "start again" in message
    monkeypatch.undo()

    cursor = ok(call_as("get_node", arguments))["next_cursor"]
    depot.graph.apply(depot.project, GraphBatch(version=7))  # a new graph version lands
    assert _refused(call_as("get_node", {**arguments, "cursor": cursor}))[0] == "graph_changed"


def test_annotations_are_listed_with_provenance_contributed(depot, call_as):
    for text in ("Totals are computed in cents.", "Not thread-safe."):
        ok(call_as("add_annotation", {"project": depot.project, "node_id": CART, "content": text, "tags": ["money"]},
                   scopes=("read", "write")))  # fmt: skip

    result = ok(call_as("get_node", {"project": depot.project, "node_id": CART}))
    listed = result["annotations"]
    assert listed["total"] == 2
    # Newest first.
    assert [(a["content"], a["tags"], a["author"], a["provenance"]) for a in listed["annotations"]] == [
        ("Not thread-safe.", ["money"], "tester-tk_test", "CONTRIBUTED"),
        ("Totals are computed in cents.", ["money"], "tester-tk_test", "CONTRIBUTED"),
    ]
    assert ok(call_as("get_node", {"project": depot.project, "node_id": TOTAL}))["annotations"] == {
        "annotations": [],
        "total": 0,
    }
