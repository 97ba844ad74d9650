"""Rust: crate module tree, `use` paths (crate/super/self), impl blocks, traits."""

from __future__ import annotations

from tests.unit.ingest.languages.graphs import definition_ids, edge_tuples, node

LIB, MONEY, MODELS, CART = "src/lib.rs", "src/money.rs", "src/models/mod.rs", "src/models/cart.rs"

NODE_IDS = {
    f"function:{LIB}:checkout",
    f"function:{LIB}:anything",
    f"trait:{LIB}:Saveable",
    f"method:{LIB}:Saveable::save",
    f"variable:{LIB}:VERSION",
    f"function:{MONEY}:cents",
    f"struct:{CART}:Cart",
    f"method:{CART}:Cart::new",
    f"method:{CART}:Cart::add",
    f"method:{CART}:Cart::describe",
    # trait impls: Rust's fully qualified syntax keeps two traits' methods apart
    f"method:{CART}:<Cart as Saveable>::save",
    f"method:{CART}:<Cart as fmt::Display>::fmt",
    f"struct:{CART}:Wishlist",
    f"method:{CART}:Wishlist::describe",
}

EDGES = {
    # `mod x;` declarations and `use` of repository items: File → File
    (f"file:{LIB}", "IMPORTS", f"file:{MONEY}", "EXTRACTED"),
    (f"file:{LIB}", "IMPORTS", f"file:{MODELS}", "EXTRACTED"),
    (f"file:{LIB}", "IMPORTS", f"file:{CART}", "EXTRACTED"),
    (f"file:{MODELS}", "IMPORTS", f"file:{CART}", "EXTRACTED"),
    (f"file:{CART}", "IMPORTS", f"file:{LIB}", "EXTRACTED"),  # use super::super::Saveable
    (f"file:{CART}", "IMPORTS", f"file:{MONEY}", "EXTRACTED"),  # use crate::money
    # `impl Saveable for Cart`, the trait in another module
    (f"struct:{CART}:Cart", "IMPLEMENTS", f"trait:{LIB}:Saveable", "INFERRED"),
    # `Cart::new()` through `use crate::models::cart::Cart`
    (f"function:{LIB}:checkout", "CALLS", f"method:{CART}:Cart::new", "INFERRED"),
    # `let mut cart = Cart::new(); cart.add(…)`: the type from the constructor path
    (f"function:{LIB}:checkout", "CALLS", f"method:{CART}:Cart::add", "INFERRED"),
    # `money::cents()` through `pub mod money;`
    (f"function:{LIB}:checkout", "CALLS", f"function:{MONEY}:cents", "INFERRED"),
    # `item: &dyn Saveable`: the trait's method
    (f"function:{LIB}:checkout", "CALLS", f"method:{LIB}:Saveable::save", "EXTRACTED"),
    # `thing: T`: a type parameter, so two methods named describe
    (f"function:{LIB}:anything", "CALLS", f"method:{CART}:Cart::describe", "AMBIGUOUS"),
    (f"function:{LIB}:anything", "CALLS", f"method:{CART}:Wishlist::describe", "AMBIGUOUS"),
    (f"method:{CART}:Cart::add", "CALLS", f"function:{MONEY}:cents", "INFERRED"),
    # self.describe(), Self::new(), and the struct literal `Cart { … }`
    (f"method:{CART}:Cart::add", "CALLS", f"method:{CART}:Cart::describe", "EXTRACTED"),
    (f"method:{CART}:<Cart as Saveable>::save", "CALLS", f"method:{CART}:Cart::new", "EXTRACTED"),
    (f"method:{CART}:Cart::new", "CALLS", f"struct:{CART}:Cart", "EXTRACTED"),
}


def test_rust_modules_impls_and_traits(build_fixture):
    built = build_fixture("rust")
    assert definition_ids(built) == NODE_IDS
    assert edge_tuples(built) == EDGES
    assert built.unresolved_calls == 0
    add = node(built, f"method:{CART}:Cart::add")
    assert (add.qualified_name, add.signature) == (
        "shop_core::models::cart::Cart::add",
        "pub fn add(&mut self, amount: u32)",
    )
    cart = node(built, f"struct:{CART}:Cart")  # the doc comment is above `#[derive]`
    assert (cart.kind, cart.docstring, cart.start_line) == ("Struct", "A shopping cart.", 8)
    assert node(built, f"method:{CART}:Cart::new").docstring == "An empty cart."
    defines = edge_tuples(built, ("DEFINES",))
    assert (f"struct:{CART}:Cart", "DEFINES", f"method:{CART}:<Cart as Saveable>::save", "EXTRACTED") in defines
