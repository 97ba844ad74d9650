"""The knowledge layer: the Markdown parser, and the exact nodes and edges of a small doc tree."""

from __future__ import annotations

from tests.unit.ingest.conftest import TreeWriter

from rhumbline.ingest.build import build_graph
from rhumbline.ingest.facts import SourceFile
from rhumbline.ingest.graph.edges import EdgeSet
from rhumbline.ingest.languages.knowledge.facts import Reference
from rhumbline.ingest.languages.knowledge.graph import _Resolver, build_knowledge_graph, line_linked_files
from rhumbline.ingest.languages.knowledge.markdown import MAX_TEXT, extract_markdown, plain, slug
from rhumbline.stores.graph.model import Node

DOC = b"""---
title: From front matter
status: draft
---
Preamble with `pkg.run`.

First H1
========

Text [a link](src/a.py "title") and [ref link][r] and [r]; ![an image](img.png).

```python
## not a heading
call(`not a mention`)
```

## Second ##

~~~~
### still code
~~~~

    indented code `not a mention`

<!-- a comment
## not a heading either
-->

# Another H1

### Deep `Cart::add`

[r]: docs/other.md#part
"""


def test_markdown_headings_fences_links_and_mentions():
    facts = extract_markdown(DOC)

    assert (facts.title, facts.status) == ("From front matter", "draft")
    assert facts.intro == "Preamble with `pkg.run`."  # two level-1 headings: neither is the title
    assert [(s.level, s.title, s.anchor, s.parent, s.start_line, s.end_line) for s in facts.sections] == [
        (1, "First H1", "first-h1", -1, 7, 28),
        (2, "Second", "second", 0, 17, 28),
        (1, "Another H1", "another-h1", -1, 29, 33),
        (3, "Deep Cart::add", "deep-cartadd", 2, 31, 33),
    ]
    assert facts.sections[1].text == ""  # only code: no prose
    assert facts.references == (
        Reference(-1, 5, "code", "pkg.run", "pkg.run"),
        Reference(0, 10, "link", "src/a.py", "a link"),
        Reference(0, 10, "link", "docs/other.md#part", "ref link"),
        Reference(0, 10, "link", "docs/other.md#part", "r"),
        Reference(3, 31, "code", "Cart::add", "Cart::add"),
    )


def test_the_only_first_h1_is_the_title_and_its_text_the_intro():
    facts = extract_markdown(b"Before.\n\n# Title\n\nIntro.\n\n## A\n\nText.\n\n## A\n")
    assert (facts.title, facts.intro) == ("Title", "Before.\nIntro.")
    assert [(s.title, s.anchor, s.parent) for s in facts.sections] == [("A", "a", -1), ("A", "a-1", -1)]


def test_rule_items_status_lines_and_caps():
    facts = extract_markdown(
        b"# ADR 7\n\n**Status:** Accepted\n\n## Rules\n\n- You MUST do it\n- must not shout\n"
        b"* NEVER this\n\n## Long\n\n" + b"word " * 1000
    )
    assert facts.status == "Accepted"
    assert [s.rule_items for s in facts.sections] == [2, 0]
    assert len(facts.sections[1].text) == MAX_TEXT and facts.sections[1].text.endswith("…")


def test_plain_text_and_slugs():
    assert plain("The `QuerySet` and [**bold** link](x.md) <b>tag</b> _em_") == "The QuerySet and bold link tag em"
    assert slug("What's new in 2.0? (Beta)") == "whats-new-in-20-beta"


MODELS = """\
class QuerySet:
    def filter(self, **kw):
        return self

    def save(self):
        return self


class Manager:
    def save(self):
        return None


def get_object_or_404(model, **kw):
    return model
"""
GUIDE = """\
# Shop guide

How the shop works; see [the models](../shop/models.py).

## Querying

Use `QuerySet.filter` or `get_object_or_404()`; `save` has two candidates, `len` none.
The query code lives at [line 2](../shop/models.py#L2) and in `shop/`.

### Conventions

- Views MUST call `get_object_or_404` for lookups.

## Glossary

### Manager

A `Manager` hands out querysets. See the [decision](adr/0001-use-querysets.md#decision).

## Missing

A link to [nowhere](../nope.py) and `unknown_name_here`, and [external](https://example.com).
"""
ADR = """\
# 1. Use querysets

## Status

Accepted

## Decision

Expose `QuerySet.filter` everywhere.
"""


def test_knowledge_nodes_and_edges_are_exact(write_tree: TreeWriter):
    root = write_tree(
        {"shop/__init__.py": "", "shop/models.py": MODELS, "docs/guide.md": GUIDE,
         "docs/adr/0001-use-querysets.md": ADR, "docs/adr/README.md": "# ADRs\n\nStatus: n/a\n"}
    )  # fmt: skip

    built = build_graph(root, "acme/shop", history=False)

    markdown = {n.id: n for n in built.nodes if n.language == "markdown" and n.kind != "File"}
    assert {(i, n.kind) for i, n in markdown.items()} == {
        ("document:docs/guide.md", "Document"),
        ("document:docs/adr/0001-use-querysets.md", "Document"),
        ("document:docs/adr/README.md", "Document"),  # an ADR directory's index: no decision
        ("decision:docs/adr/0001-use-querysets.md", "Decision"),
        ("wikipage:docs/guide.md#querying", "WikiPage"),
        ("rule:docs/guide.md#conventions", "Rule"),
        ("wikipage:docs/guide.md#glossary", "WikiPage"),
        ("concept:docs/guide.md#manager", "Concept"),
        ("wikipage:docs/guide.md#missing", "WikiPage"),
    }
    decision = markdown["decision:docs/adr/0001-use-querysets.md"]
    assert (decision.name, decision.signature, decision.docstring) == (
        "Use querysets", "ADR 1; Status: Accepted", "Expose `QuerySet.filter` everywhere.",
    )  # fmt: skip
    manager = markdown["concept:docs/guide.md#manager"]
    assert (manager.qualified_name, manager.start_line, manager.end_line, manager.signature) == (
        "docs/guide.md#manager", 16, 19, "Shop guide > Glossary > Manager",
    )  # fmt: skip
    assert manager.docstring.startswith("A `Manager` hands out querysets.")
    knowledge = {
        (e.source, e.relation, e.target, e.confidence, round(e.confidence_score, 2))
        for e in built.edges
        if e.relation in ("DOCUMENTS", "REFERENCES") or e.target.split(":")[0] in
        ("document", "decision", "wikipage", "rule", "concept")
    }  # fmt: skip
    guide, querying = "document:docs/guide.md", "wikipage:docs/guide.md#querying"
    adr = "docs/adr/0001-use-querysets.md"
    assert knowledge == {
        ("file:docs/guide.md", "DEFINES", guide, "EXTRACTED", 1.0),
        (f"file:{adr}", "DEFINES", f"document:{adr}", "EXTRACTED", 1.0),
        ("file:docs/adr/README.md", "DEFINES", "document:docs/adr/README.md", "EXTRACTED", 1.0),
        (f"document:{adr}", "DEFINES", f"decision:{adr}", "EXTRACTED", 1.0),
        (guide, "DEFINES", querying, "EXTRACTED", 1.0),
        (guide, "DEFINES", "wikipage:docs/guide.md#glossary", "EXTRACTED", 1.0),
        (guide, "DEFINES", "wikipage:docs/guide.md#missing", "EXTRACTED", 1.0),
        (querying, "DEFINES", "rule:docs/guide.md#conventions", "EXTRACTED", 1.0),
        ("wikipage:docs/guide.md#glossary", "DEFINES", "concept:docs/guide.md#manager", "EXTRACTED", 1.0),
        # A relative link to a file; with a line anchor, the definition around that line.
        (guide, "DOCUMENTS", "file:shop/models.py", "EXTRACTED", 1.0),
        (querying, "DOCUMENTS", "method:shop/models.py:QuerySet.filter", "EXTRACTED", 1.0),
        (querying, "DOCUMENTS", "directory:shop", "EXTRACTED", 1.0),
        # Mentions: dotted → 0.8, a unique bare name → 0.5, several (`save`) → nothing.
        (querying, "DOCUMENTS", "function:shop/models.py:get_object_or_404", "INFERRED", 0.5),
        ("rule:docs/guide.md#conventions", "DOCUMENTS", "function:shop/models.py:get_object_or_404", "INFERRED", 0.5),
        ("concept:docs/guide.md#manager", "DOCUMENTS", "class:shop/models.py:Manager", "INFERRED", 0.5),
        # A link to another document's section: a reference between documents, the ADR's own.
        ("concept:docs/guide.md#manager", "REFERENCES", f"decision:{adr}", "EXTRACTED", 1.0),
        # Everything in an ADR belongs to its decision.
        (f"decision:{adr}", "DOCUMENTS", "method:shop/models.py:QuerySet.filter", "INFERRED", 0.8),
    }
    link = next(e for e in built.edges if e.target == "method:shop/models.py:QuerySet.filter" and e.source == querying)
    assert link.explanation == (
        "link [line 2](../shop/models.py#L2) at docs/guide.md:8 points to line 2 of shop/models.py,"
        " inside `shop.models.QuerySet.filter` (and 1 more)"
    )
    # `save` names two methods: no guess between them.
    assert not [e for e in built.edges if e.relation == "DOCUMENTS" and e.target.endswith(".save")]


CART = """\
class Cart:
    def add(self, item):
        return item

    def total(self):
        return 0


class Order:
    def total(self):
        return 1


def checkout(cart):
    return cart
"""
CHECKOUT = """\
# Checkout

## Mentions

`Cart::add` and `Cart#add()`, `@checkout`; `total` names two methods, `Missing.thing` nothing.
`None`, `self`, `len` and `id` are common words; `x + 1` is no name.

## Links

The [add method](/examples/cart.py#L3) (from docs/, the root of absolute links), the
[checkout](examples/cart.py#L14) function, and [past the end](examples/cart.py#L40).
"""


def test_mentions_and_line_links_resolve_to_the_one_definition_they_name(write_tree: TreeWriter):
    root = write_tree({"docs/examples/cart.py": CART, "docs/guide.md": CHECKOUT})
    built = build_graph(root, "acme/shop", history=False)

    documents = {
        (e.source.split("#")[-1], e.target.split(":")[-1], e.confidence, round(e.confidence_score, 2), e.explanation)
        for e in built.edges
        if e.relation == "DOCUMENTS"
    }
    assert documents == {
        ("mentions", "Cart.add", "INFERRED", 0.8,
         "`Cart::add` mentioned at docs/guide.md:5 resolves to `cart.Cart.add` by qualified name (and 1 more)"),
        ("mentions", "checkout", "INFERRED", 0.5,
         "`@checkout` mentioned at docs/guide.md:5 resolves to `cart.checkout` by name, the only definition so named"),
        ("links", "Cart.add", "EXTRACTED", 1.0,
         "link [add method](/examples/cart.py#L3) at docs/guide.md:10 points to line 3 of docs/examples/cart.py,"
         " inside `cart.Cart.add`"),
        ("links", "checkout", "EXTRACTED", 1.0,
         "link [checkout](examples/cart.py#L14) at docs/guide.md:11 points to line 14 of docs/examples/cart.py,"
         " inside `cart.checkout`"),
        ("links", "docs/examples/cart.py", "EXTRACTED", 1.0,
         "link [past the end](examples/cart.py#L40) at docs/guide.md:11 points to file docs/examples/cart.py"),
    }  # fmt: skip
    # `total` (two methods) and `Missing.thing` (none) are unresolved; common words and `x + 1`
    # are not names to resolve.
    assert build_knowledge_graph(built.sources, built.nodes, EdgeSet()).unresolved_references == 2
    guide = next(source for source in built.sources if source.path == "docs/guide.md")
    assert line_linked_files(guide.path, guide.code) == {"docs/examples/cart.py"}


def test_the_resolver_keeps_only_what_the_documents_reference():
    """Its memory follows the documents, not the code graph it runs beside: among many definitions
    it keeps the names the mentions look up, and the spans of the files linked to a line of."""
    files = [f"pkg/m{i}.py" for i in range(500)]
    nodes = [
        Node(
            id=f"{kind.lower()}:{path}:{qualified}", kind=kind, name=qualified.rpartition(".")[2],
            qualified_name=f"pkg.m{i}.{qualified}", file=path, start_line=start, end_line=start + 2,
        )  # fmt: skip
        for i, path in enumerate(files)
        for kind, qualified, start in (("Class", f"Widget{i}", 1), ("Method", f"Widget{i}.render", 2))
    ]
    text = b"# Widgets\n\n`Widget7.render`, `render`, `Widget8`, `len`, `Nowhere.render`; [line](../pkg/m3.py#L2).\n"
    document = SourceFile("docs/widgets.md", "markdown", "", 3, len(text), extract_markdown(text))
    sources = [SourceFile(path, "python", "", 3, 0, None) for path in files] + [document]

    resolver = _Resolver(sources, nodes, {}, [document])

    assert resolver._names == {
        "Widget7.render": ("method:pkg/m7.py:Widget7.render", "pkg.m7.Widget7.render"),
        "Widget8": ("class:pkg/m8.py:Widget8", "pkg.m8.Widget8"),
        "render": None,  # names every method: a guess, kept without its candidates
    }
    assert set(resolver._spans) == {"pkg/m3.py"}
    assert resolver._qualified == {
        "class:pkg/m3.py:Widget3": "pkg.m3.Widget3", "method:pkg/m3.py:Widget3.render": "pkg.m3.Widget3.render"
    }  # fmt: skip
