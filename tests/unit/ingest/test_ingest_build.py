"""The whole graph of the pyproj fixture: exact nodes and exact resolved edges."""

from __future__ import annotations

from pathlib import Path

from rhumbline.ingest.build import build_graph, summarize

PROJECT = "acme/shop"

NODE_IDS = {
    "repository:",
    "document:README.md",  # the knowledge layer (tests/unit/ingest/test_knowledge.py)
    "directory:scripts",
    "directory:shop",
    "directory:shop/util",
    "file:.gitignore",
    "file:README.md",
    "file:broken.py",
    "file:keep.log",
    "file:scripts/run.py",
    "file:shop/__init__.py",
    "file:shop/base.py",
    "file:shop/models.py",
    "file:shop/services.py",
    "file:shop/util/__init__.py",
    "file:shop/util/decorators.py",
    "file:shop/util/text.py",
    "module:broken",
    "module:run",
    "module:shop",
    "module:shop.base",
    "module:shop.models",
    "module:shop.services",
    "module:shop.util",
    "module:shop.util.decorators",
    "module:shop.util.text",
    "class:shop/base.py:Model",
    "class:shop/models.py:Order",
    "class:shop/models.py:Product",
    "function:broken.py:broken",
    "function:broken.py:fine",
    "function:shop/services.py:checkout",
    "function:shop/services.py:checkout.inner",
    "function:shop/services.py:helper",
    "function:shop/util/decorators.py:logged",
    "function:shop/util/text.py:slugify",
    "method:shop/base.py:Model.save",
    "method:shop/base.py:Model.validate",
    "method:shop/models.py:Order.render",
    "method:shop/models.py:Product.render",
    "method:shop/models.py:Product.save",
    "variable:shop/__init__.py:__all__",
    "variable:shop/services.py:DEFAULT_CURRENCY",
    # One Import node per import binding, one Decorator node per decorator application.
    "import:scripts/run.py:shop.util.text",
    "import:scripts/run.py:checkout",
    "import:shop/__init__.py:Product",
    "import:shop/models.py:Model",
    "import:shop/services.py:text",
    "import:shop/services.py:Product",
    "import:shop/services.py:logged",
    "import:shop/services.py:models",
    "decorator:shop/services.py:helper@logged",
}

RESOLVED_EDGES = {
    # `from shop.services import checkout` at module level: the File is the caller.
    ("file:scripts/run.py", "CALLS", "function:shop/services.py:checkout", "INFERRED"),
    # `import shop.util.text` then `shop.util.text.slugify()`: through the package chain.
    ("file:scripts/run.py", "CALLS", "function:shop/util/text.py:slugify", "INFERRED"),
    # `from . import models` then `models.Order()`: a constructor call on a module attribute.
    ("function:shop/services.py:checkout", "CALLS", "class:shop/models.py:Order", "INFERRED"),
    # `from shop import Product`: re-exported by shop/__init__.py, defined in shop/models.py.
    ("function:shop/services.py:checkout", "CALLS", "class:shop/models.py:Product", "INFERRED"),
    ("function:shop/services.py:checkout", "CALLS", "function:shop/services.py:checkout.inner", "EXTRACTED"),
    # `import shop.util.text as text` then `text.slugify()`.
    ("function:shop/services.py:checkout", "CALLS", "function:shop/util/text.py:slugify", "INFERRED"),
    # `item.render()`: unknown receiver, two methods of that name.
    ("function:shop/services.py:checkout", "CALLS", "method:shop/models.py:Order.render", "AMBIGUOUS"),
    ("function:shop/services.py:checkout", "CALLS", "method:shop/models.py:Product.render", "AMBIGUOUS"),
    ("function:shop/services.py:checkout.inner", "CALLS", "function:shop/services.py:helper", "EXTRACTED"),
    ("method:shop/base.py:Model.save", "CALLS", "method:shop/base.py:Model.validate", "EXTRACTED"),
    # `super().save()` and `self.validate()` in Product: up the MRO, into another file.
    ("method:shop/models.py:Product.save", "CALLS", "method:shop/base.py:Model.save", "INFERRED"),
    ("method:shop/models.py:Product.save", "CALLS", "method:shop/base.py:Model.validate", "INFERRED"),
    ("function:shop/util/decorators.py:logged", "DECORATES", "function:shop/services.py:helper", "INFERRED"),
    ("file:scripts/run.py", "IMPORTS", "module:shop.services", "EXTRACTED"),
    ("file:scripts/run.py", "IMPORTS", "module:shop.util.text", "EXTRACTED"),
    ("file:shop/__init__.py", "IMPORTS", "module:shop.models", "EXTRACTED"),
    ("file:shop/models.py", "IMPORTS", "module:shop.base", "EXTRACTED"),
    ("file:shop/services.py", "IMPORTS", "module:shop", "EXTRACTED"),
    ("file:shop/services.py", "IMPORTS", "module:shop.models", "EXTRACTED"),
    ("file:shop/services.py", "IMPORTS", "module:shop.util.decorators", "EXTRACTED"),
    ("file:shop/services.py", "IMPORTS", "module:shop.util.text", "EXTRACTED"),
    ("class:shop/models.py:Order", "INHERITS", "class:shop/base.py:Model", "INFERRED"),
    ("class:shop/models.py:Product", "INHERITS", "class:shop/base.py:Model", "INFERRED"),
}

# Import and Decorator nodes: what contains them, what they resolve to, what a decorator applies to.
STATEMENT_EDGES = {
    ("file:scripts/run.py", "CONTAINS", "import:scripts/run.py:shop.util.text", "EXTRACTED"),
    ("import:scripts/run.py:shop.util.text", "RESOLVES_TO", "module:shop.util.text", "EXTRACTED"),
    ("file:scripts/run.py", "CONTAINS", "import:scripts/run.py:checkout", "EXTRACTED"),
    ("import:scripts/run.py:checkout", "RESOLVES_TO", "module:shop.services", "EXTRACTED"),
    ("import:scripts/run.py:checkout", "RESOLVES_TO", "function:shop/services.py:checkout", "EXTRACTED"),
    ("file:shop/__init__.py", "CONTAINS", "import:shop/__init__.py:Product", "EXTRACTED"),
    ("import:shop/__init__.py:Product", "RESOLVES_TO", "module:shop.models", "EXTRACTED"),
    ("import:shop/__init__.py:Product", "RESOLVES_TO", "class:shop/models.py:Product", "EXTRACTED"),
    ("file:shop/models.py", "CONTAINS", "import:shop/models.py:Model", "EXTRACTED"),
    ("import:shop/models.py:Model", "RESOLVES_TO", "module:shop.base", "EXTRACTED"),
    ("import:shop/models.py:Model", "RESOLVES_TO", "class:shop/base.py:Model", "EXTRACTED"),
    ("file:shop/services.py", "CONTAINS", "import:shop/services.py:text", "EXTRACTED"),
    ("import:shop/services.py:text", "RESOLVES_TO", "module:shop.util.text", "EXTRACTED"),
    ("file:shop/services.py", "CONTAINS", "import:shop/services.py:Product", "EXTRACTED"),
    ("import:shop/services.py:Product", "RESOLVES_TO", "module:shop", "EXTRACTED"),
    # Re-exported by shop/__init__.py: an inference.
    ("import:shop/services.py:Product", "RESOLVES_TO", "class:shop/models.py:Product", "INFERRED"),
    ("file:shop/services.py", "CONTAINS", "import:shop/services.py:logged", "EXTRACTED"),
    ("import:shop/services.py:logged", "RESOLVES_TO", "module:shop.util.decorators", "EXTRACTED"),
    ("import:shop/services.py:logged", "RESOLVES_TO", "function:shop/util/decorators.py:logged", "EXTRACTED"),
    ("file:shop/services.py", "CONTAINS", "import:shop/services.py:models", "EXTRACTED"),
    ("import:shop/services.py:models", "RESOLVES_TO", "module:shop", "EXTRACTED"),
    ("import:shop/services.py:models", "RESOLVES_TO", "module:shop.models", "EXTRACTED"),
    ("function:shop/services.py:helper", "CONTAINS", "decorator:shop/services.py:helper@logged", "EXTRACTED"),
    ("decorator:shop/services.py:helper@logged", "APPLIES_TO", "function:shop/services.py:helper", "EXTRACTED"),
    ("decorator:shop/services.py:helper@logged", "RESOLVES_TO", "function:shop/util/decorators.py:logged", "INFERRED"),
}

DEFINES = {
    ("file:README.md", "document:README.md"),
    ("file:broken.py", "module:broken"),
    ("file:broken.py", "function:broken.py:fine"),
    ("file:broken.py", "function:broken.py:broken"),
    ("file:scripts/run.py", "module:run"),
    ("file:shop/__init__.py", "module:shop"),
    ("file:shop/__init__.py", "variable:shop/__init__.py:__all__"),
    ("file:shop/base.py", "module:shop.base"),
    ("file:shop/base.py", "class:shop/base.py:Model"),
    ("class:shop/base.py:Model", "method:shop/base.py:Model.save"),
    ("class:shop/base.py:Model", "method:shop/base.py:Model.validate"),
    ("file:shop/models.py", "module:shop.models"),
    ("file:shop/models.py", "class:shop/models.py:Product"),
    ("file:shop/models.py", "class:shop/models.py:Order"),
    ("class:shop/models.py:Product", "method:shop/models.py:Product.save"),
    ("class:shop/models.py:Product", "method:shop/models.py:Product.render"),
    ("class:shop/models.py:Order", "method:shop/models.py:Order.render"),
    ("file:shop/services.py", "module:shop.services"),
    ("file:shop/services.py", "variable:shop/services.py:DEFAULT_CURRENCY"),
    ("file:shop/services.py", "function:shop/services.py:helper"),
    ("file:shop/services.py", "function:shop/services.py:checkout"),
    ("function:shop/services.py:checkout", "function:shop/services.py:checkout.inner"),
    ("file:shop/util/__init__.py", "module:shop.util"),
    ("file:shop/util/decorators.py", "module:shop.util.decorators"),
    ("file:shop/util/decorators.py", "function:shop/util/decorators.py:logged"),
    ("file:shop/util/text.py", "module:shop.util.text"),
    ("file:shop/util/text.py", "function:shop/util/text.py:slugify"),
}


def test_node_ids_are_exact(pyproj: Path):
    built = build_graph(pyproj, PROJECT)
    ids = [node.id for node in built.nodes]
    assert len(ids) == len(set(ids))
    assert set(ids) == NODE_IDS  # no generated/cache.py, no debug.log, no binary logo


def test_resolved_edges_are_exact(pyproj: Path):
    built = build_graph(pyproj, PROJECT)
    resolved = {
        (e.source, e.relation, e.target, e.confidence)
        for e in built.edges
        if e.relation not in ("CONTAINS", "DEFINES", "RESOLVES_TO", "APPLIES_TO")
    }
    assert resolved == RESOLVED_EDGES
    statements = {
        (e.source, e.relation, e.target, e.confidence)
        for e in built.edges
        if e.relation in ("RESOLVES_TO", "APPLIES_TO") or e.target.startswith(("import:", "decorator:"))
    }
    assert statements == STATEMENT_EDGES
    defines = {(e.source, e.target) for e in built.edges if e.relation == "DEFINES"}
    assert defines == DEFINES


def test_every_edge_is_explained_located_and_joins_existing_nodes(pyproj: Path):
    built = build_graph(pyproj, PROJECT)
    ids = {node.id for node in built.nodes}
    scores = {"EXTRACTED": {1.0}, "INFERRED": {0.8}, "AMBIGUOUS": {0.5}}
    for edge in built.edges:
        assert edge.explanation.strip(), edge
        assert edge.source in ids and edge.target in ids, edge
        assert edge.file, edge
        assert edge.confidence_score in scores[edge.confidence], edge
        if edge.relation != "CONTAINS":
            assert edge.line is not None, edge


def test_explanations_name_the_evidence(pyproj: Path):
    explanations = {(e.source, e.target): e.explanation for e in build_graph(pyproj, PROJECT).edges}
    assert explanations[("function:shop/services.py:checkout", "class:shop/models.py:Product")] == (
        "call `Product(...)` at shop/services.py:17 resolved through `from shop import Product` "
        "to `shop.models.Product`"
    )
    assert explanations[("method:shop/models.py:Product.save", "method:shop/base.py:Model.save")] == (
        "call `super().save(...)` at shop/models.py:7 resolved to `shop.base.Model.save`, "
        "inherited from `shop.base.Model`"
    )
    assert explanations[("function:shop/services.py:checkout", "method:shop/models.py:Order.render")] == (
        "call `item.render(...)` at shop/services.py:26 (receiver type unknown) has 2 candidates: "
        "shop.models.Order.render, shop.models.Product.render"
    )
    assert explanations[("file:shop/services.py", "module:shop.util.text")] == (
        "`import shop.util.text as text` at shop/services.py:1"
    )


def test_node_fields(pyproj: Path):
    nodes = {node.id: node for node in build_graph(pyproj, PROJECT).nodes}
    checkout = nodes["function:shop/services.py:checkout"]
    assert (checkout.name, checkout.qualified_name, checkout.file) == (
        "checkout", "shop.services.checkout", "shop/services.py"
    )
    assert (checkout.start_line, checkout.end_line, checkout.language) == (15, 27, "python")
    assert (checkout.signature, checkout.docstring) == ("def checkout(items)", "Price a basket.")
    assert len(checkout.content_hash) == 64
    constant = nodes["variable:shop/services.py:DEFAULT_CURRENCY"]
    assert (constant.kind, constant.signature, constant.qualified_name) == (
        "Variable", 'DEFAULT_CURRENCY = "EUR"', "shop.services.DEFAULT_CURRENCY"
    )
    package = nodes["module:shop"]
    assert (package.file, package.docstring) == (
        "shop/__init__.py", "A toy shop: the package re-exports its main class."
    )
    services = nodes["file:shop/services.py"]
    assert (services.kind, services.language, services.start_line, services.end_line) == ("File", "python", 1, 27)
    assert nodes["file:README.md"].language == "markdown"
    assert nodes["repository:"].name == PROJECT


def test_two_builds_give_identical_graphs(pyproj: Path):
    first, second = build_graph(pyproj, PROJECT), build_graph(pyproj, PROJECT)
    assert first.nodes == second.nodes
    assert first.edges == second.edges


def test_summary_counts(pyproj: Path):
    built = build_graph(pyproj, PROJECT)
    summary = summarize(built, project=PROJECT, version=3, commit=None, duration_s=0.25)
    assert summary.files == 12 and summary.parsed_files == 10  # the binary logo is no File
    assert summary.skipped == {"binary": 1}
    assert [e.model_dump() for e in summary.skipped_examples] == [{"path": "assets/logo.png", "reason": "binary", "detail": ""}]
    assert summary.nodes_by_kind == {
        "Class": 3, "Decorator": 1, "Directory": 3, "Document": 1, "File": 12, "Function": 7,
        "Import": 8, "Method": 5, "Module": 9, "Repository": 1, "Variable": 2,
    }
    assert summary.edges_by_relation == {
        "APPLIES_TO": 1, "CALLS": 12, "CONTAINS": 24, "DECORATES": 1, "DEFINES": 27, "IMPORTS": 8,
        "INHERITS": 2, "RESOLVES_TO": 15,
    }
    assert (summary.node_count, summary.edge_count) == (52, 90)
    # len(items), value.lower(), super() — builtins
    assert summary.unresolved_calls == 3
    assert summary.files_with_syntax_errors == 1
