"""IMPORTS, INHERITS and DECORATES edges of one Python file, resolved against the repository."""

from __future__ import annotations

from rhumbline.ingest.facts import CodeFacts, ImportFact
from rhumbline.ingest.graph.edges import EdgeSet
from rhumbline.ingest.graph.ids import definition_id, file_id, module_id
from rhumbline.ingest.languages.python.evidence import classify
from rhumbline.ingest.languages.python.modules import ModuleIndex
from rhumbline.ingest.languages.python.resolve import Resolver


def add_imports(path: str, code: CodeFacts, loaded: list[list[str]], edges: EdgeSet) -> None:
    """`loaded`: imported_modules of each of the file's imports, in order."""
    source = file_id(path)
    for fact, modules in zip(code.imports, loaded, strict=True):
        for module in modules:
            explanation = f"`{fact.statement}` at {path}:{fact.line}"
            edges.extracted(source, "IMPORTS", module_id(module), explanation, path, fact.line)


def imported_modules(path: str, fact: ImportFact, index: ModuleIndex) -> list[str]:
    """Repository modules an import statement loads: `from a import b` loads `a`, and `a.b`
    when b is a submodule; `import a.b.c` loads the deepest of those that is in the repository."""
    if fact.name is None:
        parts = fact.module.split(".")
        for length in range(len(parts), 0, -1):
            candidate = ".".join(parts[:length])
            if candidate in index.path_of:
                return [candidate]
        return []
    absolute = index.absolute(path, fact.module, fact.level)
    if absolute is None:
        return []
    found = [absolute] if absolute in index.path_of else []
    submodule = f"{absolute}.{fact.name}" if absolute else fact.name
    if fact.name != "*" and submodule in index.path_of:
        found.append(submodule)
    return found


def add_inherits(
    path: str, code: CodeFacts, resolver: Resolver, qualified: dict[str, str], edges: EdgeSet
) -> None:
    for d in code.definitions:
        if d.kind != "Class":
            continue
        class_id = definition_id("Class", path, d.qualname)
        for base in d.bases:
            # Bases are evaluated in the scope around the class statement.
            targets = [
                t
                for t in resolver.resolve(path, d.parent, base)
                if t.node_id in resolver.classes.classes and t.node_id != class_id
            ]
            what = f"class `{d.qualname}` at {path}:{d.start_line} lists base `{base}`, which"
            for found in classify(targets, what, qualified):
                edges.add(class_id, "INHERITS", found.node_id, found.confidence, found.score,
                          found.explanation, path, d.start_line)


def add_decorates(
    path: str, code: CodeFacts, resolver: Resolver, qualified: dict[str, str], edges: EdgeSet
) -> None:
    for d in code.definitions:
        if not d.decorators:
            continue
        decorated = definition_id(d.kind, path, d.qualname)
        for decorator in d.decorators:
            expression, line = decorator.expression, decorator.line
            # Decorators too run in the scope around the definition.
            targets = resolver.resolve(path, d.parent, expression)
            what = f"`@{expression}` on {d.kind.lower()} `{d.qualname}` at {path}:{line}"
            for found in classify(targets, what, qualified):
                edges.add(found.node_id, "DECORATES", decorated, found.confidence, found.score,
                          found.explanation, path, line)
