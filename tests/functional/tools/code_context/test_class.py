"""class on both shapes: the hierarchy both ways across files (with an unresolved base), methods
with their callers count, references by kind, caps with exact totals, markdown."""

from __future__ import annotations

from tests.functional.tools.code_context import shop_graph as g
from tests.functional.tools.code_context.conftest import failed, ok


def steps(listing: dict) -> list[tuple[str, int, str]]:
    return [(s["id"], s["depth"], s["via"]) for s in listing["items"]]


def test_a_class_in_the_middle_of_its_hierarchy(shop) -> None:
    result = ok(shop.call("class", {"name": "Product"}))
    assert result["node"]["qualified_name"] == "shop.models.Product"
    assert steps(result["bases"]) == [(g.MODEL.id, 1, g.PRODUCT.id)]
    assert result["bases"]["items"][0]["evidence_line"] == 4
    assert steps(result["subclasses"]) == [(g.DIGITAL.id, 1, g.PRODUCT.id)]
    assert result["unresolved_bases"] == []
    assert [(m["name"], m["line"], m["callers"]) for m in result["methods"]["items"]] == [("save", 5, 0), ("render", 9, 1)]
    assert result["methods"]["total"] == 2
    assert [(r["how"], r["node"]["id"], r["evidence_line"]) for r in result["references"]["items"]] == [
        ("instantiated", g.CHECKOUT.id, 17),
        ("subclassed", g.DIGITAL.id, 3),
    ]
    assert result["references"]["total"] == 2
    assert [d["node"]["id"] for d in result["documented_by"]["items"]] == [g.CONCEPT.id]
    assert result["decorators"]["total"] == 0


def test_bases_up_the_hierarchy_across_files_and_an_unresolved_one(shop) -> None:
    result = ok(shop.call("class", {"name": "shop.digital.DigitalProduct"}))
    assert steps(result["bases"]) == [(g.PRODUCT.id, 1, g.DIGITAL.id), (g.MODEL.id, 2, g.PRODUCT.id)]
    assert [b["file"] for b in result["bases"]["items"]] == ["shop/models.py", "shop/base.py"]
    assert result["bases"]["total"] == 2
    assert result["unresolved_bases"] == ["class:?:Downloadable"]
    assert result["subclasses"]["total"] == 0
    assert result["node"]["docstring"] == "A product you download."


def test_known_subclasses_at_every_depth_capped_with_exact_total(shop) -> None:
    result = ok(shop.call("class", {"name": "Model"}))
    assert steps(result["subclasses"]) == [
        (g.ORDER.id, 1, g.MODEL.id), (g.PRODUCT.id, 1, g.MODEL.id), (g.DIGITAL.id, 2, g.PRODUCT.id),
    ]  # fmt: skip
    assert [(m["name"], m["callers"]) for m in result["methods"]["items"]] == [("save", 1), ("validate", 2)]
    assert [d["node"]["id"] for d in result["documented_by"]["items"]] == [g.DECISION.id]
    capped = ok(shop.call("class", {"name": "Model", "limit": 1}))
    assert (steps(capped["subclasses"]), capped["subclasses"]["total"]) == ([(g.ORDER.id, 1, g.MODEL.id)], 3)
    assert (len(capped["methods"]["items"]), capped["methods"]["total"]) == (1, 2)
    assert (len(capped["references"]["items"]), capped["references"]["total"]) == (1, 2)


def test_not_a_class(shop) -> None:
    error = failed(shop.call("class", {"name": "checkout"}), "not_found")
    assert error["message"] == (
        "'checkout' names Function node(s), not a class: use `function` for functions and methods, "
        "`explain` for anything else"
    )
    assert error["details"]["candidates"][0]["id"] == g.CHECKOUT.id
    by_id = failed(shop.call("class", {"name": g.CHECKOUT.id}), "not_found")
    assert by_id["message"].startswith(f"'{g.CHECKOUT.id}' is a Function, not a class")


def test_markdown(shop) -> None:
    text = ok(shop.call("class", {"name": "DigitalProduct", "format": "markdown"}))["markdown"]
    assert text == f"""# Class `shop.digital.DigitalProduct` (shop/digital.py:3-6)
project {shop.project}
`class DigitalProduct(Product, Downloadable)`
> A product you download.
unresolved bases: `class:?:Downloadable`

## Bases (2)
- d1 `shop.models.Product` (Class, shop/models.py:4) inferred @ shop/digital.py:3
- d2 `shop.base.Model` (Class, shop/base.py:1) via `class:shop/models.py:Product` inferred @ shop/models.py:4"""
