"""Phase 2 for every tree-sitter language but Python: group parsed files by family (the language
table's resolvers, rhumbline/ingest/languages/__init__.py), resolve each.

A family's module is imported only when the tree has files of its languages, so a Python-only
ingest pays nothing here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rhumbline.ingest.facts import SourceFile
from rhumbline.ingest.failures import Failures
from rhumbline.ingest.graph.edges import EdgeSet
from rhumbline.ingest.languages import families, load
from rhumbline.stores.graph.model import Node


@dataclass
class PolyglotGraph:
    nodes: list[Node] = field(default_factory=list)
    unresolved_calls: int = 0


def build_polyglot_graph(
    sources: Sequence[SourceFile], root: Path, edges: EdgeSet, failures: Failures | None = None
) -> PolyglotGraph:
    """Nodes of the non-Python parsed files in `sources` (under `root`); edges go into `edges`."""
    return build_families(files_by_family(sources), root, edges, failures)


def files_by_family(sources: Sequence[SourceFile]) -> dict[str, list[SourceFile]]:
    """The parsed files of `sources` each polyglot family resolves (families() order, each
    family's files by language name, then as in `sources`); families without files left out."""
    by_language: dict[str, list[SourceFile]] = {}
    for source in sources:
        if source.code is not None and source.language not in (None, "python"):
            by_language.setdefault(source.language, []).append(source)
    found = {}
    for target, languages in families().items():
        members = [s for language in sorted(languages) for s in by_language.get(language, ())]
        if members:
            found[target] = members
    return found


def build_families(
    by_family: dict[str, list[SourceFile]], root: Path, edges: EdgeSet, failures: Failures | None = None
) -> PolyglotGraph:
    """Each family's nodes (files_by_family's `by_family`, under `root`); edges go into `edges`.
    Each family's files are taken out of `by_family` as it is built, so their facts can go once
    it is: the nodes built so far are then held instead of every file's facts.
    A file whose resolution raises is recorded in `failures` (Family._per_file); a step that is
    not per file (a family's tables) raising costs that family's nodes, recorded once for all
    its files, and the other families are built."""
    failures = Failures() if failures is None else failures
    graph = PolyglotGraph()
    seen_ids: set[str] = set()
    while by_family:
        target = next(iter(by_family))
        members = by_family.pop(target)
        family = load(target)(members, root, edges, failures)
        del members
        try:
            family.build()
        except Exception as error:  # noqa: BLE001 — reported; the other families are built
            failures.add(f"({len(family.files)} files)", family.stage, error)
            del family
            continue
        for node in family.nodes:
            if node.id not in seen_ids:  # a package Module shared by two families
                seen_ids.add(node.id)
                graph.nodes.append(node)
        graph.unresolved_calls += family.unresolved
        del family
    return graph
