"""JavaScript: ES modules, a re-exporting index file, CommonJS, classes across files."""

from __future__ import annotations

from tests.unit.ingest.languages.graphs import definition_ids, edge_tuples, node

APP, BASE, CART, INDEX, FORMAT = (
    "src/app.js",
    "src/base.js",
    "src/models/cart.js",
    "src/models/index.js",
    "src/util/format.js",
)

NODE_IDS = {
    f"function:{APP}:checkout",
    f"function:{APP}:restock",
    f"class:{BASE}:Model",
    f"method:{BASE}:Model.save",
    f"method:{BASE}:Model.validate",
    f"class:{CART}:Cart",
    f"method:{CART}:Cart.addItem",
    f"method:{CART}:Cart.save",
    f"class:{CART}:Wishlist",
    f"method:{CART}:Wishlist.addItem",
    f"variable:{CART}:TAX_RATE",
    f"function:{FORMAT}:formatPrice",
    f"function:{FORMAT}:round",  # `const round = (value) => …`
}

EDGES = {
    # ES imports, an index file's re-export, a CommonJS require: File → File
    (f"file:{APP}", "IMPORTS", f"file:{INDEX}", "EXTRACTED"),
    (f"file:{APP}", "IMPORTS", f"file:{FORMAT}", "EXTRACTED"),
    (f"file:{CART}", "IMPORTS", f"file:{BASE}", "EXTRACTED"),
    (f"file:{CART}", "IMPORTS", f"file:{FORMAT}", "EXTRACTED"),
    (f"file:{INDEX}", "IMPORTS", f"file:{CART}", "EXTRACTED"),
    # inheritance across files
    (f"class:{CART}:Cart", "INHERITS", f"class:{BASE}:Model", "INFERRED"),
    (f"class:{CART}:Wishlist", "INHERITS", f"class:{BASE}:Model", "INFERRED"),
    # `new Cart()` through `import { Cart } from "./models"` → index.js → cart.js
    (f"function:{APP}:checkout", "CALLS", f"class:{CART}:Cart", "INFERRED"),
    # `const cart = new Cart(); cart.addItem()`: the receiver's type is known
    (f"function:{APP}:checkout", "CALLS", f"method:{CART}:Cart.addItem", "INFERRED"),
    # `fmt.formatPrice()` (import * as fmt) and `legacy.formatPrice()` (require) → module.exports
    (f"function:{APP}:checkout", "CALLS", f"function:{FORMAT}:formatPrice", "INFERRED"),
    # `thing.addItem()`: unknown receiver, two methods of that name
    (f"function:{APP}:restock", "CALLS", f"method:{CART}:Cart.addItem", "AMBIGUOUS"),
    (f"function:{APP}:restock", "CALLS", f"method:{CART}:Wishlist.addItem", "AMBIGUOUS"),
    # this.m() on the own class; super.m() on the base class in another file
    (f"method:{BASE}:Model.save", "CALLS", f"method:{BASE}:Model.validate", "EXTRACTED"),
    (f"method:{CART}:Cart.save", "CALLS", f"method:{CART}:Cart.addItem", "EXTRACTED"),
    (f"method:{CART}:Cart.save", "CALLS", f"method:{BASE}:Model.save", "INFERRED"),
    # a named import of a CommonJS export
    (f"method:{CART}:Cart.addItem", "CALLS", f"function:{FORMAT}:formatPrice", "INFERRED"),
    (f"function:{FORMAT}:formatPrice", "CALLS", f"function:{FORMAT}:round", "EXTRACTED"),
}


def test_javascript_definitions_imports_calls_and_inheritance(build_fixture):
    built = build_fixture("javascript")
    assert definition_ids(built) == NODE_IDS
    assert edge_tuples(built) == EDGES
    # this.items.push(), Math.round(): standard-library names; round(value).toFixed(): dynamic
    assert built.unresolved_calls == 3

    cart = node(built, f"class:{CART}:Cart")
    assert (cart.kind, cart.qualified_name, cart.language) == ("Class", "src/models/cart:Cart", "javascript")
    assert (cart.start_line, cart.end_line) == (9, 19)
    assert cart.signature == "export class Cart extends Model"
    assert cart.docstring == "A shopping cart."
    assert node(built, f"function:{FORMAT}:formatPrice").docstring == "Two decimals."
    assert node(built, f"function:{FORMAT}:round").signature == "const round = (value) =>"
    assert node(built, f"class:{BASE}:Model").docstring == "Base of every model."

    explanations = {(e.source, e.target): e.explanation for e in built.edges if e.relation == "CALLS"}
    assert explanations[(f"method:{CART}:Cart.addItem", f"function:{FORMAT}:formatPrice")] == (
        'call `formatPrice(...)` at src/models/cart.js:12 resolved through '
        '`import { formatPrice } from "../util/format";` to `src/util/format:formatPrice`'
    )
    ambiguous = explanations[(f"function:{APP}:restock", f"method:{CART}:Wishlist.addItem")]
    assert "2 candidates" in ambiguous
    defines = edge_tuples(built, ("DEFINES",))
    assert (f"class:{CART}:Cart", "DEFINES", f"method:{CART}:Cart.addItem", "EXTRACTED") in defines
    assert (f"file:{CART}", "DEFINES", f"variable:{CART}:TAX_RATE", "EXTRACTED") in defines
