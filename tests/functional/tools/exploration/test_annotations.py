"""Annotations through real ingests: they survive a rebuild and a `clear`, and are listed as
orphaned (never dropped) when their node disappears. Scope and limits of add_annotation."""

from __future__ import annotations

import uuid

import pytest
from tests.functional.tools.exploration.depot import CART, ok
from tests.functional.tools.exploration.shop_repo import TWO, commit, ingest, new_repo


WRITE = ("read", "write")
CLASS = "class:shop/cart.py:Cart"
CLEAR = "method:shop/cart.py:Cart.clear"


@pytest.fixture
def real_project(world):
    slug = f"acme/real{uuid.uuid4().hex[:10]}"
    yield slug
    world.graph.delete_project(slug)


def test_annotations_survive_rebuilds_and_clear_and_orphans_stay_listed(world, call_as, real_project, tmp_path):
    repo = new_repo(tmp_path / "repo")
    ingest(world.stores, repo, real_project)
    on_class = ok(call_as("add_annotation", {"project": real_project, "node_id": CLASS, "content": "Carts are per session."},
                          scopes=WRITE, projects=(real_project,)))  # fmt: skip
    on_clear = ok(call_as("add_annotation", {"project": real_project, "node_id": CLEAR,
                                             "content": "clear() keeps the reservation.", "tags": ["gotcha"]},
                          scopes=WRITE, projects=(real_project,)))  # fmt: skip

    def shown(node_id: str) -> list[str]:
        result = ok(call_as("get_node", {"project": real_project, "node_id": node_id}, projects=(real_project,)))
        return [a["content"] for a in result["annotations"]["annotations"]]

    ingest(world.stores, repo, real_project)  # a rebuild (incremental, nothing changed)
    assert shown(CLASS) == ["Carts are per session."]
    ingest(world.stores, repo, real_project, clear=True)  # the graph wiped and rebuilt
    assert shown(CLASS) == ["Carts are per session."]
    assert shown(CLEAR) == ["clear() keeps the reservation."]

    commit(repo, TWO, "two")  # clear() is gone
    ingest(world.stores, repo, real_project)
    assert shown(CLASS) == ["Carts are per session."]
    listed = ok(call_as("list_annotations", {"project": real_project}, projects=(real_project,)))
    assert [(a["id"], a["node_id"], a["orphaned"]) for a in listed["annotations"]] == [
        (on_class["id"], CLASS, False),
        (on_clear["id"], CLEAR, True),
    ]
    orphans = ok(call_as("list_annotations", {"project": real_project, "orphaned": True}, projects=(real_project,)))
    assert orphans["total"] == 1
    (orphan,) = orphans["annotations"]
    assert (orphan["node_id"], orphan["node_kind"], orphan["node_label"], orphan["content"], orphan["tags"]) == (
        CLEAR, "Method", "shop.cart.Cart.clear", "clear() keeps the reservation.", ["gotcha"],
    )  # fmt: skip
    # Following the old id: not found, with the orphaned knowledge in the error.
    gone = call_as("get_node", {"project": real_project, "node_id": CLEAR}, projects=(real_project,))
    assert gone["error"]["code"] == "not_found"
    assert [a["content"] for a in gone["error"]["details"]["orphaned_annotations"]] == ["clear() keeps the reservation."]


def test_list_annotations_pages_with_a_cursor(depot, call_as):
    for n in range(3):
        ok(call_as("add_annotation", {"project": depot.project, "node_id": CART, "content": f"note {n}"}, scopes=WRITE))
    first = ok(call_as("list_annotations", {"project": depot.project, "limit": 2}))
    assert ([a["content"] for a in first["annotations"]], first["total"]) == (["note 0", "note 1"], 3)
    second = ok(call_as("list_annotations", {"project": depot.project, "limit": 2, "cursor": first["next_cursor"]}))
    assert ([a["content"] for a in second["annotations"]], second["offset"], second["next_cursor"]) == (["note 2"], 2, None)


def test_add_annotation_needs_write_scope_an_existing_node_and_bounded_content(depot, call_as):
    denied = call_as("add_annotation", {"project": depot.project, "node_id": CART, "content": "x"})
    assert (denied["error"]["code"], denied["error"]["message"]) == ("forbidden", "this token lacks the 'write' scope")

    missing = call_as("add_annotation", {"project": depot.project, "node_id": "class:nope.py:Nope", "content": "x"}, scopes=WRITE)
    assert missing["error"]["code"] == "not_found"

    too_long = call_as("add_annotation", {"project": depot.project, "node_id": CART, "content": "x" * 4001}, scopes=WRITE)
    assert too_long["error"]["code"] == "invalid_arguments" and "content" in too_long["error"]["message"]
    bad_tag = call_as("add_annotation", {"project": depot.project, "node_id": CART, "content": "x", "tags": ["no spaces"]},
                      scopes=WRITE)  # fmt: skip
    assert bad_tag["error"]["code"] == "invalid_arguments"
    blank = call_as("add_annotation", {"project": depot.project, "node_id": CART, "content": "   "}, scopes=WRITE)
    assert blank["error"]["code"] == "invalid_arguments"

    added = ok(call_as("add_annotation", {"project": depot.project, "node_id": CART, "content": "  ok  ", "tags": ["a", "a"]},
                       scopes=WRITE))  # fmt: skip
    assert (added["node_id"], added["author"], added["provenance"]) == (CART, "tester-tk_test", "CONTRIBUTED")
    stored = ok(call_as("list_annotations", {"project": depot.project, "node_id": CART}))["annotations"]
    assert [(a["content"], a["tags"]) for a in stored] == [("ok", ["a"])]
