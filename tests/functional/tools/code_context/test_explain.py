"""explain on both shapes: any node by name, code or knowledge layer, with its neighborhood
summarized, linked documents, the tool to call next, and markdown."""

from __future__ import annotations

from tests.functional.tools.code_context import shop_graph as g
from tests.functional.tools.code_context.conftest import failed, ok


def summary(result: dict) -> list[tuple[str, str, int, list[str]]]:
    return [(s["direction"], s["relation"], s["total"], [e["node"]["id"] for e in s["examples"]])
            for s in result["neighborhood"]]  # fmt: skip


def test_a_rule_from_the_knowledge_layer(shop) -> None:
    result = ok(shop.call("explain", {"name": "Checkout rules"}))
    assert (result["node"]["id"], result["node"]["kind"], result["layer"]) == (g.RULE.id, "Rule", "knowledge")
    assert result["node"]["docstring"] == "- Never call `helper` from outside `shop.services`."
    assert result["parent"]["id"] == g.GLOSSARY.id
    assert summary(result) == [("in", "DEFINES", 1, [g.GLOSSARY.id])]
    assert [(d["direction"], d["node"]["id"]) for d in result["documents"]["items"]] == [
        ("out", g.HELPER.id), ("out", "module:shop.services"),
    ]  # fmt: skip
    assert result["documents"]["total"] == 2
    assert result["next"].startswith("`search` with `all: true`")


def test_a_wiki_page_without_a_file(shop) -> None:
    result = ok(shop.call("explain", {"name": "checkout flow"}))
    assert (result["node"]["kind"], result["node"]["file"], result["parent"]) == ("WikiPage", None, None)
    assert [d["node"]["id"] for d in result["documents"]["items"]] == [g.CHECKOUT.id]
    assert result["neighborhood"] == []


def test_a_name_shared_by_code_and_knowledge_is_ambiguous_until_narrowed(shop) -> None:
    error = failed(shop.call("explain", {"name": "Product"}), "ambiguous")
    assert [c["id"] for c in error["details"]["candidates"]] == [g.PRODUCT.id, g.CONCEPT.id]
    concept = ok(shop.call("explain", {"name": "Product", "file": "docs/glossary.md"}))
    assert concept["node"]["id"] == g.CONCEPT.id
    assert [d["node"]["id"] for d in concept["documents"]["items"]] == [g.PRODUCT.id, g.CHECKOUT.id]


def test_a_class_by_id_with_its_neighborhood(shop) -> None:
    result = ok(shop.call("explain", {"name": g.PRODUCT.id}))
    assert result["layer"] == "code"
    assert result["parent"]["id"] == "file:shop/models.py"
    assert summary(result) == [
        ("in", "CALLS", 1, [g.CHECKOUT.id]),
        ("in", "DEFINES", 1, ["file:shop/models.py"]),
        ("in", "INHERITS", 1, [g.DIGITAL.id]),
        ("out", "DEFINES", 2, [g.PRODUCT_RENDER.id, g.PRODUCT_SAVE.id]),
        ("out", "INHERITS", 1, [g.MODEL.id]),
    ]
    assert [(d["direction"], d["node"]["id"]) for d in result["documents"]["items"]] == [("in", g.CONCEPT.id)]
    assert result["next"] == "`class` for its hierarchy, methods and references"


def test_a_decision_and_its_document_share_a_title(shop) -> None:
    error = failed(shop.call("explain", {"name": "Use a Model base class"}), "ambiguous")
    assert sorted(c["kind"] for c in error["details"]["candidates"]) == ["Decision", "Document"]
    decision = ok(shop.call("explain", {"name": g.DECISION.id}))
    assert [(d["node"]["id"], d["confidence"]) for d in decision["documents"]["items"]] == [
        (g.MODEL.id, "INFERRED"), ("file:shop/base.py", "EXTRACTED"),
        (g.MODEL_SAVE.id, "AMBIGUOUS"), (g.PRODUCT_SAVE.id, "AMBIGUOUS"),
    ]  # fmt: skip
    assert decision["node"]["signature"] == "Status: Accepted"


def test_files_and_modules(shop) -> None:
    file = ok(shop.call("explain", {"name": "shop/services.py"}))
    assert (file["node"]["kind"], file["next"]) == (
        "File", "`context` with its file for every definition, import and linked document")  # fmt: skip
    # The module, DEFAULT_CURRENCY, helper and checkout (checkout defines inner); three imports.
    assert [(s["direction"], s["relation"], s["total"]) for s in file["neighborhood"]] == [
        ("out", "DEFINES", 4), ("out", "IMPORTS", 3),
    ]
    module = ok(shop.call("explain", {"name": "shop.services"}))
    assert module["node"]["kind"] == "Module"
    assert [d["node"]["id"] for d in module["documents"]["items"]] == [g.RULE.id]


def test_more_documents_than_examples_are_all_listed(shop) -> None:
    from rhumbline.stores.graph.model import Edge, GraphBatch, Node

    pages = [Node(f"wikipage:wiki/Slugs-{i}.md", "WikiPage", f"Slugs {i}", f"wiki/Slugs-{i}.md") for i in range(7)]
    edges = [Edge(p.id, g.SLUGIFY.id, "DOCUMENTS", "INFERRED", 0.8, "`slugify` mentioned") for p in pages]
    shop.graph.apply(shop.project, GraphBatch(nodes=pages, edges=edges))
    result = ok(shop.call("explain", {"name": "slugify"}))
    assert [d["node"]["id"] for d in result["documents"]["items"]] == [p.id for p in pages]
    assert result["documents"]["total"] == 7
    assert ("in", "CALLS", 2) in [(s["direction"], s["relation"], s["total"]) for s in result["neighborhood"]]


def test_unknown_name(shop) -> None:
    error = failed(shop.call("explain", {"name": "Basket"}), "not_found")
    assert error["message"] == f"no node named 'Basket' in project '{shop.project}'"
    assert error["details"]["reason"] == "unknown_name"


def test_markdown(shop) -> None:
    text = ok(shop.call("explain", {"name": "Checkout rules", "format": "markdown"}))["markdown"]
    assert text == f"""# Rule `docs/glossary.md#checkout-rules` (docs/glossary.md:7)
project {shop.project} · knowledge layer
`Glossary > Checkout rules`
in `Glossary` (Document, docs/glossary.md:1)
> - Never call `helper` from outside `shop.services`.

## Neighborhood
- ← DEFINES (1): `Glossary`

## Documents (2)
- → DOCUMENTS `shop.services.helper` (Function, shop/services.py:10) inferred @ docs/glossary.md:9
- → DOCUMENTS `shop.services` (Module, shop/services.py:1) inferred @ docs/glossary.md:9

next: `search` with `all: true` for related knowledge; `context` on its file for the whole document"""


def test_annotations_are_surfaced_by_context_explain_function_and_class(shop) -> None:
    writer = {"scopes": ("read", "write")}
    for node_id, content, tags in [
        (g.CHECKOUT.id, "Prices are cached per basket: clear the cache in tests.", ["gotcha"]),
        (g.CHECKOUT.id, "Called by the nightly job too.", None),
        (g.PRODUCT.id, "Product ids are SKUs.", None),
    ]:
        ok(shop.call("add_annotation", {"node_id": node_id, "content": content, "tags": tags}, **writer))
    explained = ok(shop.call("explain", {"name": "shop.services.checkout"}))["annotations"]
    assert explained["total"] == 2
    # Newest first, each with its provenance.
    assert [(a["content"], a["tags"], a["provenance"]) for a in explained["items"]] == [
        ("Called by the nightly job too.", [], "CONTRIBUTED"),
        ("Prices are cached per basket: clear the cache in tests.", ["gotcha"], "CONTRIBUTED"),
    ]
    assert explained["items"][0]["author"] == "tester"
    context = ok(shop.call("context", {"file": "shop/services.py"}))["annotations"]
    assert (context["total"], {a["node_id"] for a in context["items"]}) == (2, {g.CHECKOUT.id})
    assert ok(shop.call("function", {"name": "checkout"}))["annotations"]["total"] == 2
    assert [a["content"] for a in ok(shop.call("class", {"name": "Product"}))["annotations"]["items"]] == [
        "Product ids are SKUs."
    ]
    text = ok(shop.call("context", {"file": "shop/models.py", "format": "markdown"}))["markdown"]
    assert text.endswith("## Annotations (1)\n- CONTRIBUTED on `shop.models.Product`: Product ids are SKUs. — tester")


def _sections(shop, *where: tuple[str, str]) -> list:
    """A WikiPage section titled `title` in each document `path`, as ingest writes it (file, document, section)."""
    from rhumbline.stores.graph.model import Edge, GraphBatch, Node

    nodes, edges = [], []
    for path, title in where:
        anchor = "handling-application-errors"
        doc = Node(f"document:{path}", "Document", path.rsplit("/", 1)[-1], path, path, 1, 20, "markdown")
        section = Node(f"wikipage:{path}#{anchor}", "WikiPage", title, f"{path}#{anchor}", path, 3, 20, "markdown",
                       f"{doc.name} > {title}", "Register an error handler with `errorhandler`.")  # fmt: skip
        file = Node(f"file:{path}", "File", path.rsplit("/", 1)[-1], path, path, 1, 20, "markdown")
        nodes += [file, doc, section]
        edges += [Edge(file.id, doc.id, "DEFINES", "EXTRACTED", 1.0, f"{path} is the source of document {path}"),
                  Edge(doc.id, section.id, "DEFINES", "EXTRACTED", 1.0, f"document {path} has wikipage `{title}`")]
    shop.stores.graph().apply(shop.project, GraphBatch(nodes=nodes, edges=edges))
    return [n for n in nodes if n.kind == "WikiPage"]


def test_a_section_by_its_heading_whatever_the_case_punctuation_or_markup(shop) -> None:
    [section] = _sections(shop, ("docs/errors.md", "Handling Application Errors"))
    for typed in ("Handling Application Errors", "handling application errors", "Handling application errors.",
                  "`Handling` **Application** Errors:", "handling-application-errors", "  HANDLING  APPLICATION ERRORS "):  # fmt: skip
        result = ok(shop.call("explain", {"name": typed}))
        assert (result["node"]["id"], result["layer"], result["parent"]["id"]) == (
            section.id, "knowledge", "document:docs/errors.md"), typed  # fmt: skip
    # Only the whole heading: its words in another order, or some of them, name nothing.
    for typed in ("application errors", "errors handling application", "handling application errors twice"):
        assert failed(shop.call("explain", {"name": typed}), "not_found")["details"]["reason"] == "unknown_name"


def test_a_heading_with_mixed_case_words_typed_in_one_case(shop) -> None:
    # `URLs` and `GitHub` split into words at their case changes; typed in one case they do not.
    [section] = _sections(shop, ("docs/urls.md", "Building URLs on GitHub"))
    for typed in ("building urls on github.", "BUILDING URLS ON GITHUB", "Building URLs on Git-Hub"):
        assert ok(shop.call("explain", {"name": typed}))["node"]["id"] == section.id, typed


def test_sections_sharing_a_heading_are_candidates_until_narrowed(shop) -> None:
    first, second = _sections(shop, ("docs/errors.md", "Handling Application Errors"),
                              ("docs/guide/errors.md", "Handling application errors"))  # fmt: skip
    error = failed(shop.call("explain", {"name": "handling application errors!"}), "ambiguous")
    assert [c["id"] for c in error["details"]["candidates"]] == [first.id, second.id]
    assert error["details"]["total"] == 2
    narrowed = ok(shop.call("explain", {"name": "handling application errors!", "file": "docs/guide/errors.md"}))
    assert narrowed["node"]["id"] == second.id
    # Typed with one section's own case, the name picks it, as for code names.
    assert ok(shop.call("explain", {"name": "Handling Application Errors"}))["node"]["id"] == first.id


def test_code_names_are_not_found_by_their_words(shop) -> None:
    # `DigitalProduct`'s words are "digital product": a heading's tolerance does not reach code.
    assert failed(shop.call("explain", {"name": "digital product"}), "not_found")["details"]["reason"] == "unknown_name"
    assert ok(shop.call("explain", {"name": "digitalproduct"}))["node"]["id"] == g.DIGITAL.id
    # A knowledge node already named exactly keeps being found; its words find it too.
    assert ok(shop.call("explain", {"name": "checkout-rules"}))["node"]["id"] == g.RULE.id
