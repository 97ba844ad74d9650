"""Phase 2 for every tree-sitter language but Python: group parsed files by family, resolve each.

A family's module is imported only when the tree has files of its languages, so a Python-only
ingest pays nothing here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path

from rhumbline.ingest.facts import SourceFile
from rhumbline.ingest.failures import Failures
from rhumbline.ingest.graph.edges import EdgeSet
from rhumbline.stores.graph.model import Node

# family resolver ("module:Class") → the languages it resolves together
FAMILIES: dict[str, frozenset[str]] = {
    "rhumbline.ingest.languages.javascript.resolve:JavaScriptFamily": frozenset(
        {"javascript", "typescript", "tsx"}
    ),
    "rhumbline.ingest.languages.go.resolve:GoFamily": frozenset({"go"}),
    "rhumbline.ingest.languages.java.resolve:JvmFamily": frozenset({"java", "kotlin"}),
    "rhumbline.ingest.languages.rust.resolve:RustFamily": frozenset({"rust"}),
    "rhumbline.ingest.languages.c.resolve:CFamily": frozenset({"c", "cpp"}),
    "rhumbline.ingest.languages.csharp.resolve:CSharpFamily": frozenset({"csharp"}),
    "rhumbline.ingest.languages.ruby.resolve:RubyFamily": frozenset({"ruby"}),
    "rhumbline.ingest.languages.php.resolve:PhpFamily": frozenset({"php"}),
}


@dataclass
class PolyglotGraph:
    nodes: list[Node] = field(default_factory=list)
    unresolved_calls: int = 0


def build_polyglot_graph(
    sources: Sequence[SourceFile], root: Path, edges: EdgeSet, failures: Failures | None = None
) -> PolyglotGraph:
    """Nodes of the non-Python parsed files in `sources` (under `root`); edges go into `edges`.
    A file whose resolution raises is recorded in `failures` (Family._per_file); a step that is
    not per file (a family's tables) raising costs that family's nodes, recorded once for all
    its files, and the other families are built."""
    failures = Failures() if failures is None else failures
    by_language: dict[str, list[SourceFile]] = {}
    for source in sources:
        if source.code is not None and source.language not in (None, "python"):
            by_language.setdefault(source.language, []).append(source)
    graph = PolyglotGraph()
    if not by_language:
        return graph
    seen_ids: set[str] = set()
    for target, languages in FAMILIES.items():
        members = [s for language in sorted(languages) for s in by_language.get(language, ())]
        if not members:
            continue
        module_name, class_name = target.split(":")
        family = getattr(import_module(module_name), class_name)(members, root, edges, failures)
        try:
            family.build()
        except Exception as error:  # noqa: BLE001 — reported; the other families are built
            failures.add(f"({len(members)} files)", family.stage, error)
            continue
        for node in family.nodes:
            if node.id not in seen_ids:  # a package Module shared by two families
                seen_ids.add(node.id)
                graph.nodes.append(node)
        graph.unresolved_calls += family.unresolved
    return graph
