"""What `context` relies on to say a fact once (lookup/file_views.py), on every fixture tree, each
language's and the Python project with its Markdown: an IMPORTS edge goes out of a File and its
evidence is in that file (so `imports` carries only the statement's line, and `imported_by`'s
evidence file is its importer), and every node in a file has that file's language (so a
definition's `language` is the bundle's `file.language`)."""

from __future__ import annotations

import pytest

from tests.unit.ingest.languages.conftest import FIXTURES

TREES = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())


@pytest.mark.parametrize("name", TREES)
def test_imports_leave_a_file_with_their_evidence_in_it_and_nodes_share_their_files_language(
    build_fixture, name: str
) -> None:
    graph = build_fixture(name)
    nodes = {n.id: n for n in graph.nodes}
    files = {n.file: n for n in graph.nodes if n.kind == "File"}
    imports = [e for e in graph.edges if e.relation == "IMPORTS"]
    for edge in imports:
        source = nodes[edge.source]
        assert (source.kind, edge.file) == ("File", source.file), edge
    inside = [n for n in graph.nodes if n.kind not in ("File", "Module", "Directory", "Repository") and n.file]
    assert inside, f"{name}: no definitions"
    for node in inside:
        assert node.language == files[node.file].language, node
    assert imports, f"{name}: no IMPORTS edge to check"
