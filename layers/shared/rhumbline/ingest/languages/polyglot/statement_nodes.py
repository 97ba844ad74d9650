"""Import and Decorator nodes of the tree-sitter languages (design: rhumbline/ingest/graph/statements.py).

An Import RESOLVES_TO what its language's IMPORTS edges point at for that one import (a file, a
package Module: asked of the family's own `add_imports`, so no language rule is written twice) and
to the definition the bound name refers to (`import_symbols`). A Decorator — a TS decorator, a
Java/Kotlin annotation, a C# or PHP attribute, a Rust attribute — RESOLVES_TO the definition its
name resolves to in the scope around the decorated definition; that definition also gets the
direct DECORATES edge Python has.
"""

from __future__ import annotations

import copy

from rhumbline.ingest.facts import ImportFact
from rhumbline.ingest.graph.ids import file_id
from rhumbline.ingest.graph.statements import RESOLVES_TO, StatementNodes, import_key
from rhumbline.ingest.languages.polyglot.symbols import FileIndex, Sym
from rhumbline.stores.graph.model import Confidence

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


class StatementResolution:
    """Mixed into `Family`, whose files, edges, nodes and lookups (`binding_name`,
    `import_symbols`, `add_imports`, `qualified_name`, `classify`, `resolve`) it uses."""

    def add_statement_nodes(self, f: FileIndex) -> None:
        """One file's Import and Decorator nodes."""
        placed = StatementNodes(f.path, f.language, self.edges, self.nodes)
        self._import_nodes(f, placed)
        self._decorator_nodes(f, placed)

    def _import_targets(self, f: FileIndex, fact: ImportFact) -> dict[str, tuple[Confidence, float]]:
        """The targets of the IMPORTS edges this family draws for `fact` alone."""
        view = copy.copy(f)
        view.code = f.code._replace(imports=(fact,))
        recorder = _Recorder()
        edges, self.edges = self.edges, recorder
        try:
            self.add_imports(view)
        finally:
            self.edges = edges
        return recorder.targets

    def _import_nodes(self, f: FileIndex, placed: StatementNodes) -> None:
        path = f.path
        per_statement: dict[tuple[int, str], int] = {}
        for fact in f.code.imports:
            per_statement[(fact.line, fact.statement)] = per_statement.get((fact.line, fact.statement), 0) + 1
        for fact in f.code.imports:
            bound = self.binding_name(f, fact)
            key = import_key(fact, bound)
            name = fact.statement
            if per_statement[(fact.line, fact.statement)] > 1:  # `import { A, B } from "./x"`
                name = f"{fact.statement} ({key.rsplit('.', 1)[-1] if fact.scope else key})"
            scope = f.by_qualname.get(fact.scope) if fact.scope else None
            container = self.qualified_name(f, fact.scope) if scope else path
            node = placed.add_import(fact, key, name, container, scope[0] if scope else file_id(path))
            where = f"`{name}` at {path}:{fact.line}"
            for target, (confidence, score) in self._import_targets(f, fact).items():
                loaded = target.split(":", 1)[1]
                explanation = f"{where} loads {'file' if target.startswith('file:') else 'module'} `{loaded}`"
                self.edges.add(node.id, RESOLVES_TO, target, confidence, score, explanation, path, fact.line)
            if bound and bound != "*":
                found = self.classify(self.import_symbols(f, fact), f"{where} binds `{bound}`:")
                for evidence in found:
                    explanation = evidence.explanation
                    if len(found) == 1:
                        explanation = f"{where} binds `{bound}` to `{self.qualified[evidence.node_id]}`"
                    self.edges.add(node.id, RESOLVES_TO, evidence.node_id, evidence.confidence,
                                     evidence.score, explanation, path, fact.line)  # fmt: skip

    def _decorator_nodes(self, f: FileIndex, placed: StatementNodes) -> None:
        path = f.path
        seen: set[str] = set()
        for d, decorated in zip(f.code.definitions, f.ids, strict=True):
            if not d.decorators or decorated in seen:
                continue
            seen.add(decorated)
            what = f"{d.kind.lower()} `{d.qualname}`"
            for decorator in d.decorators:
                node = placed.add_decorator(decorator, d.qualname, decorated, self.qualified[decorated], what)
                targets = self._decorator_targets(f, d.parent, decorator.expression, decorated)
                site = f"`{decorator.text}` at {path}:{decorator.line}"
                for found in self.classify(targets, site):
                    evidence = (found.confidence, found.score, found.explanation, path, decorator.line)
                    self.edges.add(node.id, RESOLVES_TO, found.node_id, *evidence)
                    self.edges.add(found.node_id, "DECORATES", decorated, *evidence)

    def _decorator_targets(self, f: FileIndex, scope: str, expression: str, decorated: str) -> list[Sym]:
        for suffix in _NAME_SUFFIXES.get(f.language or "", ("",)):
            found = [s for s in self.resolve(f, scope, expression + suffix) if s.target != decorated]
            if found:
                return found
        return []
