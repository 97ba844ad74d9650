"""context's items (lookup/file_views.py), built from bundles.FileRows' tuples: each says what the
shared views say about the same node or edge, less the fields the bundle says once."""

from __future__ import annotations

from rhumbline.lookup.file_views import doc_links, file_definition, importers, imports
from rhumbline.lookup.views import definition, links
from rhumbline.stores.graph.bundles import astuple_node, link_row_of
from rhumbline.stores.graph.model import EdgeView, LinkedEdge, Node, RelationEdges, RelationRows

FILE = "pkg/a.py"
TOTAL = Node("function:pkg/a.py:total", "Function", "total", "pkg.a.total", FILE, 3, 9, "python", "def total(items)",
             "  Sum of the prices.  ")  # fmt: skip
LONG = Node("function:pkg/a.py:f", "Function", "f", "pkg.a.f", FILE, 1, 2, "python", "def f(" + "x, " * 200 + ")",
            "word " * 400, "h")  # fmt: skip
BARE = Node(id="variable:pkg/a.py:X", kind="Variable", name="X", qualified_name="pkg.a.X", file=FILE)
MODULE = Node("module:pkg.b", "Module", "b", "pkg.b", "pkg/b.py", 1, 40, "python")


def test_a_definition_is_the_shared_one_without_the_bundles_file_and_language() -> None:
    for node in (TOTAL, LONG, BARE):
        for chars in (200, 1_200):
            item = file_definition(astuple_node(node), docstring_chars=chars).model_dump()
            shared = definition(node, docstring_chars=chars).model_dump()
            assert item == {k: v for k, v in shared.items() if k not in ("file", "language")}
    assert file_definition(astuple_node(TOTAL), docstring_chars=5).docstring == "Sum…"


def edge(relation: str, direction: str, other: Node | None, *, file: str = FILE, line: int = 4,
         confidence: str = "EXTRACTED") -> EdgeView:  # fmt: skip
    return EdgeView(
        relation=relation, direction=direction, confidence=confidence, confidence_score=0.5, explanation="e " * 400,
        file=file, line=line, other_id=other.id if other else "stub:x", other_kind=other.kind if other else "Unknown",
        other_name=other.name if other else "stub:x",
    )  # fmt: skip


def shared_and_compact(about: str, view: EdgeView, other: Node | None, build) -> tuple[dict, dict]:
    linked = LinkedEdge(node_id=about, edge=view, other=other)
    shared = links(RelationEdges(edges=[linked], total=3)).model_dump()
    compact = build(RelationRows([link_row_of(linked)], 3)).model_dump()
    assert compact["total"] == shared["total"] == 3
    return shared["items"][0], compact["items"][0]


def without(row: dict, *keys: str) -> dict:
    return {k: v for k, v in row.items() if k not in keys}


def test_links_keep_what_varies_and_drop_what_the_list_says() -> None:
    file_id = f"file:{FILE}"
    shared, compact = shared_and_compact(file_id, edge("IMPORTS", "out", MODULE), MODULE, imports)
    assert compact == without(shared, "about", "relation", "direction", "evidence_file")
    assert (compact["evidence_line"], len(compact["explanation"])) == (4, 300)  # clipped as everywhere
    importer = Node("file:pkg/c.py", "File", "c.py", "pkg/c.py", "pkg/c.py", 1, 9, "python")
    shared, compact = shared_and_compact(TOTAL.id, edge("IMPORTS", "in", importer, file="pkg/c.py"), importer,
                                         importers)  # fmt: skip
    assert compact == without(shared, "relation", "direction", "evidence_file")
    assert compact["node"]["file"] == shared["evidence_file"] == "pkg/c.py"
    for direction, other in (("in", MODULE), ("out", None)):
        view = edge("DOCUMENTS", direction, other, file="docs/x.md", confidence="INFERRED")
        shared, compact = shared_and_compact(TOTAL.id, view, other, doc_links)
        assert compact == without(shared, "relation", "direction")
    for build in (imports, importers, doc_links):
        assert build(None).model_dump() == {"items": [], "total": 0}
