"""TypeScript and TSX: interfaces, abstract classes, implements, typed receivers, namespaces."""

from __future__ import annotations

from tests.unit.ingest.languages.graphs import definition_ids, edge_tuples, node

SHAPES, MATH, CIRCLE, VIEW = "src/shapes.ts", "src/math.ts", "src/circle.ts", "src/view.tsx"

NODE_IDS = {
    f"interface:{SHAPES}:Shape",
    f"method:{SHAPES}:Shape.area",
    f"interface:{SHAPES}:Named",
    f"class:{SHAPES}:Base",
    f"method:{SHAPES}:Base.area",
    f"method:{SHAPES}:Base.describe",
    f"function:{MATH}:square",
    f"function:{MATH}:Geometry.pi",  # inside `namespace Geometry`
    f"enum:{MATH}:Unit",
    f"class:{CIRCLE}:Circle",
    f"method:{CIRCLE}:Circle.constructor",
    f"method:{CIRCLE}:Circle.area",
    f"function:{VIEW}:total",
    f"function:{VIEW}:Render",
    f"function:{VIEW}:guess",
}

EDGES = {
    (f"file:{CIRCLE}", "IMPORTS", f"file:{SHAPES}", "EXTRACTED"),
    (f"file:{CIRCLE}", "IMPORTS", f"file:{MATH}", "EXTRACTED"),
    (f"file:{VIEW}", "IMPORTS", f"file:{CIRCLE}", "EXTRACTED"),
    (f"file:{VIEW}", "IMPORTS", f"file:{SHAPES}", "EXTRACTED"),  # `import type`
    (f"class:{SHAPES}:Base", "IMPLEMENTS", f"interface:{SHAPES}:Shape", "EXTRACTED"),
    (f"interface:{SHAPES}:Named", "INHERITS", f"interface:{SHAPES}:Shape", "EXTRACTED"),
    (f"class:{CIRCLE}:Circle", "INHERITS", f"class:{SHAPES}:Base", "INFERRED"),
    (f"method:{SHAPES}:Base.describe", "CALLS", f"method:{SHAPES}:Base.area", "EXTRACTED"),
    # `super()` in a constructor: the base class
    (f"method:{CIRCLE}:Circle.constructor", "CALLS", f"class:{SHAPES}:Base", "INFERRED"),
    (f"method:{CIRCLE}:Circle.area", "CALLS", f"function:{MATH}:square", "INFERRED"),
    # `shape: Shape` then `shape.area()`: the interface's method
    (f"function:{VIEW}:total", "CALLS", f"method:{SHAPES}:Shape.area", "INFERRED"),
    (f"function:{VIEW}:Render", "CALLS", f"class:{CIRCLE}:Circle", "INFERRED"),
    # `const circle: Circle`, `circle.describe()`: inherited from Base
    (f"function:{VIEW}:Render", "CALLS", f"method:{SHAPES}:Base.describe", "INFERRED"),
    # inside JSX: `onClick={() => total(circle)}`
    (f"function:{VIEW}:Render", "CALLS", f"function:{VIEW}:total", "EXTRACTED"),
    # `thing.area()` on an untyped parameter: three methods named area, more than the name
    # match offers: no edge
}


def test_typescript_and_tsx(build_fixture):
    built = build_fixture("typescript")
    assert definition_ids(built) == NODE_IDS
    assert edge_tuples(built) == EDGES
    assert built.unresolved_calls == 1  # `thing.area()`: three candidates
    languages = {n.file: n.language for n in built.nodes if n.kind == "File"}
    assert languages[VIEW] == "tsx" and languages[SHAPES] == "typescript"
    shape = node(built, f"interface:{SHAPES}:Shape")
    assert (shape.kind, shape.docstring, shape.signature) == (
        "Interface",
        "Anything with an area.",
        "export interface Shape",
    )
    area = node(built, f"method:{CIRCLE}:Circle.area")
    assert (area.signature, area.docstring, area.start_line) == (
        "area(): number",
        "The area, in square units.",
        10,
    )
    assert node(built, f"enum:{MATH}:Unit").kind == "Enum"
    typed = next(
        e for e in built.edges
        if e.source == f"function:{VIEW}:total" and e.relation == "CALLS"
    )
    assert "receiver `shape` declared as `Shape`" in typed.explanation
