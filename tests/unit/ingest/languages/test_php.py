"""PHP: namespaces, use / use function, require, traits, $this / self:: / parent::, typed props."""

from __future__ import annotations

from tests.unit.ingest.languages.graphs import definition_ids, edge_tuples, node

SAVEABLE, BASE, CART, HELPERS = (
    "src/Models/Saveable.php",
    "src/Models/Base.php",
    "src/Models/Cart.php",
    "src/Util/helpers.php",
)

NODE_IDS = {
    "module:App\\Models",
    "module:App\\Util",
    f"interface:{SAVEABLE}:Saveable",
    f"method:{SAVEABLE}:Saveable::save",
    f"trait:{BASE}:Timestamps",
    f"method:{BASE}:Timestamps::touch",
    f"class:{BASE}:Base",
    f"method:{BASE}:Base::save",
    f"method:{BASE}:Base::validate",
    f"class:{CART}:Cart",
    f"method:{CART}:Cart::__construct",
    f"method:{CART}:Cart::add",
    f"method:{CART}:Cart::check",
    f"function:{HELPERS}:format_price",
    f"class:{HELPERS}:Money",
    f"method:{HELPERS}:Money::__construct",
    f"method:{HELPERS}:Money::render",
    f"method:{HELPERS}:Money::format",
    f"method:{HELPERS}:Money::store",
}

EDGES = {
    # `use App\Util\Money;`, `use function …`, `require_once __DIR__ . '/../Util/helpers.php'`
    (f"file:{CART}", "IMPORTS", f"file:{HELPERS}", "EXTRACTED"),
    (f"file:{HELPERS}", "IMPORTS", f"file:{SAVEABLE}", "EXTRACTED"),
    (f"class:{BASE}:Base", "IMPLEMENTS", f"interface:{SAVEABLE}:Saveable", "INFERRED"),
    (f"class:{BASE}:Base", "IMPLEMENTS", f"trait:{BASE}:Timestamps", "EXTRACTED"),  # use Timestamps
    (f"class:{CART}:Cart", "INHERITS", f"class:{BASE}:Base", "INFERRED"),
    (f"method:{BASE}:Base::save", "CALLS", f"method:{BASE}:Base::validate", "EXTRACTED"),
    # a trait's method through $this
    (f"method:{BASE}:Base::save", "CALLS", f"method:{BASE}:Timestamps::touch", "INFERRED"),
    (f"method:{CART}:Cart::add", "CALLS", f"class:{HELPERS}:Money", "INFERRED"),
    # `$this->total->render()` with `private Money $total`
    (f"method:{CART}:Cart::add", "CALLS", f"method:{HELPERS}:Money::render", "INFERRED"),
    (f"method:{CART}:Cart::add", "CALLS", f"method:{BASE}:Base::save", "INFERRED"),  # parent::save()
    (f"method:{CART}:Cart::add", "CALLS", f"method:{CART}:Cart::check", "EXTRACTED"),  # self::check()
    (f"method:{CART}:Cart::add", "CALLS", f"function:{HELPERS}:format_price", "INFERRED"),
    (f"function:{HELPERS}:format_price", "CALLS", f"method:{HELPERS}:Money::format", "EXTRACTED"),
    (f"method:{HELPERS}:Money::render", "CALLS", f"method:{HELPERS}:Money::format", "EXTRACTED"),
    (f"method:{HELPERS}:Money::store", "CALLS", f"method:{SAVEABLE}:Saveable::save", "INFERRED"),
    # `new \App\Models\Cart()` and the typed local it makes
    (f"method:{HELPERS}:Money::store", "CALLS", f"class:{CART}:Cart", "INFERRED"),
    (f"method:{HELPERS}:Money::store", "CALLS", f"method:{CART}:Cart::add", "INFERRED"),
    # `$anything->save()`: two methods named save
    (f"method:{HELPERS}:Money::store", "CALLS", f"method:{BASE}:Base::save", "AMBIGUOUS"),
}


def test_php_namespaces_uses_traits_and_receivers(build_fixture):
    built = build_fixture("php")
    assert definition_ids(built) == NODE_IDS
    assert edge_tuples(built) == EDGES
    assert built.unresolved_calls == 1  # parent::__construct(): Base has none
    cart = node(built, f"class:{CART}:Cart")
    assert (cart.qualified_name, cart.docstring, cart.signature) == (
        "App\\Models\\Cart",
        "A shopping cart.",
        "class Cart extends Base",
    )
    price = node(built, f"function:{HELPERS}:format_price")
    assert (price.qualified_name, price.docstring) == ("App\\Util\\format_price", "Cents as a price.")
