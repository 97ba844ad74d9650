"""C#: namespaces (block and file-scoped), usings, partial classes, implicit this, base calls."""

from __future__ import annotations

from tests.unit.ingest.languages.graphs import definition_ids, edge_tuples, node

SAVEABLE, BASE, CART, CHECK, MONEY = (
    "Models/ISaveable.cs",
    "Models/Base.cs",
    "Models/Cart.cs",
    "Models/Cart.Check.cs",
    "Util/Money.cs",
)

NODE_IDS = {
    "module:Shop.Models",
    "module:Shop.Util",
    f"interface:{SAVEABLE}:ISaveable",
    f"method:{SAVEABLE}:ISaveable.Save",
    f"class:{BASE}:Base",
    f"method:{BASE}:Base.Save",
    f"method:{BASE}:Base.Validate",
    f"class:{CART}:Cart",
    f"method:{CART}:Cart.Cart",
    f"method:{CART}:Cart.Add",
    f"class:{CHECK}:Cart",  # the other half of `partial class Cart`
    f"method:{CHECK}:Cart.Check",
    f"class:{MONEY}:Money",
    f"method:{MONEY}:Money.Money",
    f"method:{MONEY}:Money.Render",
    f"method:{MONEY}:Money.Format",
    f"method:{MONEY}:Money.Store",
}

EDGES = {
    (f"file:{CART}", "IMPORTS", "module:Shop.Util", "EXTRACTED"),
    (f"file:{MONEY}", "IMPORTS", "module:Shop.Models", "EXTRACTED"),  # a using inside a namespace
    (f"class:{BASE}:Base", "IMPLEMENTS", f"interface:{SAVEABLE}:ISaveable", "INFERRED"),
    (f"class:{CART}:Cart", "INHERITS", f"class:{BASE}:Base", "INFERRED"),
    (f"method:{BASE}:Base.Save", "CALLS", f"method:{BASE}:Base.Validate", "EXTRACTED"),
    # `: base()`
    (f"method:{CART}:Cart.Cart", "CALLS", f"class:{BASE}:Base", "INFERRED"),
    (f"method:{CART}:Cart.Add", "CALLS", f"class:{MONEY}:Money", "INFERRED"),
    # the field `private Money total;`
    (f"method:{CART}:Cart.Add", "CALLS", f"method:{MONEY}:Money.Render", "INFERRED"),
    # bare `Save()` and `base.Save()`
    (f"method:{CART}:Cart.Add", "CALLS", f"method:{BASE}:Base.Save", "INFERRED"),
    # `this.Check()`, declared in the other part of the partial class
    (f"method:{CART}:Cart.Add", "CALLS", f"method:{CHECK}:Cart.Check", "INFERRED"),
    (f"method:{CART}:Cart.Add", "CALLS", f"method:{MONEY}:Money.Format", "INFERRED"),
    (f"method:{MONEY}:Money.Render", "CALLS", f"method:{MONEY}:Money.Format", "EXTRACTED"),
    (f"method:{MONEY}:Money.Store", "CALLS", f"method:{SAVEABLE}:ISaveable.Save", "INFERRED"),
    # `var found = anything; found.Save()`: two methods named Save
    (f"method:{MONEY}:Money.Store", "CALLS", f"method:{BASE}:Base.Save", "AMBIGUOUS"),
}


def test_csharp_namespaces_usings_and_partial_classes(build_fixture):
    built = build_fixture("csharp")
    assert definition_ids(built) == NODE_IDS
    assert edge_tuples(built) == EDGES
    assert built.unresolved_calls == 1  # cents.ToString()
    cart = node(built, f"class:{CART}:Cart")
    assert (cart.qualified_name, cart.docstring, cart.signature) == (
        "Shop.Models.Cart",
        "A shopping cart.",
        "public partial class Cart : Base",
    )
    assert node(built, f"interface:{SAVEABLE}:ISaveable").docstring == "Anything that can be saved."
    assert node(built, f"method:{BASE}:Base.Validate").signature == "protected bool Validate()"
