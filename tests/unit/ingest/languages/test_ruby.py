"""Ruby: constant lookup, mixins, a class reopened in another file, require / require_relative."""

from __future__ import annotations

from tests.unit.ingest.languages.graphs import definition_ids, edge_tuples, node

SAVEABLE, CART, MONEY, EXTRAS, WISHLIST = (
    "lib/shop/saveable.rb",
    "lib/shop/cart.rb",
    "lib/shop/money.rb",
    "lib/shop/cart_extras.rb",
    "lib/shop/other/wishlist.rb",
)

NODE_IDS = {
    # `module Shop` opened in four files: four pieces
    f"module:{SAVEABLE}:Shop",
    f"module:{CART}:Shop",
    f"module:{MONEY}:Shop",
    f"module:{WISHLIST}:Shop",
    f"module:{SAVEABLE}:Shop::Saveable",
    f"method:{SAVEABLE}:Shop::Saveable#save",
    f"method:{SAVEABLE}:Shop::Saveable#validate",
    f"class:{CART}:Shop::Base",
    f"method:{CART}:Shop::Base#describe",
    f"class:{CART}:Shop::Cart",
    f"method:{CART}:Shop::Cart#initialize",
    f"method:{CART}:Shop::Cart#add",
    f"method:{CART}:Shop::Cart.empty",  # def self.empty
    f"method:{CART}:Shop::Cart#total",
    f"class:{EXTRAS}:Shop::Cart",  # reopened
    f"method:{EXTRAS}:Shop::Cart#clear",
    f"function:{EXTRAS}:restock",
    f"class:{MONEY}:Shop::Money",
    f"method:{MONEY}:Shop::Money#initialize",
    f"method:{MONEY}:Shop::Money#render",
    f"method:{MONEY}:Shop::Money.format",
    f"class:{WISHLIST}:Shop::Wishlist",
    f"method:{WISHLIST}:Shop::Wishlist#describe",
}

EDGES = {
    (f"file:{CART}", "IMPORTS", f"file:{SAVEABLE}", "EXTRACTED"),  # require_relative "saveable"
    (f"file:{CART}", "IMPORTS", f"file:{MONEY}", "EXTRACTED"),  # require "shop/money" (lib/)
    (f"class:{CART}:Shop::Cart", "INHERITS", f"class:{CART}:Shop::Base", "EXTRACTED"),
    # `include Saveable`: a mixin is an ancestor
    (f"class:{CART}:Shop::Cart", "INHERITS", f"module:{SAVEABLE}:Shop::Saveable", "INFERRED"),
    (f"method:{SAVEABLE}:Shop::Saveable#save", "CALLS", f"method:{SAVEABLE}:Shop::Saveable#validate", "EXTRACTED"),
    # `Money.new(cents)` by constant lookup from inside Shop::Cart, then `money.render`
    (f"method:{CART}:Shop::Cart#add", "CALLS", f"class:{MONEY}:Shop::Money", "INFERRED"),
    (f"method:{CART}:Shop::Cart#add", "CALLS", f"method:{MONEY}:Shop::Money#render", "INFERRED"),
    (f"method:{CART}:Shop::Cart#add", "CALLS", f"method:{MONEY}:Shop::Money.format", "INFERRED"),
    # bare `save`: the mixin's method; `self.total`
    (f"method:{CART}:Shop::Cart#add", "CALLS", f"method:{SAVEABLE}:Shop::Saveable#save", "INFERRED"),
    (f"method:{CART}:Shop::Cart#add", "CALLS", f"method:{CART}:Shop::Cart#total", "EXTRACTED"),
    # bare `new([])` in a class method
    (f"method:{CART}:Shop::Cart.empty", "CALLS", f"class:{CART}:Shop::Cart", "EXTRACTED"),
    (f"method:{MONEY}:Shop::Money#render", "CALLS", f"method:{MONEY}:Shop::Money.format", "EXTRACTED"),
    # the reopened piece sees the superclass declared by the other piece
    (f"method:{EXTRAS}:Shop::Cart#clear", "CALLS", f"method:{CART}:Shop::Base#describe", "INFERRED"),
    (f"function:{EXTRAS}:restock", "CALLS", f"method:{CART}:Shop::Cart.empty", "INFERRED"),
    # `thing.describe`: two methods named describe
    (f"function:{EXTRAS}:restock", "CALLS", f"method:{CART}:Shop::Base#describe", "AMBIGUOUS"),
    (f"function:{EXTRAS}:restock", "CALLS", f"method:{WISHLIST}:Shop::Wishlist#describe", "AMBIGUOUS"),
}


def test_ruby_constants_mixins_and_reopened_classes(build_fixture):
    built = build_fixture("ruby")
    assert definition_ids(built) == NODE_IDS
    assert edge_tuples(built) == EDGES
    # super() in initialize (Object#initialize), cents.to_s, @items.clear
    assert built.unresolved_calls == 3
    add = node(built, f"method:{CART}:Shop::Cart#add")
    assert (add.qualified_name, add.signature, add.docstring) == (
        "Shop::Cart#add",
        "def add(cents)",
        "Adds an item.",
    )
    assert node(built, f"class:{CART}:Shop::Cart").docstring == "A shopping cart."
    assert node(built, f"module:{SAVEABLE}:Shop::Saveable").kind == "Module"
    defines = edge_tuples(built, ("DEFINES",))
    assert (f"class:{EXTRAS}:Shop::Cart", "DEFINES", f"method:{EXTRAS}:Shop::Cart#clear", "EXTRACTED") in defines
