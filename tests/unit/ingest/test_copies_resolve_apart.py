"""One project copied into several places of a tree (vendored, or services made from one template)
is resolved as each copy's build sees it: a reference reaches the copy nearest it, so every copy's
graph is exactly the graph of that project ingested alone, and no edge joins two copies.

The tree-sitter languages whose names are qualified by package, crate or namespace (Java, Kotlin,
Go, Rust, C#, PHP, C and C++). Not Ruby, where a class defined in several files is one class
reopened; nor JavaScript and TypeScript, whose names are qualified by their file's path: a copy's
definitions are other definitions, and a method matched by name alone is counted in every copy."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rhumbline.ingest.build import build_graph
from rhumbline.stores.graph.model import Edge, Node

FIXTURES = Path(__file__).parents[2] / "fixtures" / "ingest"
PROJECTS = ["java", "java_calls", "kotlin", "go", "go_receivers", "rust", "csharp", "php", "c"]
COPIES = ("services/billing/shared", "services/search/shared", "tools")


def _tree(root: Path, project: str, places: tuple[str, ...]) -> Path:
    for place in places:
        shutil.copytree(FIXTURES / project, root / place / project)
    return root


def _located(node: Node) -> bool:
    """A node of one file: packages, namespaces and modules are shared by every copy."""
    return node.file is not None


def _in_copy(text: str, place: str) -> str:
    return text.replace(f"{place}/", "")


def _edges_of(place: str, edges: list[Edge]) -> set[tuple[str, str, str, str]]:
    """The edges a copy's files are the evidence of, its paths written as the project's own; not
    the one from the directory holding the copy, which is the tree's, not the project's."""
    return {
        (_in_copy(e.source, place), e.relation, _in_copy(e.target, place), e.confidence)
        for e in edges
        if (e.file or "").startswith(f"{place}/") and e.source != f"directory:{place}"
    }


@pytest.mark.parametrize("project", PROJECTS)
def test_every_copy_resolves_as_the_project_alone(tmp_path: Path, project: str) -> None:
    alone = build_graph(_tree(tmp_path / "alone", project, ("tools",)), "copies", history=False)
    copied = build_graph(_tree(tmp_path / "copied", project, COPIES), "copies", history=False)

    files = {node.id: node.file for node in copied.nodes}
    for edge in copied.edges:
        ends = [files.get(edge.source), files.get(edge.target)]
        places = {next(p for p in COPIES if f.startswith(f"{p}/")) for f in ends if f is not None}
        assert len(places) <= 1, f"{edge.source} -{edge.relation}-> {edge.target} joins two copies"

    expected = _edges_of("tools", alone.edges)
    assert expected, f"the {project} fixture resolves to no edge"
    for place in COPIES:
        assert _edges_of(place, copied.edges) == expected, place
    assert sum(map(_located, copied.nodes)) == len(COPIES) * sum(map(_located, alone.nodes))
