"""Java call targets as the compiler sees them, one rule per caller of
tests/fixtures/ingest/java_calls, through a real ingest into the SQLite and the Neo4j graph stores
and read back as the tools read it (`edges_of`): a later overload's parameters, enhanced-for
variables, `java.lang` receivers (`String`, `Integer`) that share a method name with the project,
`new Self()` in a field initialiser, `this(…)` chaining, `new Nested()` inside the outer class,
implicit outer-instance calls (from an anonymous class too), `Outer.this.m()`, static-field and
enum-constant receivers, and chains of calls (builders)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine

from rhumbline.stores.graph.protocol import GraphStore
from tests.functional.ingest.call_rules import fixture_problems

FIXTURE = Path(__file__).parents[2] / "fixtures" / "ingest" / "java_calls"
SHOP = "src/com/shop"
STYLE, LEVEL, WRITER, TREE = (f"{SHOP}/{name}.java" for name in ("Style", "util/Level", "Writer", "Tree"))

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
}


def test_every_java_rule_gives_its_edges(tmp_path: Path, store: GraphStore, engine: Engine, unique_project: str) -> None:
    problems = fixture_problems(FIXTURE, tmp_path, store, engine, unique_project, RULES)
    assert not problems, "\n".join(problems)
