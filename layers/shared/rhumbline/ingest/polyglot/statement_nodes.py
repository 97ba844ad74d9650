"""Import and Decorator nodes of the tree-sitter languages (design: rhumbline/ingest/statements.py).

An Import RESOLVES_TO what its language's IMPORTS edges point at for that one import (a file, a
package Module: asked of the family's own `add_imports`, so no language rule is written twice) and
to the definition the bound name refers to (`import_symbols`). A Decorator — a TS decorator, a
Java/Kotlin annotation, a C# or PHP attribute, a Rust attribute — RESOLVES_TO the definition its
name resolves to in the scope around the decorated definition; that definition also gets the
direct DECORATES edge Python has.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

from rhumbline.ingest.facts import ImportFact
from rhumbline.ingest.ids import file_id
from rhumbline.ingest.statements import RESOLVES_TO, StatementNodes, import_key
from rhumbline.stores.graph.model import Confidence

if TYPE_CHECKING:
    from rhumbline.ingest.polyglot.resolve import Family
    from rhumbline.ingest.polyglot.symbols import FileIndex, Sym

# C#: `[Logged]` names the class `LoggedAttribute` when there is no class `Logged`.
_NAME_SUFFIXES = {"csharp": ("", "Attribute")}


class _Recorder:
    """Stands in for the EdgeSet while a family draws one import's IMPORTS edges."""

    def __init__(self) -> None:
        self.targets: dict[str, tuple[Confidence, float]] = {}

    def extracted(self, source: str, relation: str, target: str, *_evidence: object) -> None:
        self.add(source, relation, target, "EXTRACTED", 1.0)

    def add(self, source: str, relation: str, target: str, confidence: Confidence, score: float,
            *_evidence: object) -> None:  # fmt: skip
        if relation == "IMPORTS":
            self.targets.setdefault(target, (confidence, score))


def add_statement_nodes(family: Family) -> None:
    for f in family.files.values():
        placed = StatementNodes(f.path, f.language, family.edges, family.nodes)
        _import_nodes(family, f, placed)
        _decorator_nodes(family, f, placed)


def _loaded(family: Family, f: FileIndex, fact: ImportFact) -> dict[str, tuple[Confidence, float]]:
    """The targets of the IMPORTS edges the family draws for `fact` alone."""
    view = copy.copy(f)
    view.code = f.code._replace(imports=(fact,))
    recorder = _Recorder()
    edges, family.edges = family.edges, recorder  # type: ignore[assignment]
    try:
        family.add_imports(view)
    finally:
        family.edges = edges
    return recorder.targets


def _import_nodes(family: Family, f: FileIndex, placed: StatementNodes) -> None:
    path = f.path
    per_statement: dict[tuple[int, str], int] = {}
    for fact in f.code.imports:
        per_statement[(fact.line, fact.statement)] = per_statement.get((fact.line, fact.statement), 0) + 1
    for fact in f.code.imports:
        bound = family.binding_name(f, fact)
        key = import_key(fact, bound)
        name = fact.statement
        if per_statement[(fact.line, fact.statement)] > 1:  # `import { A, B } from "./x"`
            name = f"{fact.statement} ({key.rsplit('.', 1)[-1] if fact.scope else key})"
        scope = f.by_qualname.get(fact.scope) if fact.scope else None
        container = family.qualified_name(f, fact.scope) if scope else path
        node = placed.add_import(fact, key, name, container, scope[0] if scope else file_id(path))
        where = f"`{name}` at {path}:{fact.line}"
        for target, (confidence, score) in _loaded(family, f, fact).items():
            loaded = target.split(":", 1)[1]
            explanation = f"{where} loads {'file' if target.startswith('file:') else 'module'} `{loaded}`"
            family.edges.add(node.id, RESOLVES_TO, target, confidence, score, explanation, path, fact.line)
        if bound and bound != "*":
            found = family.classify(family.import_symbols(f, fact), f"{where} binds `{bound}`:")
            for evidence in found:
                explanation = evidence.explanation
                if len(found) == 1:
                    explanation = f"{where} binds `{bound}` to `{family.qualified[evidence.node_id]}`"
                family.edges.add(node.id, RESOLVES_TO, evidence.node_id, evidence.confidence,
                                 evidence.score, explanation, path, fact.line)  # fmt: skip


def _decorator_nodes(family: Family, f: FileIndex, placed: StatementNodes) -> None:
    path = f.path
    seen: set[str] = set()
    for d, decorated in zip(f.code.definitions, f.ids, strict=True):
        if not d.decorators or decorated in seen:
            continue
        seen.add(decorated)
        what = f"{d.kind.lower()} `{d.qualname}`"
        for decorator in d.decorators:
            node = placed.add_decorator(decorator, d.qualname, decorated, family.qualified[decorated], what)
            targets = _decorator_targets(family, f, d.parent, decorator.expression, decorated)
            site = f"`{decorator.text}` at {path}:{decorator.line}"
            for found in family.classify(targets, site):
                evidence = (found.confidence, found.score, found.explanation, path, decorator.line)
                family.edges.add(node.id, RESOLVES_TO, found.node_id, *evidence)
                family.edges.add(found.node_id, "DECORATES", decorated, *evidence)


def _decorator_targets(family: Family, f: FileIndex, scope: str, expression: str, decorated: str) -> list[Sym]:
    for suffix in _NAME_SUFFIXES.get(f.language or "", ("",)):
        found = [s for s in family.resolve(f, scope, expression + suffix) if s.target != decorated]
        if found:
            return found
    return []
