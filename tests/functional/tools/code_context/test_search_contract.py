"""search's contract on both shapes, over the shop graph: `all` adds the knowledge layer, `docs`
keeps docstring and wiki matches, `kinds` filters, `limit` caps with an exact total, and without
`project` the token's projects are merged by score, not concatenated."""

from __future__ import annotations

from rhumbline.stores.graph.model import GraphBatch, Node
from tests.functional.tools.code_context import shop_graph as g
from tests.functional.tools.code_context.conftest import failed, ok


def hits(result: dict) -> list[tuple[str, str]]:
    return [(h["id"], h["match"]) for h in result["hits"]]


def test_code_only_by_default_and_all_adds_the_knowledge_layer(shop) -> None:
    code = ok(shop.call("search", {"query": "checkout"}))
    # The module's docstring and the inner function's qualified name hold the word.
    assert hits(code)[0] == (g.CHECKOUT.id, "exact")
    assert sorted(hits(code)[1:]) == sorted([("module:shop.services", "fulltext"), (g.INNER.id, "fulltext")])
    assert code["total"] == 3
    everything = ok(shop.call("search", {"query": "checkout", "all": True}))
    assert hits(everything)[:3] == [(g.CHECKOUT.id, "exact"), (g.WIKI.id, "prefix"), (g.RULE.id, "prefix")]
    assert sorted(hits(everything)[3:]) == sorted(
        [("module:shop.services", "fulltext"), (g.INNER.id, "fulltext"), (g.CONCEPT.id, "fulltext")]
    )
    assert everything["total"] == 6
    rule = everything["hits"][2]
    assert (rule["kind"], rule["name"], rule["file"], rule["line"]) == ("Rule", "Checkout rules", "docs/glossary.md", 7)
    assert rule["snippet"] == "- Never call `helper` from outside `shop.services`."


def test_docs_keeps_docstring_and_wiki_matches(shop) -> None:
    assert hits(ok(shop.call("search", {"query": "basket"}))) == [(g.CHECKOUT.id, "fulltext")]
    docs = ok(shop.call("search", {"query": "basket", "docs": True}))
    assert sorted(hits(docs)) == sorted([(g.WIKI.id, "fulltext"), (g.CHECKOUT.id, "fulltext")])
    assert docs["total"] == 2
    # A name alone is not documentation.
    assert ok(shop.call("search", {"query": "slugify", "docs": True}))["total"] == 0


def test_kinds_limit_and_exact_totals(shop) -> None:
    methods = ok(shop.call("search", {"query": "render", "kinds": ["Method"]}))
    assert hits(methods) == [(g.ORDER_RENDER.id, "exact"), (g.PRODUCT_RENDER.id, "exact")]
    everything = ok(shop.call("search", {"query": "shop", "limit": 50}))
    capped = ok(shop.call("search", {"query": "shop", "limit": 2}))
    assert len(capped["hits"]) == 2 and capped["total"] == everything["total"] > 2
    assert capped["hits"] == everything["hits"][:2]
    assert failed(shop.call("search", {"query": "shop", "limit": 0}), "invalid_arguments")


def test_projects_are_merged_by_score(shop) -> None:
    other = Node("function:lib/flow.py:checkout_all", "Function", "checkout_all", "lib.flow.checkout_all",
                 "lib/flow.py", 1, 3, "python", "def checkout_all()")  # fmt: skip
    shop.graph.apply(shop.other_project, GraphBatch(nodes=[other]))
    both = (shop.project, shop.other_project)
    result = ok(shop.call("search", {"query": "checkout"}, projects=both))
    found = [(h["project"], h["id"], h["match"]) for h in result["hits"]]
    assert found[:2] == [(shop.project, g.CHECKOUT.id, "exact"), (shop.other_project, other.id, "prefix")]
    assert sorted(found[2:]) == sorted([
        (shop.project, "module:shop.services", "fulltext"), (shop.project, g.INNER.id, "fulltext"),
    ])  # fmt: skip
    assert result["total"] == 4
    # One project named: only that one.
    assert ok(shop.call("search", {"query": "checkout", "project": shop.project}, projects=both))["total"] == 3
