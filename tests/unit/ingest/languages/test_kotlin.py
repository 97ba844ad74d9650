"""Kotlin (with a Java file calling it): packages, aliased imports, companion objects, extension
functions, constructor calls without `new`, properties as typed receivers."""

from __future__ import annotations

from tests.unit.ingest.languages.graphs import definition_ids, edge_tuples, node

KT = "src/main/kotlin/com/shop"
BASE, CART, MONEY = f"{KT}/model/Base.kt", f"{KT}/model/Cart.kt", f"{KT}/util/Money.kt"
MAIN = "src/main/java/com/shop/app/Main.java"

NODE_IDS = {
    "module:com.shop.app",
    "module:com.shop.model",
    "module:com.shop.util",
    f"interface:{BASE}:Saveable",
    f"method:{BASE}:Saveable.save",
    f"class:{BASE}:Base",
    f"method:{BASE}:Base.save",
    f"method:{BASE}:Base.validate",
    f"class:{CART}:Cart",
    f"method:{CART}:Cart.add",
    f"method:{CART}:Cart.check",
    f"method:{CART}:Cart.empty",  # in the companion object
    f"function:{CART}:restock",
    f"class:{MONEY}:Money",
    f"method:{MONEY}:Money.render",
    f"function:{MONEY}:format",
    f"method:{MONEY}:Money.doubled",  # `fun Money.doubled()`: an extension
    f"class:{MAIN}:Main",
    f"method:{MAIN}:Main.main",
}

EDGES = {
    (f"file:{CART}", "IMPORTS", f"file:{MONEY}", "EXTRACTED"),
    (f"file:{MAIN}", "IMPORTS", f"file:{CART}", "EXTRACTED"),
    (f"file:{MAIN}", "IMPORTS", f"file:{MONEY}", "EXTRACTED"),
    (f"class:{BASE}:Base", "IMPLEMENTS", f"interface:{BASE}:Saveable", "EXTRACTED"),
    (f"class:{CART}:Cart", "INHERITS", f"class:{BASE}:Base", "INFERRED"),
    (f"class:{CART}:Cart", "IMPLEMENTS", f"interface:{BASE}:Saveable", "INFERRED"),
    # a property initializer `Money(0)` runs in the class body
    (f"class:{CART}:Cart", "CALLS", f"class:{MONEY}:Money", "INFERRED"),
    (f"method:{BASE}:Base.save", "CALLS", f"method:{BASE}:Base.validate", "EXTRACTED"),
    (f"method:{CART}:Cart.add", "CALLS", f"class:{MONEY}:Money", "INFERRED"),
    # `val money = Money(cents)`: typed by its constructor call; `total: Money` property
    (f"method:{CART}:Cart.add", "CALLS", f"method:{MONEY}:Money.render", "INFERRED"),
    (f"method:{CART}:Cart.add", "CALLS", f"method:{MONEY}:Money.doubled", "INFERRED"),
    (f"method:{CART}:Cart.add", "CALLS", f"method:{BASE}:Base.save", "INFERRED"),
    (f"method:{CART}:Cart.add", "CALLS", f"method:{CART}:Cart.check", "EXTRACTED"),
    # `import com.shop.util.format as fmt`
    (f"method:{CART}:Cart.add", "CALLS", f"function:{MONEY}:format", "INFERRED"),
    (f"method:{CART}:Cart.empty", "CALLS", f"class:{CART}:Cart", "EXTRACTED"),
    (f"function:{CART}:restock", "CALLS", f"method:{BASE}:Base.save", "AMBIGUOUS"),
    (f"function:{CART}:restock", "CALLS", f"method:{BASE}:Saveable.save", "AMBIGUOUS"),
    (f"method:{MONEY}:Money.render", "CALLS", f"function:{MONEY}:format", "EXTRACTED"),
    (f"method:{MONEY}:Money.doubled", "CALLS", f"class:{MONEY}:Money", "EXTRACTED"),
    # Java → Kotlin
    (f"method:{MAIN}:Main.main", "CALLS", f"class:{CART}:Cart", "INFERRED"),
    (f"method:{MAIN}:Main.main", "CALLS", f"method:{CART}:Cart.add", "INFERRED"),
    (f"method:{MAIN}:Main.main", "CALLS", f"class:{MONEY}:Money", "INFERRED"),
    (f"method:{MAIN}:Main.main", "CALLS", f"method:{MONEY}:Money.render", "INFERRED"),
}


def test_kotlin_and_java_together(build_fixture):
    built = build_fixture("kotlin")
    assert definition_ids(built) == NODE_IDS
    assert edge_tuples(built) == EDGES
    # money.doubled().render() (a call on a call), cents.toString()
    assert built.unresolved_calls == 2
    cart = node(built, f"class:{CART}:Cart")
    assert (cart.qualified_name, cart.docstring, cart.signature, cart.language) == (
        "com.shop.model.Cart",
        "A shopping cart.",
        "class Cart(val owner: String) : Base(), Saveable",
        "kotlin",
    )
    assert node(built, f"function:{MONEY}:format").docstring == "Cents as a price."
    defines = edge_tuples(built, ("DEFINES",))
    assert (f"class:{MONEY}:Money", "DEFINES", f"method:{MONEY}:Money.doubled", "EXTRACTED") in defines
    assert (f"class:{CART}:Cart", "DEFINES", f"method:{CART}:Cart.empty", "EXTRACTED") in defines
