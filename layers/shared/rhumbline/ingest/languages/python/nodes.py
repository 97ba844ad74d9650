"""Nodes and DEFINES edges of one Python file. Depends on that file and its module name only.

Containment choice: the File DEFINES its Module, and the File (not the Module) DEFINES the
module-level classes, functions and variables; a class DEFINES its methods and nested classes, a
function or method DEFINES the functions and classes nested in it. So every definition has exactly
one DEFINES parent, and the Module node stands for the import name (what IMPORTS edges point at).
"""

from __future__ import annotations

from rhumbline.ingest.facts import CodeFacts, SourceFile
from rhumbline.ingest.graph.edges import EdgeSet
from rhumbline.ingest.graph.ids import definition_id, file_id, module_id, variable_id
from rhumbline.ingest.graph.records import new_node
from rhumbline.stores.graph.model import Node

LANGUAGE = "python"


def module_node(source: SourceFile, module: str) -> Node:
    code = source.code
    return new_node(
        id=module_id(module),
        kind="Module",
        name=module.rsplit(".", 1)[-1],
        qualified_name=module,
        file=source.path,
        start_line=1,
        end_line=max(source.line_count, 1),
        language=LANGUAGE,
        docstring=code.docstring if code is not None else None,
        content_hash=source.content_hash,
    )


def definition_ids(path: str, code: CodeFacts) -> list[str]:
    return [definition_id(d.kind, path, d.qualname) for d in code.definitions]


# Decorators (their last dotted part) that make a definition a declaration whose code is elsewhere.
_DECLARING_DECORATORS = frozenset({"overload", "abstractmethod", "abstractproperty", "abstractclassmethod", "abstractstaticmethod"})
# Bases (their last dotted part) whose class's methods only declare: a typing protocol.
_DECLARING_BASES = frozenset({"Protocol"})


def _declarations(code: CodeFacts) -> set[str]:
    """Qualnames of the functions and methods that are declarations without a body: `@overload`
    stubs, abstract methods, the methods of a `Protocol` class."""
    protocols = {
        d.qualname for d in code.definitions
        if d.kind == "Class" and any(base.rpartition(".")[2] in _DECLARING_BASES for base in d.bases)
    }  # fmt: skip
    return {
        d.qualname for d in code.definitions
        if d.kind != "Class" and (
            d.parent in protocols
            or any(x.expression.rpartition(".")[2] in _DECLARING_DECORATORS for x in d.decorators)
        )
    }  # fmt: skip


def definition_nodes(path: str, module: str, code: CodeFacts) -> list[Node]:
    declared = _declarations(code)
    nodes = [
        new_node(
            id=definition_id(d.kind, path, d.qualname),
            kind=d.kind,
            name=d.name,
            qualified_name=f"{module}.{d.qualname}",
            file=path,
            start_line=d.start_line,
            end_line=d.end_line,
            language=LANGUAGE,
            signature=d.signature,
            docstring=d.docstring,
            content_hash=d.content_hash,
            body=d.body or None,
            declaration=d.qualname in declared,
            registration=d.registers,
        )
        for d in code.definitions
    ]
    nodes.extend(
        new_node(
            id=variable_id(path, v.name),
            kind="Variable",
            name=v.name,
            qualified_name=f"{module}.{v.name}",
            file=path,
            start_line=v.start_line,
            end_line=v.end_line,
            language=LANGUAGE,
            signature=v.snippet,  # the assignment itself: what a reader wants to see of a constant
            content_hash=v.content_hash,
        )
        for v in code.variables
    )
    return nodes


def add_defines(
    path: str, module: str | None, code: CodeFacts, ids: list[str], edges: EdgeSet
) -> None:
    """DEFINES edges of one file; `module` is None when another file owns its module name;
    `ids`: definition_ids(path, code)."""
    source_file = file_id(path)
    if module is not None:
        explanation = f"{path} is the source of module `{module}`"
        edges.extracted(source_file, "DEFINES", module_id(module), explanation, path, 1)
    parents: dict[str, tuple[str, str]] = {}  # qualname → (id, kind) of its first definition
    for d, node in zip(code.definitions, ids, strict=True):
        parents.setdefault(d.qualname, (node, d.kind))
    for d, node in zip(code.definitions, ids, strict=True):
        what = f"{d.kind.lower()} `{d.name}` at line {d.start_line}"
        parent = parents.get(d.parent) if d.parent else None
        if parent is None:
            explanation = f"{path} defines {what}"
            edges.extracted(source_file, "DEFINES", node, explanation, path, d.start_line)
        else:
            parent_id, parent_kind = parent
            explanation = f"{parent_kind.lower()} `{d.parent}` defines {what}"
            edges.extracted(parent_id, "DEFINES", node, explanation, path, d.start_line)
    for v in code.variables:
        explanation = f"{path} assigns module-level variable `{v.name}` at line {v.start_line}"
        target = variable_id(path, v.name)
        edges.extracted(source_file, "DEFINES", target, explanation, path, v.start_line)
