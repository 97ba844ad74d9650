"""Phase 1 for Python: one file's bytes → CodeFacts. Pure, runs in worker processes.

One tree-sitter query finds every definition, call and import in a single pass in C; Python code
then touches only the matched nodes (a full Python-level walk of Django's four million nodes would
cost more than the parse). Scopes are assigned by a sweep over byte offsets instead of walking up
parents: each call or import belongs to the innermost definition whose body contains it.
"""

from __future__ import annotations

import re
from hashlib import sha256
from operator import itemgetter
from typing import NamedTuple

from tree_sitter import Language, Node, Parser, Query, QueryCursor

from rhumbline.ingest.facts import (
    CallSite,
    CodeFacts,
    DecoratorFact,
    Definition,
    ImportFact,
    TypeHint,
)
from rhumbline.ingest.languages.python.hints import (
    ANNOTATED,
    RETURNS,
    as_hints,
    assignment_hints,
    chain,
    definition_hints,
    iteration_hints,
)
from rhumbline.ingest.languages.python.syntax import (
    DOTTED_NAME,
    collapse,
    docstring_of,
    first_named_child,
    matchable_by_name,
    module_docstring,
    node_text,
    shortened,
)
from rhumbline.ingest.languages.python.variables import module_variables

# Read with captures() (one list per capture name), not matches() (a dict per match): cheaper.
# Assignments are matched only in the shapes a TypeHint can come of (hints.py), in C.
_QUERY_TEXT = """
(function_definition) @function
(class_definition) @class
(call function: (_) @callee arguments: (_) @arguments)
(import_statement) @import
(import_from_statement) @import_from
(assignment left: [(identifier) (attribute object: (identifier))] type: (_)) @assignment
(assignment
  left: [(identifier) (attribute object: (identifier))]
  !type
  right: [(call) (identifier) (attribute) (await) (boolean_operator) (conditional_expression)
          (parenthesized_expression) (subscript) (binary_operator) (assignment)]) @assignment
(as_pattern) @as
(for_statement) @for
(for_in_clause) @for
"""
_IMPORT, _IMPORT_FROM = range(2)

_SIGNATURE_LIMIT = 300
_STATEMENT_LIMIT = 200
_state: tuple[Parser, Query] | None = None


def _parser_and_query() -> tuple[Parser, Query]:
    # Built once per process: grammar loading and query compilation cost milliseconds per file.
    global _state
    if _state is None:
        import tree_sitter_python

        language = Language(tree_sitter_python.language())
        _state = (Parser(language), Query(language, _QUERY_TEXT))
    return _state


class _Scope(NamedTuple):
    body_start: int
    body_end: int
    qualname: str
    kind: str


def extract_python(source: bytes) -> CodeFacts:
    parser, query = _parser_and_query()
    tree = parser.parse(source)
    root = tree.root_node
    captures = QueryCursor(query).captures(root)
    defs = [(node.start_byte, "Function", node) for node in captures.get("function", ())]
    defs.extend((node.start_byte, "Class", node) for node in captures.get("class", ()))
    defs.sort(key=itemgetter(0))
    hints: list[TypeHint] = []
    definitions, scopes = _definitions(source, defs, hints)
    calls, dynamic_calls = _calls(source, captures.get("callee", ()), captures.get("arguments", ()), scopes)
    hints.extend(_statement_hints(source, captures, scopes))
    hints = _used_hints(hints, calls, scopes)
    # (start byte, kind, node) of imports, in source order
    statements = [(node.start_byte, _IMPORT, node) for node in captures.get("import", ())]
    statements.extend((node.start_byte, _IMPORT_FROM, node) for node in captures.get("import_from", ()))
    statements.sort(key=itemgetter(0))
    imports: list[ImportFact] = []
    in_scopes = _scopes_at([start for start, _, _ in statements], scopes)
    for (_, kind, node), scope in zip(statements, in_scopes):
        if kind == _IMPORT:
            imports.extend(_plain_imports(source, node, scope))
        else:
            imports.extend(_from_imports(source, node, scope))
    variables, exports = module_variables(source, root)
    return CodeFacts(
        docstring=module_docstring(source, root),
        definitions=tuple(definitions),
        variables=tuple(variables),
        imports=tuple(imports),
        calls=tuple(calls),
        dynamic_calls=dynamic_calls,
        exports=exports,
        syntax_errors=root.has_error,
        hints=tuple(hints),
    )


_LEADING_NAME = re.compile(r"[^\W\d]\w*")


def _used_hints(hints: list[TypeHint], calls: list[CallSite], scopes: list[_Scope]) -> list[TypeHint]:
    """The hints phase 2 can read: a function's local (or parameter) only when its name starts
    a callee or another hint's value somewhere in the file; every other hint (module level, class
    attributes, `self.x`, returns) may be read from other files."""
    functions = {scope.qualname for scope in scopes if scope.kind != "Class"}
    used = {match.group() for call in calls if (match := _LEADING_NAME.match(call.callee))}
    used.update(match.group() for hint in hints if hint.how != ANNOTATED and (match := _LEADING_NAME.match(hint.expression)))
    return [h for h in hints if h.scope not in functions or h.name in used or h.name == RETURNS or "." in h.name]


def _statement_hints(source: bytes, captures: dict[str, list[Node]], scopes: list[_Scope]) -> list[TypeHint]:
    """Hints of assignments and `as` targets, each in the scope it runs in."""
    located = [(node.start_byte, 0, node.end_byte, node) for node in captures.get("assignment", ())]
    located.extend((node.start_byte, 1, node.end_byte, node) for node in captures.get("as", ()))
    located.extend((node.start_byte, 2, node.end_byte, node) for node in captures.get("for", ()))
    located.sort(key=itemgetter(0, 1, 2))
    hints: list[TypeHint] = []
    read = (assignment_hints, as_hints, iteration_hints)
    for (_, kind, _, node), scope in zip(located, _scopes_at([s for s, *_ in located], scopes)):
        hints.extend(read[kind](source, node, scope))
    return hints


def _calls(
    source: bytes, callees: list[Node], arguments: list[Node], scopes: list[_Scope]
) -> tuple[list[CallSite], int]:
    """The call sites in source order, and how many callees are not plain names. Most of a file's
    facts: one loop without a helper call per site, each distinct callee text checked once
    (`self.assertEqual` forty times in a test file), CallSites built by tuple.__new__ (a
    NamedTuple's own __new__ is Python code). The arguments are read only for calls on a
    receiver other than self, cls and super() (what name matching narrows by)."""
    arguments_at = {node.start_byte: node for node in arguments}
    # By start, then end: the query gives callees that start together (`f().g` and `f`) in no
    # fixed order, and the first site of a merged edge is the one its explanation names.
    located = [(node.start_byte, node.end_byte, node) for node in callees]
    located.sort(key=itemgetter(0, 1))
    in_scopes = _scopes_at([start for start, _, _ in located], scopes)
    known: dict[str, str | None] = {}  # callee text → its name, None when dynamic
    new, call_site = tuple.__new__, CallSite
    calls: list[CallSite] = []
    append = calls.append
    dynamic = 0
    for (start, end, node), scope in zip(located, in_scopes):
        text = source[start:end].decode("utf-8", "replace")
        if text in known:
            callee = known[text]
        else:
            callee = _callee_name(text)
            if callee is None:  # not a plain name: maybe a chain (`Client(...).get`)
                callee = _chained(source, node)
            known[text] = callee
        if callee is None:
            dynamic += 1
            continue
        shape = ""
        if "." in callee and not callee.startswith(_OWN_RECEIVERS):
            passed = arguments_at.get(end)
            if passed is not None and matchable_by_name(callee.rpartition(".")[2]):
                shape = _argument_shape(source, passed)
        append(new(call_site, (scope, callee, node.start_point.row + 1, shape)))
    return calls, dynamic


_OWN_RECEIVERS = ("self.", "cls.", "super().")


def _argument_shape(source: bytes, arguments: Node) -> str:
    """CallSite.arguments of one call's argument list."""
    if arguments.type != "argument_list":
        return "1"  # f(x for x in y)
    positional, star, keywords, double_star = 0, "", [], False
    for argument in arguments.named_children:
        kind = argument.type
        if kind == "keyword_argument":
            name = argument.child_by_field_name("name")
            keywords.append(node_text(source, name))
        elif kind == "list_splat":
            star = "*"
        elif kind == "dictionary_splat":
            double_star = True
        elif kind != "comment":
            positional += 1
    return ",".join([f"{positional}{star}", *keywords, *(["**"] if double_star else [])])


class _Site(NamedTuple):
    kind: str
    name: str
    node: Node
    body: Node
    parent: int  # index of the enclosing definition's site, -1 at module level


def _definitions(
    source: bytes, defs: list[tuple[int, str, Node]], hints: list[TypeHint]
) -> tuple[list[Definition], list[_Scope]]:
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
    scopes: list[_Scope] = []
    for index, site in enumerate(sites):
        parent = scopes[site.parent] if site.parent >= 0 else None
        qualname = f"{parent.qualname}.{site.name}" if parent else site.name
        qualname += suffixes.get(index, "")
        scope = _Scope(site.body.start_byte, site.body.end_byte, qualname, site.kind)
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
    parent: _Scope | None,
) -> Definition:
    # Node.parent is found by descending from the root: ask once.
    parent_node = node.parent
    decorated = parent_node is not None and parent_node.type == "decorated_definition"
    outer = parent_node if decorated else node
    header_end = _header_end(node, _CLASS_HEADER if kind == "Class" else _FUNCTION_HEADER)
    signature = collapse(source[node.start_byte : header_end].decode("utf-8", "replace"))
    return Definition(
        kind=kind,
        name=name,
        qualname=qualname,
        parent=parent.qualname if parent else "",
        start_line=outer.start_point.row + 1,
        end_line=outer.end_point.row + 1,
        signature=shortened(signature, _SIGNATURE_LIMIT),
        docstring=docstring_of(source, body),
        content_hash=sha256(source[outer.start_byte : outer.end_byte]).hexdigest(),
        bases=_bases(source, node) if kind == "Class" else (),
        decorators=_decorators(source, outer) if outer is not node else (),
        parameters=_parameters(source, node) if kind != "Class" else (),
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
                written = shortened(collapse(node_text(source, child)), _STATEMENT_LIMIT)
                lines = (child.start_point.row + 1, child.end_point.row + 1)
                found.append(DecoratorFact(text, *lines, written))
    return tuple(found)


def _scopes_at(positions: list[int], scopes: list[_Scope]) -> list[str]:
    """The qualname of the innermost scope whose body holds each position ("" at module level);
    `positions` and `scopes` both sorted by start byte."""
    names: list[str] = []
    stack: list[_Scope] = []
    next_scope = 0
    count = len(scopes)
    for position in positions:
        while next_scope < count and scopes[next_scope].body_start <= position:
            entering = scopes[next_scope]
            while stack and stack[-1].body_end <= entering.body_start:
                stack.pop()
            stack.append(entering)
            next_scope += 1
        while stack and stack[-1].body_end <= position:
            stack.pop()
        names.append(stack[-1].qualname if stack else "")
    return names


def _chained(source: bytes, node: Node) -> str | None:
    """A callee that is a chain ending in a name (`Client(...).get`, `items[0].close`), in the
    chain syntax; None for anything else (`f()()`, `(a or b).m`)."""
    found = chain(source, node)
    return found if found is not None and found[-1] not in ")]" else None


def _callee_name(text: str) -> str | None:
    if DOTTED_NAME.fullmatch(text):
        return text
    if text.startswith("super()."):
        attribute = text[len("super().") :]
        if attribute.isidentifier():
            return text
    return None


def _plain_imports(source: bytes, node: Node, scope: str) -> list[ImportFact]:
    statement = shortened(collapse(node_text(source, node)), _STATEMENT_LIMIT)
    line = node.start_point.row + 1
    facts = []
    for child in node.children_by_field_name("name"):
        module, alias = _name_and_alias(source, child)
        if module:
            facts.append(ImportFact(scope, line, statement, module, 0, None, alias))
    return facts


def _from_imports(source: bytes, node: Node, scope: str) -> list[ImportFact]:
    statement = shortened(collapse(node_text(source, node)), _STATEMENT_LIMIT)
    line = node.start_point.row + 1
    module_node = node.child_by_field_name("module_name")
    if module_node is None:
        return []
    if module_node.type == "relative_import":
        level = 0
        module = ""
        for part in module_node.named_children:
            if part.type == "import_prefix":
                level = node_text(source, part).count(".")
            elif part.type == "dotted_name":
                module = node_text(source, part)
    else:
        level, module = 0, node_text(source, module_node)
    facts = []
    for child in node.children_by_field_name("name"):
        name, alias = _name_and_alias(source, child)
        if name:
            facts.append(ImportFact(scope, line, statement, module, level, name, alias))
    if any(child.type == "wildcard_import" for child in node.named_children):
        facts.append(ImportFact(scope, line, statement, module, level, "*", None))
    return facts


def _name_and_alias(source: bytes, node: Node) -> tuple[str, str | None]:
    if node.type == "aliased_import":
        name = node.child_by_field_name("name")
        alias = node.child_by_field_name("alias")
        return (
            node_text(source, name) if name is not None else "",
            node_text(source, alias) if alias is not None else None,
        )
    if node.type == "dotted_name":
        return node_text(source, node), None
    return "", None
