"""Go: packages by directory and go.mod, receiver methods across files, embedding, interfaces."""

from __future__ import annotations

from tests.unit.ingest.languages.graphs import definition_ids, edge_tuples, node

BASE, CART, MONEY = "cart/base.go", "cart/cart.go", "money/money.go"

NODE_IDS = {
    "module:example.com/shop/cart",
    "module:example.com/shop/money",
    f"struct:{BASE}:Base",
    f"method:{BASE}:Base.Save",
    f"method:{BASE}:Base.validate",
    f"interface:{BASE}:Saver",
    f"method:{BASE}:Saver.Save",
    f"struct:{CART}:Cart",
    f"function:{CART}:NewCart",
    f"method:{CART}:Cart.Add",
    f"method:{CART}:Cart.total",
    f"struct:{CART}:Wishlist",
    f"method:{CART}:Wishlist.Save",
    f"function:{CART}:Checkout",
    f"variable:{CART}:MaxItems",
    f"function:{MONEY}:Format",
    f"function:{MONEY}:itoa",
}

EDGES = {
    # `import "example.com/shop/money"`, by go.mod's module path: File → package Module
    (f"file:{CART}", "IMPORTS", "module:example.com/shop/money", "EXTRACTED"),
    # an embedded struct in another file of the package
    (f"struct:{CART}:Cart", "INHERITS", f"struct:{BASE}:Base", "INFERRED"),
    # implicit interfaces: every type with a Save method (Cart's is promoted from Base)
    (f"struct:{BASE}:Base", "IMPLEMENTS", f"interface:{BASE}:Saver", "INFERRED"),
    (f"struct:{CART}:Cart", "IMPLEMENTS", f"interface:{BASE}:Saver", "INFERRED"),
    (f"struct:{CART}:Wishlist", "IMPLEMENTS", f"interface:{BASE}:Saver", "INFERRED"),
    (f"method:{CART}:Cart.Add", "CALLS", f"function:{MONEY}:Format", "INFERRED"),
    # receiver `c *Cart`: its own method, and a method promoted from the embedded Base
    (f"method:{CART}:Cart.Add", "CALLS", f"method:{CART}:Cart.total", "EXTRACTED"),
    (f"method:{CART}:Cart.Add", "CALLS", f"method:{BASE}:Base.Save", "INFERRED"),
    (f"method:{BASE}:Base.Save", "CALLS", f"method:{BASE}:Base.validate", "EXTRACTED"),
    (f"function:{MONEY}:Format", "CALLS", f"function:{MONEY}:itoa", "EXTRACTED"),
    # composite literals `&Cart{}` are constructor calls
    (f"function:{CART}:NewCart", "CALLS", f"struct:{CART}:Cart", "EXTRACTED"),
    (f"function:{CART}:Checkout", "CALLS", f"struct:{CART}:Cart", "EXTRACTED"),
    (f"function:{CART}:Checkout", "CALLS", f"function:{CART}:NewCart", "EXTRACTED"),
    # `other := &Cart{}; other.Add(1)` (and `cart.Add(2)` matched by name)
    (f"function:{CART}:Checkout", "CALLS", f"method:{CART}:Cart.Add", "EXTRACTED"),
    # `s Saver`: the interface's method
    (f"function:{CART}:Checkout", "CALLS", f"method:{BASE}:Saver.Save", "INFERRED"),
    # `anything.Save()` on an anonymous interface type: three methods named Save, too many to
    # match by name (no edge)
}


def test_go_packages_receivers_and_embedding(build_fixture):
    built = build_fixture("go")
    assert definition_ids(built) == NODE_IDS
    assert edge_tuples(built) == EDGES
    assert built.unresolved_calls == 4  # append, len, fmt.Println, anything.Save
    add = node(built, f"method:{CART}:Cart.Add")
    assert (add.qualified_name, add.signature, add.docstring, add.start_line, add.end_line) == (
        "example.com/shop/cart.Cart.Add",
        "func (c *Cart) Add(cents int) string",
        "Add adds an item and returns the new total.",
        24,
        29,
    )
    assert node(built, "module:example.com/shop/money").docstring == "Package money formats amounts."
    assert node(built, f"struct:{BASE}:Base").signature == "type Base struct"
    structure = edge_tuples(built, ("DEFINES", "CONTAINS"))
    # a method declared in another file than its type would be DEFINES'd by the type
    assert (f"struct:{CART}:Cart", "DEFINES", f"method:{CART}:Cart.Add", "EXTRACTED") in structure
    assert ("module:example.com/shop/cart", "CONTAINS", f"file:{BASE}", "EXTRACTED") in structure
