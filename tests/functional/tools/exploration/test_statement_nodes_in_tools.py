"""Import nodes of a real ingest, seen through the tools: search skips them unless asked for by
kind, blast_radius never lists them, get_node shows them with their edges."""

from __future__ import annotations

import uuid

import pytest
from tests.functional.tools.exploration.depot import ok
from tests.functional.tools.exploration.shop_repo import ingest, new_repo


PRICE_OF = "function:shop/pricing.py:price_of"
IMPORT = "import:shop/cart.py:price_of"  # `from shop.pricing import price_of` in shop/cart.py


@pytest.fixture
def real_project(world, call_as, tmp_path):
    slug = f"acme/kinds{uuid.uuid4().hex[:10]}"
    ingest(world.stores, new_repo(tmp_path / "repo"), slug)
    yield slug
    world.graph.delete_project(slug)


def test_search_lists_import_nodes_only_when_asked(call_as, real_project):
    found = ok(call_as("search", {"project": real_project, "query": "price_of"}, projects=(real_project,)))
    assert found["hits"][0]["id"] == PRICE_OF
    assert "Import" not in {hit["kind"] for hit in found["hits"]}
    imports = ok(call_as("search", {"project": real_project, "query": "price_of", "kinds": ["Import"]},
                         projects=(real_project,)))  # fmt: skip
    assert [(hit["id"], hit["name"]) for hit in imports["hits"]][:1] == [(IMPORT, "from shop.pricing import price_of")]
    assert {hit["kind"] for hit in imports["hits"]} == {"Import"}


def test_blast_radius_and_name_lookups_never_land_on_them(call_as, real_project):
    radius = ok(call_as("blast_radius", {"project": real_project, "node_id": "price_of"}, projects=(real_project,)))
    assert radius["node_id"] == PRICE_OF
    assert [i["id"] for i in radius["impacted"]] == ["method:shop/cart.py:Cart.add"] and radius["total"] == 1


def test_get_node_shows_an_import_and_what_it_resolves_to(call_as, real_project):
    found = ok(call_as("get_node", {"project": real_project, "node_id": IMPORT}, projects=(real_project,)))
    text = str(found)
    assert "'kind': 'Import'" in text and "RESOLVES_TO" in text and PRICE_OF in text
