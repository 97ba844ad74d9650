"""A small, fully known graph shaped like the ingester's output, knowledge layer included.

    shop/__init__.py, shop/util/__init__.py   (two files named __init__.py)
    shop/base.py        Model (save → validate)
    shop/models.py      Product(Model) (save → Model.save, Model.validate; render), Order(Model) (render)
    shop/digital.py     DigitalProduct(Product, <unresolved Downloadable>)
    shop/services.py    DEFAULT_CURRENCY, @logged helper, checkout (→ Product(), Order(), inner, slugify,
                        item.render → both renders AMBIGUOUS), checkout.inner (→ helper)
    shop/util/text.py   slugify;  shop/util/decorators.py  logged
    scripts/run.py      module-level calls of checkout and slugify
    docs/glossary.md    Document "Glossary": Concept "Product" (→ Product, checkout), Rule "Checkout rules"
                        (→ helper, module shop.services)
    docs/adr/0001-use-models.md   Document + Decision "Use a Model base class" (→ shop/base.py, Model,
                        save AMBIGUOUS ×2)
    wiki                WikiPage "Checkout flow" (→ checkout)

Written through the store's own `apply`, so both backends hold exactly this.
"""

from __future__ import annotations

from rhumbline.stores.graph.model import Edge, Node

PY = "python"
MD = "markdown"


def _file(path: str, lines: int, language: str = PY) -> Node:
    return Node(f"file:{path}", "File", path.rsplit("/", 1)[-1], path, path, 1, lines, language, content_hash=f"h-{path}")


def _module(dotted: str, path: str, lines: int, doc: str | None = None) -> Node:
    return Node(f"module:{dotted}", "Module", dotted.rsplit(".", 1)[-1], dotted, path, 1, lines, PY, docstring=doc)


def _def(kind: str, path: str, local: str, module: str, start: int, end: int, signature: str, doc: str | None = None) -> Node:
    return Node(f"{kind.lower()}:{path}:{local}", kind, local.rsplit(".", 1)[-1], f"{module}.{local}", path, start, end,
                PY, signature, doc)


FILES = {
    path: _file(path, lines, language)
    for path, lines, language in [
        ("shop/__init__.py", 5, PY), ("shop/util/__init__.py", 1, PY), ("shop/base.py", 8, PY), ("shop/models.py", 15, PY), ("shop/digital.py", 6, PY),
        ("shop/services.py", 27, PY), ("shop/util/text.py", 2, PY), ("shop/util/decorators.py", 2, PY),
        ("scripts/run.py", 5, PY), ("docs/glossary.md", 9, MD), ("docs/adr/0001-use-models.md", 11, MD),
    ]
}  # fmt: skip
MODULES = {
    m.qualified_name: m
    for m in [
        _module("shop", "shop/__init__.py", 5, "A toy shop."), _module("shop.util", "shop/util/__init__.py", 1),
        _module("shop.base", "shop/base.py", 8), _module("shop.models", "shop/models.py", 15),
        _module("shop.digital", "shop/digital.py", 6), _module("shop.services", "shop/services.py", 27, "Checkout."),
        _module("shop.util.text", "shop/util/text.py", 2), _module("shop.util.decorators", "shop/util/decorators.py", 2),
        _module("run", "scripts/run.py", 5),
    ]
}  # fmt: skip

MODEL = _def("Class", "shop/base.py", "Model", "shop.base", 1, 8, "class Model", "Base of all stored things.")
MODEL_SAVE = _def("Method", "shop/base.py", "Model.save", "shop.base", 4, 5, "def save(self)", "Store it.")
MODEL_VALIDATE = _def("Method", "shop/base.py", "Model.validate", "shop.base", 7, 8, "def validate(self)")
PRODUCT = _def("Class", "shop/models.py", "Product", "shop.models", 4, 10, "class Product(Model)")
PRODUCT_SAVE = _def("Method", "shop/models.py", "Product.save", "shop.models", 5, 7, "def save(self)")
PRODUCT_RENDER = _def("Method", "shop/models.py", "Product.render", "shop.models", 9, 10, "def render(self)")
ORDER = _def("Class", "shop/models.py", "Order", "shop.models", 13, 15, "class Order(Model)")
ORDER_RENDER = _def("Method", "shop/models.py", "Order.render", "shop.models", 14, 15, "def render(self)")
DIGITAL = _def("Class", "shop/digital.py", "DigitalProduct", "shop.digital", 3, 6,
               "class DigitalProduct(Product, Downloadable)", "A product you download.")
CURRENCY = Node("variable:shop/services.py:DEFAULT_CURRENCY", "Variable", "DEFAULT_CURRENCY",
                "shop.services.DEFAULT_CURRENCY", "shop/services.py", 7, 7, PY, 'DEFAULT_CURRENCY = "EUR"')
HELPER = _def("Function", "shop/services.py", "helper", "shop.services", 10, 12, "def helper()")
CHECKOUT = _def("Function", "shop/services.py", "checkout", "shop.services", 15, 27, "def checkout(items)",
                "Price a basket.\n\nEvery item is rendered first.")
INNER = _def("Function", "shop/services.py", "checkout.inner", "shop.services", 21, 22, "def inner()")
SLUGIFY = _def("Function", "shop/util/text.py", "slugify", "shop.util.text", 1, 2, "def slugify(value)")
LOGGED = _def("Function", "shop/util/decorators.py", "logged", "shop.util.decorators", 1, 2, "def logged(func)")

GLOSSARY = Node("document:docs/glossary.md", "Document", "Glossary", "docs/glossary.md", "docs/glossary.md", 1, 9, MD)
CONCEPT = Node("concept:docs/glossary.md#product", "Concept", "Product", "docs/glossary.md#product",
               "docs/glossary.md", 3, 6, MD, "Glossary > Product", "A thing we sell. See `Product` and `checkout`.")
RULE = Node("rule:docs/glossary.md#checkout-rules", "Rule", "Checkout rules", "docs/glossary.md#checkout-rules",
            "docs/glossary.md", 7, 9, MD, "Glossary > Checkout rules",
            "- Never call `helper` from outside `shop.services`.")
ADR_DOC = Node("document:docs/adr/0001-use-models.md", "Document", "Use a Model base class",
               "docs/adr/0001-use-models.md", "docs/adr/0001-use-models.md", 1, 11, MD, None, "Status: Accepted")
DECISION = Node("decision:docs/adr/0001-use-models.md", "Decision", "Use a Model base class",
                "docs/adr/0001-use-models.md", "docs/adr/0001-use-models.md", 1, 11, MD, "Status: Accepted",
                "Every stored thing subclasses `shop.base.Model` and calls `save()`.")
WIKI = Node("wikipage:wiki/Checkout-flow.md", "WikiPage", "Checkout flow", "wiki/Checkout-flow.md", None, None,
            None, MD, None, "How a basket becomes an order: `checkout` prices it.")

NODES = [*FILES.values(), *MODULES.values(), MODEL, MODEL_SAVE, MODEL_VALIDATE, PRODUCT, PRODUCT_SAVE, PRODUCT_RENDER,
         ORDER, ORDER_RENDER, DIGITAL, CURRENCY, HELPER, CHECKOUT, INNER, SLUGIFY, LOGGED, GLOSSARY, CONCEPT, RULE,
         ADR_DOC, DECISION, WIKI]  # fmt: skip


def _e(source: Node | str, target: Node | str, relation: str, line: int | None, explanation: str,
       confidence: str = "EXTRACTED", file: str | None = None) -> Edge:  # fmt: skip
    source_id = source if isinstance(source, str) else source.id
    target_id = target if isinstance(target, str) else target.id
    where = file or (source.file if isinstance(source, Node) else None)
    score = {"EXTRACTED": 1.0, "INFERRED": 0.8, "AMBIGUOUS": 0.4}[confidence]
    return Edge(source_id, target_id, relation, confidence, score, explanation, where, line)  # type: ignore[arg-type]


def _defines(parent: Node, child: Node) -> Edge:
    return _e(parent, child, "DEFINES", child.start_line, f"{parent.name} defines {child.name}")


F, M = FILES, MODULES
EDGES = [
    *(_defines(F[m.file], m) for m in MODULES.values()),  # type: ignore[index]
    *(_defines(F[n.file], n) for n in (MODEL, PRODUCT, ORDER, DIGITAL, CURRENCY, HELPER, CHECKOUT, SLUGIFY, LOGGED)),  # type: ignore[index]
    _defines(MODEL, MODEL_SAVE), _defines(MODEL, MODEL_VALIDATE), _defines(PRODUCT, PRODUCT_SAVE),
    _defines(PRODUCT, PRODUCT_RENDER), _defines(ORDER, ORDER_RENDER), _defines(CHECKOUT, INNER),
    _defines(F["docs/glossary.md"], GLOSSARY), _defines(GLOSSARY, CONCEPT), _defines(GLOSSARY, RULE),
    _defines(F["docs/adr/0001-use-models.md"], ADR_DOC), _defines(ADR_DOC, DECISION),
    # imports: file → module
    _e(F["shop/models.py"], M["shop.base"], "IMPORTS", 1, "`from shop.base import Model` at shop/models.py:1"),
    _e(F["shop/digital.py"], M["shop.models"], "IMPORTS", 1, "`from shop.models import Product` at shop/digital.py:1"),
    _e(F["shop/services.py"], M["shop.models"], "IMPORTS", 5, "`from . import models` at shop/services.py:5"),
    _e(F["shop/services.py"], M["shop.util.text"], "IMPORTS", 1, "`import shop.util.text as text` at shop/services.py:1"),
    _e(F["shop/services.py"], M["shop.util.decorators"], "IMPORTS", 3,
       "`from shop.util.decorators import logged` at shop/services.py:3"),
    _e(F["scripts/run.py"], M["shop.services"], "IMPORTS", 2, "`from shop.services import checkout` at scripts/run.py:2"),
    # inheritance, one base unresolved (a stub)
    _e(PRODUCT, MODEL, "INHERITS", 4, "class `Product` lists base `Model`, resolved through `from shop.base import Model`",
       "INFERRED"),
    _e(ORDER, MODEL, "INHERITS", 13, "class `Order` lists base `Model`, resolved through `from shop.base import Model`",
       "INFERRED"),
    _e(DIGITAL, PRODUCT, "INHERITS", 3, "class `DigitalProduct` lists base `Product`", "INFERRED"),
    _e(DIGITAL, "class:?:Downloadable", "INHERITS", 3, "class `DigitalProduct` lists base `Downloadable`, unresolved",
       "AMBIGUOUS"),
    # calls
    _e(MODEL_SAVE, MODEL_VALIDATE, "CALLS", 5, "call `self.validate(...)` at shop/base.py:5"),
    _e(PRODUCT_SAVE, MODEL_SAVE, "CALLS", 7, "call `super().save(...)` at shop/models.py:7", "INFERRED"),
    _e(PRODUCT_SAVE, MODEL_VALIDATE, "CALLS", 6, "call `self.validate(...)` at shop/models.py:6", "INFERRED"),
    _e(CHECKOUT, PRODUCT, "CALLS", 17, "call `Product(...)` at shop/services.py:17", "INFERRED"),
    _e(CHECKOUT, ORDER, "CALLS", 19, "call `models.Order(...)` at shop/services.py:19", "INFERRED"),
    _e(CHECKOUT, PRODUCT_RENDER, "CALLS", 26, "call `item.render(...)` at shop/services.py:26 has 2 candidates",
       "AMBIGUOUS"),
    _e(CHECKOUT, ORDER_RENDER, "CALLS", 26, "call `item.render(...)` at shop/services.py:26 has 2 candidates",
       "AMBIGUOUS"),
    _e(CHECKOUT, INNER, "CALLS", 24, "call `inner(...)` at shop/services.py:24"),
    _e(CHECKOUT, SLUGIFY, "CALLS", 18, "call `text.slugify(...)` at shop/services.py:18", "INFERRED"),
    _e(INNER, HELPER, "CALLS", 22, "call `helper(...)` at shop/services.py:22"),
    _e(F["scripts/run.py"], CHECKOUT, "CALLS", 4, "call `checkout(...)` at scripts/run.py:4", "INFERRED"),
    _e(F["scripts/run.py"], SLUGIFY, "CALLS", 5, "call `shop.util.text.slugify(...)` at scripts/run.py:5", "INFERRED"),
    _e(LOGGED, HELPER, "DECORATES", 10, "`@logged` on function `helper` at shop/services.py:10", "INFERRED",
       "shop/services.py"),
    # knowledge layer
    _e(CONCEPT, PRODUCT, "DOCUMENTS", 5, "`Product` mentioned at docs/glossary.md:5", "INFERRED"),
    _e(CONCEPT, CHECKOUT, "DOCUMENTS", 5, "`checkout` mentioned at docs/glossary.md:5", "INFERRED"),
    _e(RULE, HELPER, "DOCUMENTS", 9, "`helper` mentioned at docs/glossary.md:9", "INFERRED"),
    _e(RULE, M["shop.services"], "DOCUMENTS", 9, "`shop.services` mentioned at docs/glossary.md:9", "INFERRED"),
    _e(DECISION, F["shop/base.py"], "DOCUMENTS", 7, "`shop/base.py` mentioned at docs/adr/0001-use-models.md:7"),
    _e(DECISION, MODEL, "DOCUMENTS", 11, "`shop.base.Model` mentioned at docs/adr/0001-use-models.md:11", "INFERRED"),
    _e(DECISION, MODEL_SAVE, "DOCUMENTS", 11, "`save()` mentioned: 2 candidates", "AMBIGUOUS"),
    _e(DECISION, PRODUCT_SAVE, "DOCUMENTS", 11, "`save()` mentioned: 2 candidates", "AMBIGUOUS"),
    _e(WIKI, CHECKOUT, "DOCUMENTS", 1, "`checkout` mentioned in wiki page Checkout flow", "INFERRED",
       "wiki/Checkout-flow.md"),
]  # fmt: skip
