"""Java call targets as the compiler sees them, one rule per caller of
tests/fixtures/ingest/java_calls, through a real ingest into the SQLite and the Neo4j graph stores
and read back as the tools read it (`edges_of`): a later overload's parameters, enhanced-for
variables, `java.lang` receivers (`String`, `Integer`) that share a method name with the project,
`new Self()` in a field initialiser, `this(…)` chaining, `new Nested()` inside the outer class,
implicit outer-instance calls (from an anonymous class too), `Outer.this.m()`, static-field and
enum-constant receivers, chains of calls (builders), and indexed and container-element receivers
(`items[0].m()`, `list.get(0).m()`, `map.get(k).m()`, `it.next().m()`, `opt.orElse(x).m()`)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine

from rhumbline.stores.graph.protocol import GraphStore
from tests.functional.ingest.call_rules import fixture_problems

FIXTURE = Path(__file__).parents[2] / "fixtures" / "ingest" / "java_calls"
SHOP = "src/com/shop"
STYLE, LEVEL, WRITER, TREE = (f"{SHOP}/{name}.java" for name in ("Style", "util/Level", "Writer", "Tree"))
ITEM, SHELF = f"{SHOP}/Item.java", f"{SHOP}/Shelf.java"
OPEN, SHUT = f"method:{ITEM}:Item.open", f"method:{ITEM}:Item.shut"

# caller → {target: (confidence, what its explanation says)}
RULES: dict[str, dict[str, tuple[str, str]]] = {
    # `static final Style PRETTY = new Style("  ")`: the class body's constructor is no name
    f"class:{STYLE}:Style": {f"class:{STYLE}:Style": ("EXTRACTED", "in the same file")},
    # `this("")` in the second constructor: the enclosing class
    f"method:{STYLE}:Style.Style": {f"class:{STYLE}:Style": ("EXTRACTED", "in the same file")},
    # `indent.length()` on a `String` field: java.lang's, not a project method
    f"method:{STYLE}:Style.matches": {},
    # `next.flush()` where `next` is a parameter of the second overload of `write`
    f"method:{WRITER}:Writer.write": {f"method:{WRITER}:Writer.flush": ("EXTRACTED", "in the same file")},
    # `for (Writer each : writers) each.flush()`
    f"method:{WRITER}:Writer.copy": {f"method:{WRITER}:Writer.flush": ("EXTRACTED", "in the same file")},
    # `entry.getValue()` on a `Map.Entry`: the library's, not Style.getValue
    f"method:{WRITER}:Writer.names": {},
    # `new Node()` names the nested class inside the outer one
    f"method:{TREE}:Tree.root": {f"class:{TREE}:Tree.Node": ("EXTRACTED", "in the same file")},
    # `text.matches(…)` on a String and `Integer.parseInt(…)`: java.lang's; an enum constant's
    # and a static field's methods are their types'
    f"method:{TREE}:Tree.style": {
        f"method:{LEVEL}:Level.raise": ("INFERRED", "through enum constant `com.shop.util.Level.HIGH`"),
        f"method:{STYLE}:Style.withIndent": ("INFERRED", "through `com.shop.Style.PRETTY` declared as `Style`"),
    },
    # a bare call in an inner class reaches the outer instance's method; `Tree.this.clear()`
    f"method:{TREE}:Tree.Node.drop": {
        f"method:{TREE}:Tree.removeInternal": ("EXTRACTED", "in the same file"),
        f"method:{TREE}:Tree.clear": ("EXTRACTED", "in the same file"),
    },
    # chains: each method on the class the previous one declares it returns
    f"method:{TREE}:Tree.built": {
        f"method:{STYLE}:Style.builder": ("INFERRED", "in the same package `com.shop`"),
        f"method:{STYLE}:Style.Builder.indent": ("INFERRED", "through the result of `Style.builder()`"),
        f"method:{STYLE}:Style.Builder.build": ("INFERRED", "through the result of `Style.builder().indent()`"),
    },
    f"method:{TREE}:Tree.prune": {
        f"method:{TREE}:Tree.root": ("EXTRACTED", "in the same file"),
        f"method:{TREE}:Tree.Node.drop": ("INFERRED", "through the result of `root()`"),
    },
    # in an anonymous class: the outer class's method, unless the anonymous class declares one
    f"method:{TREE}:Tree.task.run": {
        f"method:{TREE}:Tree.removeInternal": ("EXTRACTED", "in the same file"),
        f"method:{TREE}:Tree.task.clear": ("EXTRACTED", "in the same file"),
    },
    # an element of an array parameter, field (bare and `this.`) or local: the element type's
    f"method:{SHELF}:Shelf.given": {OPEN: ("INFERRED", "through receiver `chosen[]` declared as `Item`")},
    f"method:{SHELF}:Shelf.slotted": {
        OPEN: ("INFERRED", "through receiver `slots[]` declared as `Item`"),
        SHUT: ("INFERRED", "through field `slots[]` declared as `Item`"),
    },
    f"method:{SHELF}:Shelf.local": {SHUT: ("INFERRED", "through receiver `made[]` declared as `Item`")},
    # what a `java.util` container's accessor returns: its (last) type argument
    f"method:{SHELF}:Shelf.listed": {
        OPEN: ("INFERRED", "through the result of `list.get()`"),
        SHUT: ("INFERRED", "through the result of `this.items.get()`"),
    },
    f"method:{SHELF}:Shelf.keyed": {OPEN: ("INFERRED", "through the result of `map.get()`")},
    f"method:{SHELF}:Shelf.iterated": {OPEN: ("INFERRED", "through the result of `it.next()`")},
    f"method:{SHELF}:Shelf.optional": {
        OPEN: ("INFERRED", "through the result of `maybe.orElse()`"),
        SHUT: ("INFERRED", "through the result of `maybe.get()`"),
    },
    f"method:{SHELF}:Shelf.looped": {OPEN: ("INFERRED", "through receiver `each` declared as `Item`")},
}


def test_every_java_rule_gives_its_edges(tmp_path: Path, store: GraphStore, engine: Engine, unique_project: str) -> None:
    problems = fixture_problems(FIXTURE, tmp_path, store, engine, unique_project, RULES)
    assert not problems, "\n".join(problems)
