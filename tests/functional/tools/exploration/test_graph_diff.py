"""graph_diff between real versions: a git repository ingested at two commits."""

from __future__ import annotations

import uuid

import pytest
from tests.functional.tools.exploration.depot import ok
from tests.functional.tools.exploration.shop_repo import TWO, commit, ingest, new_repo



@pytest.fixture
def real_project(world):
    slug = f"acme/diff{uuid.uuid4().hex[:10]}"
    yield slug
    world.graph.delete_project(slug)


def test_diff_of_two_commits_lists_every_change_exactly(world, call_as, real_project, tmp_path):
    repo = new_repo(tmp_path / "repo")
    ingest(world.stores, repo, real_project)
    commit(repo, TWO, "two")
    ingest(world.stores, repo, real_project)

    result = ok(call_as("graph_diff", {"project": real_project}, projects=(real_project,)))

    assert (result["from_version"], result["to_version"]) == (1, 2)
    assert result["counts"] == {
        "nodes_added": 2, "nodes_removed": 1, "nodes_changed": 8, "edges_added": 5, "edges_removed": 1,
        "edges_changed": 2, "nodes_before": 13, "nodes_after": 14, "edges_before": 16, "edges_after": 20,
    }  # fmt: skip
    assert result["nodes_added"] == [{
        "id": "function:shop/pricing.py:discount", "kind": "Function", "name": "discount",
        "qualified_name": "shop.pricing.discount", "file": "shop/pricing.py", "start_line": 6, "end_line": 7,
    }, {
        "id": "import:shop/cart.py:discount", "kind": "Import", "name": "from shop.pricing import discount",
        "qualified_name": "shop.cart[from shop.pricing import discount]", "file": "shop/cart.py", "start_line": 2,
        "end_line": 2,
    }]  # fmt: skip
    assert [n["id"] for n in result["nodes_removed"]] == ["method:shop/cart.py:Cart.clear"]
    assert {c["id"]: sorted(c["changes"]) for c in result["nodes_changed"]} == {
        "class:shop/cart.py:Cart": ["content_hash", "end_line"],
        "file:shop/cart.py": ["content_hash", "end_line"],
        "file:shop/pricing.py": ["content_hash", "end_line"],
        "function:shop/pricing.py:price_of": ["content_hash", "docstring", "signature"],
        # The statement of its Import node now binds two names.
        "import:shop/cart.py:price_of": ["content_hash", "signature"],
        "method:shop/cart.py:Cart.add": ["content_hash"],
        "module:shop.cart": ["content_hash", "end_line"],
        "module:shop.pricing": ["content_hash", "end_line"],
    }
    price_of = next(c for c in result["nodes_changed"] if c["id"] == "function:shop/pricing.py:price_of")
    assert price_of["changes"]["signature"] == {"before": "def price_of(sku)", "after": 'def price_of(sku, currency="EUR")'}
    assert [(e["source"], e["relation"], e["target"]) for e in result["edges_added"]] == [
        ("file:shop/cart.py", "CONTAINS", "import:shop/cart.py:discount"),
        ("file:shop/pricing.py", "DEFINES", "function:shop/pricing.py:discount"),
        ("import:shop/cart.py:discount", "RESOLVES_TO", "function:shop/pricing.py:discount"),
        ("import:shop/cart.py:discount", "RESOLVES_TO", "module:shop.pricing"),
        ("method:shop/cart.py:Cart.add", "CALLS", "function:shop/pricing.py:discount"),
    ]
    assert [(e["source"], e["relation"], e["target"]) for e in result["edges_removed"]] == [
        ("class:shop/cart.py:Cart", "DEFINES", "method:shop/cart.py:Cart.clear"),
    ]
    assert [(e["source"], e["relation"], sorted(e["changes"])) for e in result["edges_changed"]] == [
        ("file:shop/cart.py", "CONTAINS", ["explanation"]),
        ("file:shop/cart.py", "IMPORTS", ["explanation"]),
    ]
    assert result["next_cursor"] is None

    # Explicit versions, either way round.
    backwards = ok(call_as("graph_diff", {"project": real_project, "from_version": 2, "to_version": 1},
                           projects=(real_project,)))  # fmt: skip
    assert [n["id"] for n in backwards["nodes_added"]] == ["method:shop/cart.py:Cart.clear"]


def test_lists_are_capped_at_100_with_exact_counts_and_continued(world, call_as, real_project, tmp_path):
    repo = new_repo(tmp_path / "repo")
    ingest(world.stores, repo, real_project)
    many = "".join(f"def f{i:03}():\n    return {i}\n\n\n" for i in range(150))
    commit(repo, {"shop/many.py": many}, "many")
    ingest(world.stores, repo, real_project)
    arguments = {"project": real_project}

    first = ok(call_as("graph_diff", arguments, projects=(real_project,)))
    # 150 functions + the file + its module.
    assert (first["counts"]["nodes_added"], len(first["nodes_added"])) == (152, 100)
    assert first["counts"]["edges_added"] > 100 and len(first["edges_added"]) == 100
    second = ok(call_as("graph_diff", {**arguments, "cursor": first["next_cursor"]}, projects=(real_project,)))
    assert (len(second["nodes_added"]), second["offsets"]["nodes_added"]) == (52, 100)
    assert len(second["edges_added"]) == first["counts"]["edges_added"] - 100
    ids = [n["id"] for n in first["nodes_added"] + second["nodes_added"]]
    assert ids == sorted(set(ids)) and len(ids) == 152
    assert second["next_cursor"] is None
    foreign = call_as("graph_diff", {**arguments, "cursor": first["next_cursor"]}, projects=(real_project,), token_id="tk_x")
    assert foreign["error"]["details"]["reason"] == "foreign_caller"


def test_versions_that_cannot_be_diffed_are_a_clear_error(world, call_as, real_project, tmp_path):
    repo = new_repo(tmp_path / "repo")
    ingest(world.stores, repo, real_project)
    only_one = call_as("graph_diff", {"project": real_project}, projects=(real_project,))
    assert only_one["error"]["code"] == "not_found"
    assert "no diffable graph version before 1" in only_one["error"]["message"]
    unknown = call_as("graph_diff", {"project": real_project, "from_version": 1, "to_version": 9}, projects=(real_project,))
    assert unknown["error"]["code"] == "not_found" and "graph version 9" in unknown["error"]["message"]
