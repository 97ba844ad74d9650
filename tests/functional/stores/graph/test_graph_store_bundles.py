"""file_bundle (context's single read) equals its definition, GraphStore's composition, on both
backends: pages of definitions, the caps on modules and links, sections, stubs, versions. So does
file_rows (what context reads), as bundles.file_rows_of the composition."""

from __future__ import annotations

import pytest
from tests.functional.stores.graph.graph_samples import edge, node

from rhumbline.stores.graph.bundles import file_rows_of
from rhumbline.stores.graph.model import FileQuery, GraphBatch, Node
from rhumbline.stores.graph.protocol import GraphStore

FILE = Node(id="file:pkg/a.py", kind="File", name="a.py", qualified_name="pkg/a.py", file="pkg/a.py", end_line=90)
MODULE = node("Module", "pkg.a", "pkg/a.py", start_line=1)
DEFS = [node("Function", f"pkg.a.f{i}", "pkg/a.py", start_line=10 + i) for i in range(6)]
DOC = Node(id="file:docs/a.md", kind="File", name="a.md", qualified_name="docs/a.md", file="docs/a.md")
SECTIONS = [node("Document", f"docs.a.s{i}", "docs/a.md", start_line=1 + i) for i in range(3)]
IMPORTERS = [node("Module", f"pkg.user{i}", f"pkg/user{i}.py", start_line=1) for i in range(4)]
EDGES = [
    *(edge(m.id, MODULE.id, "IMPORTS") for m in IMPORTERS),
    edge(IMPORTERS[0].id, DEFS[2].id, "IMPORTS"),
    edge(MODULE.id, IMPORTERS[1].id, "IMPORTS"),
    edge(MODULE.id, "module:ext:os", "IMPORTS"),  # a stub target
    edge(FILE.id, MODULE.id, "CONTAINS"),  # not a relation the bundle reads
    *(edge(s.id, DEFS[i].id, "DOCUMENTS") for i, s in enumerate(SECTIONS)),
    edge(SECTIONS[0].id, MODULE.id, "DOCUMENTS"),
    edge(DEFS[0].id, DEFS[1].id, "CALLS"),
]


def _arguments(caps: dict[str, int]) -> dict:
    return {
        "definition_kinds": ("Function", "Document"), "limit": caps.get("limit", 50), "offset": caps.get("offset", 0),
        "module_limit": caps.get("module_limit", 10), "section_kinds": ("Document",),
        "relations": ("DOCUMENTS", "IMPORTS"), "link_limit": caps.get("link_limit", 20),
    }  # fmt: skip


def _query(caps: dict[str, int]) -> FileQuery:
    return FileQuery(**_arguments(caps))


def _bundle(store: GraphStore, project: str, file_id: str, **caps: int) -> tuple[object, object]:
    query = _query(caps)
    return store.file_bundle(project, file_id, query), GraphStore.file_bundle(store, project, file_id, query)


@pytest.mark.parametrize(
    "caps",
    [{}, {"limit": 3}, {"limit": 2, "offset": 2}, {"offset": 5}, {"offset": 9}, {"module_limit": 1}, {"link_limit": 1},
     {"limit": 1, "offset": 1, "link_limit": 2}],  # fmt: skip
)
def test_it_equals_its_composed_definition(graph_store: GraphStore, project: str, caps: dict[str, int]) -> None:
    graph_store.apply(project, GraphBatch(nodes=[FILE, MODULE, *DEFS, DOC, *SECTIONS, *IMPORTERS], edges=EDGES, version=3))
    for file_id in (FILE.id, DOC.id):
        single, composed = _bundle(graph_store, project, file_id, **caps)
        assert single is not None
        assert single == composed
        as_rows = graph_store.file_rows(project, file_id, _query(caps))
        assert as_rows is not None and as_rows == file_rows_of(composed)


def test_what_it_reads_and_what_is_no_file(graph_store: GraphStore, project: str) -> None:
    graph_store.apply(project, GraphBatch(nodes=[FILE, MODULE, *DEFS, DOC, *SECTIONS, *IMPORTERS], edges=EDGES))
    found, _ = _bundle(graph_store, project, FILE.id)
    assert found is not None
    assert (found.file, found.modules, found.definitions, found.definitions_total) == (FILE, [MODULE], DEFS, 6)
    assert found.version is None  # an unstamped graph
    assert graph_store.nodes_in_file(project, "pkg/a.py", kinds=["Function"], limit=2, offset=3) == (DEFS[3:5], 6)
    paged, _ = _bundle(graph_store, project, FILE.id, limit=2, offset=3)
    assert paged is not None and (paged.modules, paged.definitions) == ([MODULE], DEFS[3:5])
    assert found.inward["IMPORTS"].total == 5 and found.inward["DOCUMENTS"].total == 4
    assert [(e.node_id, e.edge.other_id, e.other) for e in found.outward["IMPORTS"].edges] == [
        (MODULE.id, "module:ext:os", None), (MODULE.id, IMPORTERS[1].id, IMPORTERS[1]),
    ]  # fmt: skip
    assert "CONTAINS" not in found.outward and "CALLS" not in found.outward
    for missing in (MODULE.id, "file:pkg/none.py"):  # not a File node; no node at all
        assert _bundle(graph_store, project, missing) == (None, None)
        assert graph_store.file_rows(project, missing, _query({})) is None
    rows = graph_store.file_rows(project, FILE.id, _query({}))
    assert rows is not None and rows.outward["IMPORTS"].rows == [  # a stub: named by its id, no file nor line
        (MODULE.id, "IMPORTS", "EXTRACTED", 1.0, f"{MODULE.id} imports module:ext:os", None, None,
         "module:ext:os", "Unknown", "module:ext:os", "module:ext:os", None, None),
        (MODULE.id, "IMPORTS", "EXTRACTED", 1.0, f"{MODULE.id} imports {IMPORTERS[1].id}", None, None,
         IMPORTERS[1].id, "Module", IMPORTERS[1].name, IMPORTERS[1].qualified_name, IMPORTERS[1].file, 1),
    ]  # fmt: skip
    for read in (graph_store.file_bundle, graph_store.file_rows):
        with pytest.raises(ValueError):
            read(project, FILE.id, FileQuery(definition_kinds=("Module",), limit=5, module_limit=5, section_kinds=(),
                                             relations=("IMPORTS",), link_limit=5))  # fmt: skip
        with pytest.raises(ValueError):
            read(project, FILE.id, FileQuery(**{**_arguments({}), "link_limit": 0}))
