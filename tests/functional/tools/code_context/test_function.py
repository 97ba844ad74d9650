"""function on both shapes: bare, qualified and id lookups, callers and callees to a depth with
the line of each call, ambiguity, caps with exact totals, markdown, and specific errors."""

from __future__ import annotations

from tests.functional.tools.code_context import shop_graph as g
from tests.functional.tools.code_context.conftest import failed, ok


def steps(listing: dict) -> list[tuple[str, int, str, int | None, str]]:
    return [(s["id"], s["depth"], s["via"], s["evidence_line"], s["confidence"]) for s in listing["items"]]


def test_callers_to_depth_three_with_the_line_of_each_call(shop) -> None:
    result = ok(shop.call("function", {"name": "helper", "depth": 3}))
    assert result["node"]["id"] == g.HELPER.id
    assert result["node"]["signature"] == "def helper()"
    assert result["owner"]["id"] == "file:shop/services.py"
    assert steps(result["callers"]) == [
        (g.INNER.id, 1, g.HELPER.id, 22, "EXTRACTED"),
        (g.CHECKOUT.id, 2, g.INNER.id, 24, "EXTRACTED"),
        ("file:scripts/run.py", 3, g.CHECKOUT.id, 4, "INFERRED"),
    ]
    assert (result["callers"]["total"], result["callers"]["depth"]) == (3, 3)
    first = result["callers"]["items"][0]
    assert (first["qualified_name"], first["file"], first["line"], first["evidence_file"]) == (
        "shop.services.checkout.inner", "shop/services.py", 21, "shop/services.py")  # fmt: skip
    assert first["explanation"] == "call `helper(...)` at shop/services.py:22"
    assert result["callees"] == {"items": [], "total": 0, "depth": 3}
    decorator = result["decorators"]["items"][0]
    assert (decorator["node"]["qualified_name"], decorator["evidence_line"], result["decorators"]["total"]) == (
        "shop.util.decorators.logged", 10, 1)  # fmt: skip
    assert [d["node"]["id"] for d in result["documented_by"]["items"]] == [g.RULE.id]


def test_depth_one_by_default(shop) -> None:
    result = ok(shop.call("function", {"name": "helper"}))
    assert steps(result["callers"]) == [(g.INNER.id, 1, g.HELPER.id, 22, "EXTRACTED")]
    assert result["callers"]["total"] == 1


def test_a_qualified_method_name_and_its_callees(shop) -> None:
    result = ok(shop.call("function", {"name": "Product.save", "depth": 2}))
    assert result["node"]["qualified_name"] == "shop.models.Product.save"
    assert result["owner"]["id"] == g.PRODUCT.id
    # Model.validate is reached at depth 1 directly, so the walk lists it once, at depth 1.
    assert steps(result["callees"]) == [
        (g.MODEL_SAVE.id, 1, g.PRODUCT_SAVE.id, 7, "INFERRED"),
        (g.MODEL_VALIDATE.id, 1, g.PRODUCT_SAVE.id, 6, "INFERRED"),
    ]
    assert result["callers"]["total"] == 0
    assert [d["node"]["id"] for d in result["documented_by"]["items"]] == [g.DECISION.id]


def test_full_qualified_name_depth_and_caps_with_exact_totals(shop) -> None:
    one = ok(shop.call("function", {"name": "shop.services.checkout"}))
    # Within a depth, the most certain calls first: extracted, inferred, then the ambiguous renders.
    assert [s["id"] for s in one["callees"]["items"]] == [
        g.INNER.id, g.ORDER.id, g.PRODUCT.id, g.SLUGIFY.id, g.ORDER_RENDER.id, g.PRODUCT_RENDER.id
    ]
    assert [s["confidence"] for s in one["callees"]["items"]] == [
        "EXTRACTED", "INFERRED", "INFERRED", "INFERRED", "AMBIGUOUS", "AMBIGUOUS"
    ]
    assert one["callees"]["total"] == 6
    renders = [s for s in one["callees"]["items"] if s["name"] == "render"]
    assert {s["confidence"] for s in renders} == {"AMBIGUOUS"}
    two = ok(shop.call("function", {"name": "shop.services.checkout", "depth": 2}))
    assert two["callees"]["total"] == 7
    assert steps(two["callees"])[-1] == (g.HELPER.id, 2, g.INNER.id, 22, "EXTRACTED")
    capped = ok(shop.call("function", {"name": "shop.services.checkout", "depth": 2, "limit": 2}))
    assert [s["id"] for s in capped["callees"]["items"]] == [g.INNER.id, g.ORDER.id]
    assert capped["callees"]["total"] == 7
    assert [s["id"] for s in two["callers"]["items"]] == ["file:scripts/run.py"]
    assert [d["node"]["id"] for d in two["documented_by"]["items"]] == [g.CONCEPT.id, g.WIKI.id]


def test_several_matches_are_candidates_not_a_guess(shop) -> None:
    error = failed(shop.call("function", {"name": "render"}), "ambiguous")
    assert error["message"] == (
        f"'render' is ambiguous: 2 candidates (function or method) in project '{shop.project}'; "
        "pass `file`, a qualified name or a node id"
    )
    assert [c["id"] for c in error["details"]["candidates"]] == [g.ORDER_RENDER.id, g.PRODUCT_RENDER.id]
    assert error["details"]["total"] == 2
    # Both are in shop/models.py: the file does not settle it.
    in_file = failed(shop.call("function", {"name": "render", "file": "shop/models.py"}), "ambiguous")
    assert "in shop/models.py" in in_file["message"]
    # `save` is in two files: the file settles it.
    assert ok(shop.call("function", {"name": "save", "file": "shop/base.py"}))["node"]["id"] == g.MODEL_SAVE.id
    assert ok(shop.call("function", {"name": "Order.render"}))["node"]["id"] == g.ORDER_RENDER.id
    assert ok(shop.call("function", {"name": g.PRODUCT_RENDER.id}))["node"]["id"] == g.PRODUCT_RENDER.id


def test_unknown_names_get_the_closest_ones(shop) -> None:
    error = failed(shop.call("function", {"name": "chekout"}), "not_found")
    assert error["message"] == f"no function or method named 'chekout' in project '{shop.project}'"
    assert error["details"]["closest"][0]["id"] == g.CHECKOUT.id
    other_kind = failed(shop.call("function", {"name": "Product"}), "not_found")
    assert other_kind["message"] == (
        "'Product' names Class and Concept node(s), not a function or method: use `class` for classes, "
        "`explain` for anything else"
    )
    elsewhere = failed(shop.call("function", {"name": "checkout", "file": "shop/models.py"}), "not_found")
    assert elsewhere["message"] == (
        f"no function or method named 'checkout' in shop/models.py; 1 match elsewhere in project '{shop.project}' "
        "(see candidates)"
    )
    no_file = failed(shop.call("function", {"name": "checkout", "file": "shop/nowhere.py"}), "not_found")
    assert no_file["details"]["reason"] == "unknown_file"
    too_deep = failed(shop.call("function", {"name": "helper", "depth": 5}), "invalid_arguments")
    assert "depth: Input should be less than or equal to 4" in too_deep["message"]


def test_markdown(shop) -> None:
    text = ok(shop.call("function", {"name": "helper", "depth": 3, "format": "markdown"}))["markdown"]
    assert text == f"""# Function `shop.services.helper` (shop/services.py:10-12)
project {shop.project}
`def helper()`
defined in `shop/services.py` (File)

## Decorators (1)
- ← DECORATES `shop.util.decorators.logged` (Function, shop/util/decorators.py:1) inferred @ shop/services.py:10

## Callers (depth ≤ 3) (3)
- d1 `shop.services.checkout.inner` (Function, shop/services.py:21) @ shop/services.py:22
- d2 `shop.services.checkout` (Function, shop/services.py:15) via `function:shop/services.py:checkout.inner` @ shop/services.py:24
- d3 `scripts/run.py` (File) via `function:shop/services.py:checkout` inferred @ scripts/run.py:4

## Documented by (1)
- ← DOCUMENTS `Checkout rules` (Rule, docs/glossary.md:7) inferred @ docs/glossary.md:9"""
