"""Phase 1 for Python: a file's definitions (classes, functions, methods) from their nodes, each
with its header facts (signature, parameters, bases, decorators) and the scope its body opens."""

from __future__ import annotations

from hashlib import sha256
from typing import NamedTuple

from tree_sitter import Node

from rhumbline.ingest.facts import DecoratorFact, Definition, TypeHint
from rhumbline.ingest.languages.python.hints import definition_hints
from rhumbline.ingest.languages.python.registrations import registers
from rhumbline.ingest.languages.python.syntax import (
    DOTTED_NAME,
    docstring_of,
    first_named_child,
)
from rhumbline.ingest.languages.text import collapse, node_text, shortened

SIGNATURE_LIMIT = 300
STATEMENT_LIMIT = 200


class Scope(NamedTuple):
    body_start: int
    body_end: int
    qualname: str
    kind: str


class _Site(NamedTuple):
    kind: str
    name: str
    node: Node
    body: Node
    parent: int  # index of the enclosing definition's site, -1 at module level


def read_definitions(
    source: bytes, defs: list[tuple[int, str, Node]], hints: list[TypeHint]
) -> tuple[list[Definition], list[Scope]]:
    """The definitions and their scopes; each function's parameter and return annotations go
    into `hints`.

    A name defined more than once in one scope (`@overload` stubs and their implementation, a
    property's getter and setter, `try: def f` / `except: def f`) gives one definition per site:
    the implementation (else the getter, else the first) keeps the plain qualname, which is what
    calls resolve to; the others get `~<position>` (1-based, in source order) after their name,
    `f~1`, `C.x~2`, so ids stay unique and stable and no definition is hidden."""
    sites: list[_Site] = []
    stack: list[int] = []
    for start, kind, node in defs:
        name_node = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if name_node is None or body is None:  # too broken to name
            continue
        while stack and not (sites[stack[-1]].body.start_byte <= start < sites[stack[-1]].body.end_byte):
            stack.pop()
        parent = stack[-1] if stack else -1
        if kind == "Function" and parent >= 0 and sites[parent].kind == "Class":
            kind = "Method"
        stack.append(len(sites))
        sites.append(_Site(kind, node_text(source, name_node), node, body, parent))
    suffixes = _site_suffixes(source, sites)
    definitions: list[Definition] = []
    scopes: list[Scope] = []
    for index, site in enumerate(sites):
        parent = scopes[site.parent] if site.parent >= 0 else None
        qualname = f"{parent.qualname}.{site.name}" if parent else site.name
        qualname += suffixes.get(index, "")
        scope = Scope(site.body.start_byte, site.body.end_byte, qualname, site.kind)
        scopes.append(scope)
        if site.kind != "Class":
            hints.extend(definition_hints(source, site.node, qualname))
        definitions.append(_definition(source, site.node, site.body, site.kind, site.name, qualname, parent))
    return definitions, scopes


def _site_suffixes(source: bytes, sites: list[_Site]) -> dict[int, str]:
    """`~<position>` of every site that is not its name's primary definition, by site index."""
    groups: dict[tuple[int, str, str], list[int]] = {}
    for index, site in enumerate(sites):
        groups.setdefault((site.parent, site.kind, site.name), []).append(index)
    suffixes: dict[int, str] = {}
    for members in groups.values():
        if len(members) > 1:
            primary = next((i for i in members if not _is_stub_or_accessor(source, sites[i].node)), members[0])
            suffixes.update((i, f"~{position}") for position, i in enumerate(members, 1) if i != primary)
    return suffixes


def _is_stub_or_accessor(source: bytes, node: Node) -> bool:
    """Decorated `@overload` (a typing stub) or `@x.setter` / `@x.deleter` (not the getter)."""
    decorated = node.parent
    if decorated is None or decorated.type != "decorated_definition":
        return False
    for decorator in decorated.named_children:
        if decorator.type == "decorator":
            text = node_text(source, decorator).lstrip("@").strip()
            if text.rsplit(".", 1)[-1] == "overload" or text.endswith((".setter", ".deleter")):
                return True
    return False


def _definition(
    source: bytes,
    node: Node,
    body: Node,
    kind: str,
    name: str,
    qualname: str,
    parent: Scope | None,
) -> Definition:
    # Node.parent is found by descending from the root: ask once.
    parent_node = node.parent
    decorated = parent_node is not None and parent_node.type == "decorated_definition"
    outer = parent_node if decorated else node
    header_end = _header_end(node, _CLASS_HEADER if kind == "Class" else _FUNCTION_HEADER)
    signature = collapse(source[node.start_byte : header_end].decode("utf-8", "replace"))
    parameters = _parameters(source, node) if kind != "Class" else ()
    return Definition(
        kind=kind,
        name=name,
        qualname=qualname,
        parent=parent.qualname if parent else "",
        start_line=outer.start_point.row + 1,
        end_line=outer.end_point.row + 1,
        signature=shortened(signature, SIGNATURE_LIMIT),
        docstring=docstring_of(source, body),
        content_hash=sha256(source[outer.start_byte : outer.end_byte]).hexdigest(),
        bases=_bases(source, node) if kind == "Class" else (),
        decorators=_decorators(source, outer) if outer is not node else (),
        parameters=parameters,
        registers=kind != "Class" and registers(source, node, body, parameters, method=kind == "Method"),
    )


# The fields a header may end with, last first; each kind only has its own (the grammar gives a
# class no parameters or return type, a function no superclasses).
_FUNCTION_HEADER = ("return_type", "parameters", "type_parameters", "name")
_CLASS_HEADER = ("superclasses", "type_parameters", "name")


def _header_end(node: Node, fields: tuple[str, ...]) -> int:
    """Where `def f(...) -> T` / `class C(Base)` ends: before the colon and any comment after it."""
    for field in fields:
        part = node.child_by_field_name(field)
        if part is not None:
            return part.end_byte
    return node.start_byte


def _parameters(source: bytes, node: Node) -> tuple[str, ...]:
    parameters = node.child_by_field_name("parameters")
    if parameters is None:
        return ()
    names = []
    for child in parameters.named_children:
        if child.type != "identifier":  # typed, default, *args, **kwargs: the name is inside
            child = child.child_by_field_name("name") or first_named_child(child)
        if child is not None and child.type == "identifier":
            names.append(node_text(source, child))
    return tuple(names)


def _bases(source: bytes, node: Node) -> tuple[str, ...]:
    superclasses = node.child_by_field_name("superclasses")
    if superclasses is None:
        return ()
    bases = []
    for child in superclasses.named_children:
        if child.type == "subscript":  # Generic[T], Base[int]: the class is the subscripted value
            child = child.child_by_field_name("value")
        if child is not None and child.type in ("identifier", "attribute"):
            text = node_text(source, child)
            if DOTTED_NAME.fullmatch(text):
                bases.append(text)
    return tuple(bases)


def _decorators(source: bytes, decorated: Node) -> tuple[DecoratorFact, ...]:
    found = []
    for child in decorated.named_children:
        if child.type != "decorator":
            continue
        expression = first_named_child(child)
        if expression is not None and expression.type == "call":
            expression = expression.child_by_field_name("function")
        if expression is not None and expression.type in ("identifier", "attribute"):
            text = node_text(source, expression)
            if DOTTED_NAME.fullmatch(text):
                written = shortened(collapse(node_text(source, child)), STATEMENT_LIMIT)
                lines = (child.start_point.row + 1, child.end_point.row + 1)
                found.append(DecoratorFact(text, *lines, written))
    return tuple(found)
