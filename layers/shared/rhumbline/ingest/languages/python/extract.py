"""Phase 1 for Python: one file's bytes → CodeFacts. Pure, runs in worker processes.

One tree-sitter query finds every definition, call and import in a single pass in C; Python code
then touches only the matched nodes (a full Python-level walk of Django's four million nodes would
cost more than the parse). Scopes are assigned by a sweep over byte offsets instead of walking up
parents: each call or import belongs to the innermost definition whose body contains it.
"""

from __future__ import annotations

import re
from operator import itemgetter

from tree_sitter import Language, Node, Parser, Query, QueryCursor

from rhumbline.ingest.facts import (
    CallSite,
    CodeFacts,
    ImportFact,
    TypeHint,
)
from rhumbline.ingest.languages.python.definitions import STATEMENT_LIMIT, Scope, read_definitions
from rhumbline.ingest.languages.python.hints import (
    ANNOTATED,
    RETURNS,
    as_hints,
    assignment_hints,
    chain,
    iteration_hints,
)
from rhumbline.ingest.languages.python.syntax import (
    DOTTED_NAME,
    matchable_by_name,
    module_docstring,
)
from rhumbline.ingest.languages.python.variables import module_variables
from rhumbline.ingest.languages.text import collapse, node_text, shortened

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
(assignment
  left: [(pattern_list) (tuple_pattern)]
  right: [(call) (identifier) (attribute) (await) (subscript)]) @assignment
(as_pattern) @as
(for_statement) @for
(for_in_clause) @for
"""
_IMPORT, _IMPORT_FROM = range(2)

_state: tuple[Parser, Query] | None = None


def _parser_and_query() -> tuple[Parser, Query]:
    # Built once per process: grammar loading and query compilation cost milliseconds per file.
    global _state
    if _state is None:
        import tree_sitter_python

        language = Language(tree_sitter_python.language())
        _state = (Parser(language), Query(language, _QUERY_TEXT))
    return _state


def extract_python(source: bytes) -> CodeFacts:
    parser, query = _parser_and_query()
    tree = parser.parse(source)
    root = tree.root_node
    captures = QueryCursor(query).captures(root)
    defs = [(node.start_byte, "Function", node) for node in captures.get("function", ())]
    defs.extend((node.start_byte, "Class", node) for node in captures.get("class", ()))
    defs.sort(key=itemgetter(0))
    hints: list[TypeHint] = []
    definitions, scopes = read_definitions(source, defs, hints)
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


def _used_hints(hints: list[TypeHint], calls: list[CallSite], scopes: list[Scope]) -> list[TypeHint]:
    """The hints phase 2 can read: a function's local (or parameter) only when its name starts
    a callee or another hint's value somewhere in the file; every other hint (module level, class
    attributes, `self.x`, returns) may be read from other files."""
    functions = {scope.qualname for scope in scopes if scope.kind != "Class"}
    callees = set(map(itemgetter(1), calls))  # a file calls few distinct names, many times
    used = {match.group() for callee in callees if (match := _LEADING_NAME.match(callee))}
    used.update(match.group() for hint in hints if hint.how != ANNOTATED and (match := _LEADING_NAME.match(hint.expression)))
    return [h for h in hints if h.scope not in functions or h.name in used or h.name == RETURNS or "." in h.name]


def _statement_hints(source: bytes, captures: dict[str, list[Node]], scopes: list[Scope]) -> list[TypeHint]:
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
    source: bytes, callees: list[Node], arguments: list[Node], scopes: list[Scope]
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


def _scopes_at(positions: list[int], scopes: list[Scope]) -> list[str]:
    """The qualname of the innermost scope whose body holds each position ("" at module level);
    `positions` and `scopes` both sorted by start byte."""
    names: list[str] = []
    stack: list[Scope] = []
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
    statement = shortened(collapse(node_text(source, node)), STATEMENT_LIMIT)
    line = node.start_point.row + 1
    facts = []
    for child in node.children_by_field_name("name"):
        module, alias = _name_and_alias(source, child)
        if module:
            facts.append(ImportFact(scope, line, statement, module, 0, None, alias))
    return facts


def _from_imports(source: bytes, node: Node, scope: str) -> list[ImportFact]:
    statement = shortened(collapse(node_text(source, node)), STATEMENT_LIMIT)
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
