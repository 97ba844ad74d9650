"""Import and Decorator nodes of one Python file (design: rhumbline/ingest/graph/statements.py).

An Import RESOLVES_TO the repository modules its statement loads (as File -IMPORTS-> Module does)
and, for `from m import name`, the definition `name` is in m: EXTRACTED when m defines it,
INFERRED when m re-exports it, AMBIGUOUS among two to five. A Decorator RESOLVES_TO what its
dotted name resolves to, with the evidence of the DECORATES edge it mirrors.
"""

from __future__ import annotations

from rhumbline.ingest.facts import ImportFact, SourceFile
from rhumbline.ingest.graph.edges import EXTRACTED_SCORE, INFERRED_SCORE, MAX_CANDIDATES, EdgeSet
from rhumbline.ingest.graph.ids import definition_id, file_id, module_id
from rhumbline.ingest.graph.statements import RESOLVES_TO, StatementNodes, import_key
from rhumbline.ingest.languages.python.evidence import classify
from rhumbline.ingest.languages.python.modules import ModuleIndex
from rhumbline.ingest.languages.python.namespace import DEF, Namespaces
from rhumbline.ingest.languages.python.resolve import Resolver
from rhumbline.stores.graph.model import Node

LANGUAGE = "python"


def binding(fact: ImportFact) -> str:
    """The import as it binds this one name: `from .query import QuerySet as QS`."""
    alias = f" as {fact.alias}" if fact.alias else ""
    if fact.name is None:
        return f"import {fact.module}{alias}"
    return f"from {'.' * fact.level}{fact.module} import {fact.name}{alias}"


def _bound(fact: ImportFact) -> str | None:
    if fact.name is None:
        return fact.alias or fact.module  # `import a.b.c` is keyed by what it names, a.b.c
    return fact.alias or fact.name


def import_nodes(
    source: SourceFile, module: str, index: ModuleIndex, namespaces: Namespaces,
    qualified: dict[str, str], edges: EdgeSet, loaded_by_import: list[list[str]],
) -> list[Node]:  # fmt: skip
    """`loaded_by_import`: links.imported_modules of each of the file's imports, in order."""
    path, code = source.path, source.code
    scopes: dict[str, str] | None = None  # most imports are at module level: built on demand
    placed = StatementNodes(path, LANGUAGE, edges, [])
    for fact, modules in zip(code.imports, loaded_by_import, strict=True):
        name = binding(fact)
        container = f"{module}.{fact.scope}" if fact.scope else module
        if fact.scope and scopes is None:
            scopes = {}
            for d in code.definitions:
                scopes.setdefault(d.qualname, definition_id(d.kind, path, d.qualname))
        container_id = scopes.get(fact.scope, file_id(path)) if fact.scope else file_id(path)
        node = placed.add_import(fact, import_key(fact, _bound(fact)), name, container, container_id)
        where = f"`{name}` at {path}:{fact.line}"
        for loaded in modules:
            edges.extracted(node.id, RESOLVES_TO, module_id(loaded), f"{where} loads module `{loaded}`",
                            path, fact.line)  # fmt: skip
        if fact.name is not None and fact.name != "*":
            _add_bound_definition(node.id, path, fact, where, index, namespaces, qualified, edges)
    return placed.nodes


def _add_bound_definition(
    node_id: str, path: str, fact: ImportFact, where: str, index: ModuleIndex,
    namespaces: Namespaces, qualified: dict[str, str], edges: EdgeSet,
) -> None:  # fmt: skip
    absolute = index.absolute(path, fact.module, fact.level)
    if absolute is None:
        return
    found = [s for s in namespaces.export(absolute, fact.name or "") if s.kind == DEF]
    found = [s for s in found if s.target in qualified]
    if not found or len(found) > MAX_CANDIDATES:
        return
    if len(found) > 1:
        names = ", ".join(sorted(qualified[s.target] for s in found))
        explanation = f"{where} binds one of {len(found)} candidates: {names}"
        for symbol in found:
            edges.add(node_id, RESOLVES_TO, symbol.target, "AMBIGUOUS", 1 / len(found), explanation,
                      path, fact.line)  # fmt: skip
        return
    (symbol,) = found
    target = qualified[symbol.target]
    if symbol.imported:
        explanation = f"{where} binds `{target}`, re-exported by `{absolute}`"
        edges.add(node_id, RESOLVES_TO, symbol.target, "INFERRED", INFERRED_SCORE, explanation, path, fact.line)
    else:
        explanation = f"{where} binds `{target}`, defined in `{absolute}`"
        edges.add(node_id, RESOLVES_TO, symbol.target, "EXTRACTED", EXTRACTED_SCORE, explanation, path,
                  fact.line)  # fmt: skip


def decorator_nodes(
    source: SourceFile, resolver: Resolver, qualified: dict[str, str], edges: EdgeSet
) -> list[Node]:
    path, code = source.path, source.code
    placed = StatementNodes(path, LANGUAGE, edges, [])
    for d in code.definitions:
        if not d.decorators:
            continue
        decorated = definition_id(d.kind, path, d.qualname)
        what = f"{d.kind.lower()} `{d.qualname}`"
        for decorator in d.decorators:
            node = placed.add_decorator(decorator, d.qualname, decorated, qualified[decorated], what)
            # Decorators run in the scope around the definition.
            targets = resolver.resolve(path, d.parent, decorator.expression)
            site = f"`{decorator.text}` at {path}:{decorator.line}"
            for found in classify(targets, site, qualified):
                edges.add(node.id, RESOLVES_TO, found.node_id, found.confidence, found.score,
                          found.explanation, path, decorator.line)  # fmt: skip
    return placed.nodes
