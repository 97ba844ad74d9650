"""context on both shapes: the exact bundle of a code file and of a documentation file, path
resolution, caps with exact totals, markdown, and the specific errors."""

from __future__ import annotations

import pytest

from rhumbline.stores.graph.model import Edge, GraphBatch, Node
from tests.functional.tools.code_context import shop_graph as g
from tests.functional.tools.code_context.conftest import failed, ok


def ids(listing: dict) -> list[str]:
    return [item["id"] for item in listing["items"]]


def links(listing: dict) -> list[tuple[str, str]]:
    return [(item["about"], item["node"]["id"]) for item in listing["items"]]


def test_bundle_of_a_code_file(shop) -> None:
    result = ok(shop.call("context", {"file": "shop/models.py"}))
    assert result["file"] == {
        "id": "file:shop/models.py", "path": "shop/models.py", "language": "python", "lines": 15,
        "content_hash": "h-shop/models.py",
    }  # fmt: skip
    definitions = result["definitions"]
    assert ids(definitions) == [g.PRODUCT.id, g.PRODUCT_SAVE.id, g.PRODUCT_RENDER.id, g.ORDER.id, g.ORDER_RENDER.id]
    assert definitions["total"] == 5
    # Each fact once: a definition's file and language are the bundle's `file`, a list's relation
    # and direction its field's (described in the output schema), an import's file the bundle's.
    assert definitions["items"][0] == {
        "id": g.PRODUCT.id, "kind": "Class", "name": "Product", "qualified_name": "shop.models.Product",
        "line": 4, "end_line": 10, "signature": "class Product(Model)", "docstring": None,
    }  # fmt: skip
    assert result["imports"] == {
        "items": [{
            "node": {"id": "module:shop.base", "kind": "Module", "name": "base", "qualified_name": "shop.base",
                     "file": "shop/base.py", "line": 1},
            "confidence": "EXTRACTED", "confidence_score": 1.0,
            "explanation": "`from shop.base import Model` at shop/models.py:1", "evidence_line": 1,
        }],
        "total": 1,
    }  # fmt: skip
    # Importers of the module the file defines, ordered by (subject id, importer id); the import
    # statement is in the importer's file, at `evidence_line`.
    assert links(result["imported_by"]) == [
        ("module:shop.models", "file:shop/digital.py"),
        ("module:shop.models", "file:shop/services.py"),
    ]
    assert result["imported_by"]["items"][1] == {
        "about": "module:shop.models",
        "node": {"id": "file:shop/services.py", "kind": "File", "name": "services.py",
                 "qualified_name": "shop/services.py", "file": "shop/services.py", "line": 1},
        "confidence": "EXTRACTED", "confidence_score": 1.0,
        "explanation": "`from . import models` at shop/services.py:5", "evidence_line": 5,
    }  # fmt: skip
    assert links(result["documented_by"]) == [(g.PRODUCT.id, g.CONCEPT.id), (g.PRODUCT_SAVE.id, g.DECISION.id)]
    assert result["documented_by"]["items"][1] == {
        "about": g.PRODUCT_SAVE.id,
        "node": {"id": g.DECISION.id, "kind": "Decision", "name": g.DECISION.name,
                 "qualified_name": g.DECISION.qualified_name, "file": g.DECISION.file, "line": g.DECISION.start_line},
        "confidence": "AMBIGUOUS", "confidence_score": 0.4, "explanation": "`save()` mentioned: 2 candidates",
        "evidence_file": "docs/adr/0001-use-models.md", "evidence_line": 11,
    }  # fmt: skip
    assert result["documents"] == {"items": [], "total": 0}
    assert result["annotations"]["total"] == 0
    assert result["markdown"] is None


def test_bundle_of_a_documentation_file(shop) -> None:
    result = ok(shop.call("context", {"file": "docs/glossary.md"}))
    assert ids(result["definitions"]) == [g.GLOSSARY.id, g.CONCEPT.id, g.RULE.id]
    assert [i["kind"] for i in result["definitions"]["items"]] == ["Document", "Concept", "Rule"]
    assert links(result["documents"]) == [
        (g.CONCEPT.id, g.PRODUCT.id),
        (g.CONCEPT.id, g.CHECKOUT.id),
        (g.RULE.id, g.HELPER.id),
        (g.RULE.id, "module:shop.services"),
    ]
    assert result["documents"]["items"][0]["evidence_file"] == "docs/glossary.md"
    assert result["imports"]["total"] == result["imported_by"]["total"] == result["documented_by"]["total"] == 0
    text = ok(shop.call("context", {"file": "docs/glossary.md", "format": "markdown"}))["markdown"]
    # The section's title says the relation and its direction; each line the section's node it is about.
    assert text.endswith("""## Documents (4)
- `shop.models.Product` (Class, shop/models.py:4) [concept:docs/glossary.md#product] inferred @ docs/glossary.md:5
- `shop.services.checkout` (Function, shop/services.py:15) [concept:docs/glossary.md#product] inferred @ docs/glossary.md:5
- `shop.services.helper` (Function, shop/services.py:10) [rule:docs/glossary.md#checkout-rules] inferred @ docs/glossary.md:9
- `shop.services` (Module, shop/services.py:1) [rule:docs/glossary.md#checkout-rules] inferred @ docs/glossary.md:9""")


@pytest.mark.parametrize(
    "typed",
    ["shop/models.py", "./shop/models.py", "file:shop/models.py", "/home/me/src/shop/shop/models.py",
     "models.py", "shop\\models.py"],
)  # fmt: skip
def test_a_file_is_found_from_what_an_agent_types(shop, typed: str) -> None:
    assert ok(shop.call("context", {"file": typed}))["file"]["path"] == "shop/models.py"


def test_a_tail_shared_by_two_files_is_ambiguous(shop) -> None:
    error = failed(shop.call("context", {"file": "__init__.py"}), "ambiguous")
    assert error["message"] == f"'__init__.py' matches 2 files in project '{shop.project}': give more of the path"
    assert error["details"] == {"candidates": ["shop/__init__.py", "shop/util/__init__.py"], "total": 2}
    assert ok(shop.call("context", {"file": "util/__init__.py"}))["file"]["path"] == "shop/util/__init__.py"


def test_a_file_not_in_the_project_is_named_with_the_closest_paths(shop) -> None:
    error = failed(shop.call("context", {"file": "shop/model.py"}), "not_found")
    assert error["message"] == (
        f"file 'shop/model.py' is not in project '{shop.project}' (paths are relative to the repository root)"
    )
    assert "shop/models.py" in error["details"]["closest"]


def test_definitions_are_capped_with_an_exact_total_and_continued_by_a_cursor(shop) -> None:
    path = "shop/generated.py"
    nodes = [Node(f"file:{path}", "File", "generated.py", path, path, 1, 500, "python")]
    nodes += [Node(f"function:{path}:f{i:03}", "Function", f"f{i:03}", f"shop.generated.f{i:03}", path, i + 2, i + 2,
                   "python", f"def f{i:03}()") for i in range(205)]  # fmt: skip
    edges = [Edge(nodes[0].id, n.id, "DEFINES", "EXTRACTED", 1.0, "defines", path, n.start_line) for n in nodes[1:]]
    shop.graph.apply(shop.project, GraphBatch(nodes=nodes, edges=edges))
    every = [f"function:{path}:f{i:03}" for i in range(205)]
    result = ok(shop.call("context", {"file": path}))
    assert result["definitions"]["total"] == 205
    assert ids(result["definitions"]) == every[:50]
    seen, pages = ids(result["definitions"]), 1
    while result["next_cursor"]:
        result = ok(shop.call("context", {"file": path, "cursor": result["next_cursor"]}))
        assert result["definitions"]["total"] == 205 and result["file"]["path"] == path
        seen, pages = seen + ids(result["definitions"]), pages + 1
    assert (seen, pages) == (every, 5)

    text = ok(shop.call("context", {"file": path, "format": "markdown"}))
    assert "## Definitions (205)" in text["markdown"] and "- … 155 more" in text["markdown"]
    assert f"call again with `cursor` = `{text['next_cursor']}`" in text["markdown"]
    assert len(text["markdown"]) < 6_000
    last = ok(shop.call("context", {"file": path, "format": "markdown", "cursor": text["next_cursor"]}))["markdown"]
    assert "## Definitions from #51 of 205 (155)" in last and "- … 105 more" in last
    # A cursor is bound to its arguments.
    refused = failed(shop.call("context", {"file": "shop/models.py", "cursor": text["next_cursor"]}), "invalid_arguments")
    assert refused["details"]["reason"] == "other_query"


def test_markdown_is_the_same_bundle_as_compact_text(shop) -> None:
    result = ok(shop.call("context", {"file": "shop/services.py", "format": "markdown"}))
    assert set(k for k, v in result.items() if v is not None) == {"project", "format", "markdown"}
    assert result["markdown"] == f"""# shop/services.py (python, 27 lines)
project {shop.project}
module `shop.services`

## Definitions (4)
- 7-7 Variable `DEFAULT_CURRENCY` — `DEFAULT_CURRENCY = "EUR"`
- 10-12 Function `helper` — `def helper()`
- 15-27 Function `checkout` — `def checkout(items)` — Price a basket.
- 21-22 Function `checkout.inner` — `def inner()`

## Imports (3)
- `shop.models` (Module, shop/models.py:1) @ line 5
- `shop.util.decorators` (Module, shop/util/decorators.py:1) @ line 3
- `shop.util.text` (Module, shop/util/text.py:1) @ line 1

## Imported by (1)
- `scripts/run.py` (File) @ line 2

## Documented by (4)
- `Product` (Concept, docs/glossary.md:3) [function:shop/services.py:checkout] inferred @ docs/glossary.md:5
- `Checkout flow` (WikiPage) [function:shop/services.py:checkout] inferred @ wiki/Checkout-flow.md:1
- `Checkout rules` (Rule, docs/glossary.md:7) [function:shop/services.py:helper] inferred @ docs/glossary.md:9
- `Checkout rules` (Rule, docs/glossary.md:7) [module:shop.services] inferred @ docs/glossary.md:9"""


def test_another_project_is_denied_without_saying_whether_it_exists(shop) -> None:
    error = failed(shop.call("context", {"file": "shop/models.py", "project": shop.other_project}), "forbidden")
    assert error["message"] == f"this token has no access to project '{shop.other_project}'"
    unknown = failed(shop.call("context", {"file": "shop/models.py", "project": "nobody/nothing"}), "forbidden")
    assert unknown["message"] == "this token has no access to project 'nobody/nothing'"


def test_annotations_of_the_files_nodes_with_exact_totals_and_none_from_another_project(shop) -> None:
    """context first asks whether the project has any annotation at all (most have none), then
    counts and reads those of the file's nodes: both steps stay scoped to the project."""
    assert ok(shop.call("context", {"file": "shop/models.py"}))["annotations"] == {"items": [], "total": 0}
    # A note on the same node id in another project must not show up here.
    shop.graph.apply(shop.other_project, GraphBatch(nodes=[g.PRODUCT_SAVE], edges=[]))
    note = {"project": shop.other_project, "node_id": g.PRODUCT_SAVE.id, "content": "rival note"}
    ok(shop.call("add_annotation", note, projects=(shop.other_project,), scopes=("write",)))
    assert ok(shop.call("context", {"file": "shop/models.py"}))["annotations"] == {"items": [], "total": 0}

    for node, content in [(g.PRODUCT, "first on product"), (g.ORDER, "on order"), (g.PRODUCT, "second on product")]:
        note = {"project": shop.project, "node_id": node.id, "content": content}
        ok(shop.call("add_annotation", note, scopes=("write",)))
    listed = ok(shop.call("context", {"file": "shop/models.py"}))["annotations"]
    assert listed["total"] == 3
    # Node by node in the answer's order, each node's newest first.
    assert [(a["node_id"], a["content"]) for a in listed["items"]] == [
        (g.PRODUCT.id, "second on product"), (g.PRODUCT.id, "first on product"), (g.ORDER.id, "on order"),
    ]  # fmt: skip


@pytest.mark.parametrize("tool", ["context", "function", "class"])
@pytest.mark.parametrize("typed", ["/", "\\", "//", "./"])
def test_a_file_that_names_no_file_is_invalid_not_a_crash(shop, tool: str, typed: str) -> None:
    arguments = {"file": typed} if tool == "context" else {"name": "checkout", "file": typed}
    error = failed(shop.call(tool, arguments), "invalid_arguments")
    assert "names no file" in error["message"] or "is empty" in error["message"], error
