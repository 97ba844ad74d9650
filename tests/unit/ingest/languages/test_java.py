"""Java: packages, single-type / static / star imports, implicit this, fields as typed receivers."""

from __future__ import annotations

from tests.unit.ingest.languages.graphs import definition_ids, edge_tuples, node

ROOT = "src/main/java/com/shop"
SAVEABLE, BASE, CART, MONEY = (
    f"{ROOT}/model/Saveable.java",
    f"{ROOT}/model/Base.java",
    f"{ROOT}/model/Cart.java",
    f"{ROOT}/util/Money.java",
)

NODE_IDS = {
    "module:com.shop.model",
    "module:com.shop.util",
    f"interface:{SAVEABLE}:Saveable",
    f"method:{SAVEABLE}:Saveable.save",
    f"class:{BASE}:Base",
    f"method:{BASE}:Base.save",
    f"method:{BASE}:Base.validate",
    f"class:{CART}:Cart",
    f"method:{CART}:Cart.Cart",  # the constructor
    f"method:{CART}:Cart.add",
    f"method:{CART}:Cart.check",
    f"class:{CART}:Cart.Line",
    f"method:{CART}:Cart.Line.save",
    f"class:{MONEY}:Money",
    f"method:{MONEY}:Money.Money",
    f"method:{MONEY}:Money.render",
    f"method:{MONEY}:Money.format",
    f"method:{MONEY}:Money.store",
}

EDGES = {
    # a single-type import (and a static import of the same class): File → File
    (f"file:{CART}", "IMPORTS", f"file:{MONEY}", "EXTRACTED"),
    # a star import of a repository package: File → Module
    (f"file:{MONEY}", "IMPORTS", "module:com.shop.model", "EXTRACTED"),
    (f"class:{BASE}:Base", "IMPLEMENTS", f"interface:{SAVEABLE}:Saveable", "INFERRED"),
    (f"class:{CART}:Cart", "INHERITS", f"class:{BASE}:Base", "INFERRED"),
    # implicit this in the same class
    (f"method:{BASE}:Base.save", "CALLS", f"method:{BASE}:Base.validate", "EXTRACTED"),
    # `super()` in the constructor
    (f"method:{CART}:Cart.Cart", "CALLS", f"class:{BASE}:Base", "INFERRED"),
    (f"method:{CART}:Cart.add", "CALLS", f"class:{MONEY}:Money", "INFERRED"),
    # the field `private Money total;` types the receiver of `total.render()`
    (f"method:{CART}:Cart.add", "CALLS", f"method:{MONEY}:Money.render", "INFERRED"),
    # bare `save()` (implicit this, inherited) and `super.save()`
    (f"method:{CART}:Cart.add", "CALLS", f"method:{BASE}:Base.save", "INFERRED"),
    (f"method:{CART}:Cart.add", "CALLS", f"method:{CART}:Cart.check", "EXTRACTED"),
    # `import static com.shop.util.Money.format`
    (f"method:{CART}:Cart.add", "CALLS", f"method:{MONEY}:Money.format", "INFERRED"),
    (f"method:{MONEY}:Money.render", "CALLS", f"method:{MONEY}:Money.format", "EXTRACTED"),
    # `Saveable target` then `target.save()`: the interface method
    (f"method:{MONEY}:Money.store", "CALLS", f"method:{SAVEABLE}:Saveable.save", "INFERRED"),
    # `new com.shop.model.Cart()`: a fully qualified name
    (f"method:{MONEY}:Money.store", "CALLS", f"class:{CART}:Cart", "INFERRED"),
    # `var found = anything; found.save()`: three methods named save, more than Java's name
    # match offers: no edge
    # (Saveable.save, the third candidate, already has the stronger typed edge)
}


def test_java_packages_imports_and_receivers(build_fixture):
    built = build_fixture("java")
    assert definition_ids(built) == NODE_IDS
    assert edge_tuples(built) == EDGES
    # `new Cart().add(1)` (a call on a call), `String.valueOf` (the standard library),
    # `found.save()` (three candidates)
    assert built.unresolved_calls == 3
    cart = node(built, f"class:{CART}:Cart")
    assert (cart.qualified_name, cart.docstring, cart.signature, cart.start_line) == (
        "com.shop.model.Cart",
        "A shopping cart.",
        "public class Cart extends Base",
        9,
    )
    save = node(built, f"method:{BASE}:Base.save")
    assert (save.docstring, save.signature) == ("Validates, then stores.", "public void save()")
    assert node(built, f"class:{CART}:Cart.Line").qualified_name == "com.shop.model.Cart.Line"
    contains = edge_tuples(built, ("CONTAINS",))
    assert ("module:com.shop.model", "CONTAINS", f"file:{CART}", "EXTRACTED") in contains
