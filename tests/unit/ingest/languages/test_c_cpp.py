"""C and C++ in one tree (they link together): includes, namespaces, out-of-line methods."""

from __future__ import annotations

from tests.unit.ingest.languages.graphs import definition_ids, edge_tuples, node

MONEY_H, MONEY_C = "include/shop/money.h", "src/money.c"
CART_H, CART_CPP, MAIN = "include/shop/cart.hpp", "src/cart.cpp", "src/main.cpp"

NODE_IDS = {
    # C: definitions only (the header's prototypes are not nodes), file-level variables
    f"function:{MONEY_C}:cents",
    f"function:{MONEY_C}:format_price",
    f"variable:{MONEY_C}:rounding",
    # C++: classes and the methods declared in them (signatures ending with `;`)...
    f"class:{CART_H}:shop::Base",
    f"method:{CART_H}:shop::Base::save",
    f"class:{CART_H}:shop::Cart",
    f"method:{CART_H}:shop::Cart::Cart",
    f"method:{CART_H}:shop::Cart::add",
    f"method:{CART_H}:shop::Cart::total",
    f"class:{CART_H}:shop::Wishlist",
    f"method:{CART_H}:shop::Wishlist::add",
    # ...and their out-of-line definitions, with the same qualified names
    f"method:{CART_CPP}:shop::Base::save",
    f"method:{CART_CPP}:shop::Cart::Cart",
    f"method:{CART_CPP}:shop::Cart::add",
    f"function:{MAIN}:restock",
    f"function:{MAIN}:main",
}

EDGES = {
    (f"file:{MONEY_C}", "IMPORTS", f"file:{MONEY_H}", "EXTRACTED"),  # via include/
    (f"file:{CART_CPP}", "IMPORTS", f"file:{CART_H}", "EXTRACTED"),
    (f"file:{CART_CPP}", "IMPORTS", f"file:{MONEY_H}", "EXTRACTED"),
    (f"file:{MAIN}", "IMPORTS", f"file:{CART_H}", "EXTRACTED"),  # <shop/cart.hpp>
    (f"class:{CART_H}:shop::Cart", "INHERITS", f"class:{CART_H}:shop::Base", "EXTRACTED"),
    (f"function:{MONEY_C}:format_price", "CALLS", f"function:{MONEY_C}:cents", "EXTRACTED"),
    # C++ calling C through `#include "shop/money.h"` (its source is src/money.c)
    (f"method:{CART_CPP}:shop::Cart::add", "CALLS", f"function:{MONEY_C}:cents", "INFERRED"),
    # bare `save()` in a method: this->save(), inherited, the definition preferred
    (f"method:{CART_CPP}:shop::Cart::add", "CALLS", f"method:{CART_CPP}:shop::Base::save", "INFERRED"),
    # `this->total()`: the inline method in the header
    (f"method:{CART_CPP}:shop::Cart::add", "CALLS", f"method:{CART_H}:shop::Cart::total", "INFERRED"),
    # `shop::Cart cart; cart.add(1)`: the definition, not the declaration
    (f"function:{MAIN}:main", "CALLS", f"method:{CART_CPP}:shop::Cart::add", "INFERRED"),
    # `new shop::Wishlist()`, then `wishlist->add(2)`
    (f"function:{MAIN}:main", "CALLS", f"class:{CART_H}:shop::Wishlist", "INFERRED"),
    (f"function:{MAIN}:main", "CALLS", f"method:{CART_H}:shop::Wishlist::add", "INFERRED"),
    (f"function:{MAIN}:main", "CALLS", f"function:{MAIN}:restock", "EXTRACTED"),
    # `T &thing; thing.add(3)`: a template parameter, two methods named add
    (f"function:{MAIN}:restock", "CALLS", f"method:{CART_CPP}:shop::Cart::add", "AMBIGUOUS"),
    (f"function:{MAIN}:restock", "CALLS", f"method:{CART_H}:shop::Wishlist::add", "AMBIGUOUS"),
}


def test_c_and_cpp_includes_namespaces_and_methods(build_fixture):
    built = build_fixture("c")
    assert definition_ids(built) == NODE_IDS
    assert edge_tuples(built) == EDGES
    assert built.unresolved_calls == 0
    languages = {n.file: n.language for n in built.nodes if n.kind == "File"}
    assert (languages[MONEY_C], languages[CART_CPP], languages[CART_H]) == ("c", "cpp", "cpp")
    declared = node(built, f"method:{CART_H}:shop::Cart::add")
    assert (declared.signature, declared.docstring) == ("void add(int units);", "Adds an item, in whole units.")
    defined = node(built, f"method:{CART_CPP}:shop::Cart::add")
    assert (defined.signature, defined.start_line, defined.end_line) == ("void Cart::add(int units)", 13, 17)
    assert node(built, f"function:{MONEY_C}:cents").docstring == "Whole units to cents."
    assert node(built, f"class:{CART_H}:shop::Cart").docstring == "A shopping cart."
    defines = edge_tuples(built, ("DEFINES",))
    # the out-of-line definition belongs to its class, declared in another file
    assert (f"class:{CART_H}:shop::Cart", "DEFINES", f"method:{CART_CPP}:shop::Cart::add", "EXTRACTED") in defines
