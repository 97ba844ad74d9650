"""Phase 1 for Python: what assignments, `with`/`except ... as` and annotations say about names.

Read off the syntax only (phase 2's receivers.py resolves them): `client = Client(...)`,
`self.pool = pool or Pool()`, `with open_client() as c`, `except Error as e`, `c: Client`,
`def f(c: "Client | None") -> Response`. Values are kept in the chain syntax of TypeHint:
a dotted name with `()` for a call's result, `[]` for an item and `[2]` for a positional one
(an unpacking target), so `Client(...).send(...)`
and `clients[k].close` are written `Client().send` and `clients[].close`.
"""

from __future__ import annotations

from tree_sitter import Node

from rhumbline.ingest.facts import TypeHint
from rhumbline.ingest.languages.python.syntax import DOTTED_NAME, first_named_child

ASSIGNED, ENTERED, ANNOTATED, ITERATED = "=", "as", ":", "in"
ALIASED = "type"  # a type alias: `Target = Union[A, "B"]`, `Target = A | B`
RETURNS = "->"  # the name a return annotation is kept under
# A value made of two values: `a or b`, `a if c else b` (both kept: the hint is flow-insensitive).
_EITHER = frozenset({"boolean_operator", "conditional_expression"})
# Wrappers whose first argument is the annotated type itself.
_TRANSPARENT = frozenset({"Annotated", "ClassVar", "Final", "Required", "NotRequired", "ReadOnly"})
_UNIONS = frozenset({"Optional", "Union"})
# Context managers whose `as` value is their argument (contextlib's).
_GIVE_BACK = frozenset({"closing", "nullcontext"})
_MAX_DEPTH = 8
_SCOPES = frozenset({"function_definition", "class_definition", "module"})


def chain(source: bytes, node: Node | None, depth: int = 0) -> str | None:
    """An expression in chain syntax, or None when it is not a chain of names, calls and items."""
    if node is None or depth > _MAX_DEPTH:
        return None
    kind = node.type
    if kind == "identifier":
        return source[node.start_byte : node.end_byte].decode("utf-8", "replace")
    if kind == "attribute":
        receiver = chain(source, node.child_by_field_name("object"), depth + 1)
        name = node.child_by_field_name("attribute")
        if receiver is None or name is None:
            return None
        return f"{receiver}.{source[name.start_byte : name.end_byte].decode('utf-8', 'replace')}"
    if kind == "call":
        function = chain(source, node.child_by_field_name("function"), depth + 1)
        return None if function is None else function + "()"
    if kind == "subscript":
        value = chain(source, node.child_by_field_name("value"), depth + 1)
        return None if value is None else value + "[]"
    if kind in ("parenthesized_expression", "await"):
        return chain(source, first_named_child(node), depth + 1)
    return None


def assignment_hints(source: bytes, node: Node, scope: str) -> list[TypeHint]:
    """`x = v`, `self.x = v`, `x: T`, `x: T = v` (one step of `a = b = v`: each step is a match),
    `a, b = v` (a is v's item 0: `v[0]`)."""
    left = node.child_by_field_name("left")
    if left is not None and left.type in ("pattern_list", "tuple_pattern"):
        return _unpacking_hints(source, left, node, scope)
    target = _target(source, left)
    if target is None or _bound_by_the_try(source, node, target):
        return []
    line = node.start_point.row + 1
    annotation = node.child_by_field_name("type")
    if annotation is not None:  # the declared type wins over the value
        members = annotation_members(_text(source, annotation))
        return [TypeHint(scope, target, ANNOTATED, members, line)] if members else []
    value = node.child_by_field_name("right")
    while value is not None and value.type == "assignment":
        value = value.child_by_field_name("right")
    if value is not None and _is_type_alias(source, value):
        members = annotation_members(_text(source, value))
        return [TypeHint(scope, target, ALIASED, members, line)] if members else []
    return [TypeHint(scope, target, ASSIGNED, e, line) for e in _values(source, value)]


def _bound_by_the_try(source: bytes, node: Node, target: str) -> bool:
    """Whether `node` runs in an `except` branch whose `try` body assigns `target` too
    (`try: Impl = Fast` / `except ImportError: Impl = Slow`): the fallback is not what the name
    holds where the `try` succeeds, and the name's binding is the `try` body's."""
    parent = node.parent
    while parent is not None and parent.type not in _SCOPES:
        if parent.type == "except_clause":
            body = parent.parent.child_by_field_name("body") if parent.parent is not None else None
            return body is not None and any(
                _assigns(source, statement, target) for statement in body.named_children
            )
        parent = parent.parent
    return False


def _assigns(source: bytes, statement: Node, target: str) -> bool:
    assignment = first_named_child(statement) if statement.type == "expression_statement" else None
    while assignment is not None and assignment.type == "assignment":
        if _target(source, assignment.child_by_field_name("left")) == target:
            return True
        assignment = assignment.child_by_field_name("right")
    return False


def _unpacking_hints(source: bytes, left: Node, node: Node, scope: str) -> list[TypeHint]:
    """`a, b = v`: each target up to a starred one is v's item at its position."""
    value = chain(source, node.child_by_field_name("right"))
    if value is None:
        return []
    hints = []
    for position, item in enumerate(left.named_children):
        if item.type == "list_splat_pattern":
            break  # the targets after `*rest` count from the end
        target = _target(source, item)
        if target is not None:
            hints.append(TypeHint(scope, target, ASSIGNED, f"{value}[{position}]", node.start_point.row + 1))
    return hints


def iteration_hints(source: bytes, node: Node, scope: str) -> list[TypeHint]:
    """`for x in v` and `[... for x in v]`: x is an item of v; `for x in (A, B)`: x is A or B."""
    target = node.child_by_field_name("left")
    if target is None or target.type != "identifier":
        return []
    name, line = _text(source, target), node.start_point.row + 1
    iterated = node.child_by_field_name("right")
    if iterated is not None and iterated.type in ("tuple", "list", "set"):
        items = (chain(source, item) for item in iterated.named_children)
        return [TypeHint(scope, name, ASSIGNED, item, line) for item in items if item]
    value = chain(source, iterated)
    return [TypeHint(scope, name, ITERATED, value, line)] if value is not None else []


def _is_type_alias(source: bytes, value: Node) -> bool:
    if value.type == "subscript":
        head = value.child_by_field_name("value")
        return head is not None and _text(source, head).rsplit(".", 1)[-1] in _UNIONS
    if value.type == "binary_operator":
        operator = value.child_by_field_name("operator")
        return operator is not None and operator.type == "|" and chain(source, first_named_child(value)) is not None
    return False


def as_hints(source: bytes, node: Node, scope: str) -> list[TypeHint]:
    """`with v as x` (the entered value) and `except E as x` (an instance of E)."""
    alias = node.child_by_field_name("alias")
    name = first_named_child(alias) if alias is not None else None
    target = _target(source, name)
    if target is None:
        return []
    value = _entered(source, first_named_child(node))
    line = node.start_point.row + 1
    if value is not None and value.type == "tuple":  # except (A, B) as e
        values = [chain(source, item) for item in value.named_children]
        return [TypeHint(scope, target, ENTERED, v, line) for v in values if v]
    return [TypeHint(scope, target, ENTERED, v, line) for v in _values(source, value)]


def _entered(source: bytes, value: Node | None) -> Node | None:
    """What `with value as x` enters: the argument of `closing(arg)` / `nullcontext(arg)`, which
    give it back as the `as` value; else `value` itself."""
    if value is None or value.type != "call":
        return value
    function = chain(source, value.child_by_field_name("function"))
    arguments = value.child_by_field_name("arguments")
    if function is None or function.rsplit(".", 1)[-1] not in _GIVE_BACK or arguments is None:
        return value
    first = first_named_child(arguments)
    return first if first is not None and first.type != "keyword_argument" else value


def definition_hints(source: bytes, node: Node, qualname: str) -> list[TypeHint]:
    """A function's annotated parameters and its return annotation, in its own scope."""
    hints: list[TypeHint] = []
    line = node.start_point.row + 1
    parameters = node.child_by_field_name("parameters")
    for parameter in parameters.named_children if parameters is not None else ():
        if parameter.type not in ("typed_parameter", "typed_default_parameter"):
            continue
        name = parameter.child_by_field_name("name") or first_named_child(parameter)
        annotation = parameter.child_by_field_name("type")
        if name is None or name.type != "identifier" or annotation is None:
            continue  # *args: T, **kwargs: T hold tuples and dicts of T
        members = annotation_members(_text(source, annotation))
        if members:
            hints.append(TypeHint(qualname, _text(source, name), ANNOTATED, members, line))
    returns = node.child_by_field_name("return_type")
    if returns is not None:
        members = annotation_members(_text(source, returns))
        if members:
            hints.append(TypeHint(qualname, RETURNS, ANNOTATED, members, line))
    return hints


def annotation_members(text: str) -> str:
    """The classes an annotation allows, `|`-joined: unions and Optional flattened, quotes and
    None dropped, a generic kept with its arguments (`list[Client]`, `dict[str,Client]`)."""
    members: list[str] = []
    _collect(text, members, 0)
    return "|".join(dict.fromkeys(members))


def _collect(text: str, members: list[str], depth: int) -> None:
    text = text.strip()
    if depth > _MAX_DEPTH or not text:
        return
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text.strip("'\"").strip()  # a string (forward) annotation
    parts = split_outside_brackets(text, "|")
    if len(parts) > 1:
        for part in parts:
            _collect(part, members, depth + 1)
        return
    if text.endswith("]") and "[" in text:
        head, inner = text[: text.index("[")], text[text.index("[") + 1 : -1]
        base = head.rsplit(".", 1)[-1]
        if base in _UNIONS:
            for part in split_outside_brackets(inner, ","):
                _collect(part, members, depth + 1)
            return
        if base in _TRANSPARENT:
            _collect(split_outside_brackets(inner, ",")[0], members, depth + 1)
            return
        if DOTTED_NAME.fullmatch(head):
            # a generic keeps its arguments, collapsed: what its items are (`list[Client]`)
            arguments = (part.strip().strip("'\"").strip() for part in split_outside_brackets(inner, ","))
            members.append(f"{head}[{','.join(arguments)}]")
        return
    if text != "None" and DOTTED_NAME.fullmatch(text):
        members.append(text)


def split_outside_brackets(text: str, separator: str) -> list[str]:
    """`text` split on `separator` outside brackets."""
    parts, depth, start = [], 0, 0
    for index, character in enumerate(text):
        if character in "[(":
            depth += 1
        elif character in "])":
            depth -= 1
        elif character == separator and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return parts


def _values(source: bytes, value: Node | None) -> list[str]:
    pending = [value]
    found = []
    while pending and len(found) < 4:
        node = pending.pop()
        if node is None:
            continue
        if node.type in _EITHER:
            named = node.named_children
            # `a if c else b`: the values are the first and the last; `a or b`: both
            pending.extend((named[-1], named[0]) if named else ())
        elif node.type == "parenthesized_expression":
            pending.append(first_named_child(node))
        else:
            expression = chain(source, node)
            if expression is not None:
                found.append(expression)
    return found


def _target(source: bytes, node: Node | None) -> str | None:
    if node is None:
        return None
    if node.type == "identifier":
        return _text(source, node)
    if node.type == "attribute":
        receiver = node.child_by_field_name("object")
        if receiver is not None and receiver.type == "identifier" and _text(source, receiver) == "self":
            return _text(source, node)
    return None


def _text(source: bytes, node: Node) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")
