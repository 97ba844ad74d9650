"""Whether a Python function only registers a callback: its body's one effect is storing one of
its parameters in a container (`self.funcs.append(f)`, `self.handlers[name] = f`,
`self.hooks.setdefault(key, []).append(f)`), and that parameter is a callback: the function
returns it (used as a decorator, `@app.before_request`) or annotates it `Callable`. Such a
function is not the code that runs what it stores: search ranks it under that code
(words.REGISTRATION). A container's own writer (`__setitem__`, `add_header(key, value)`) stores
a value, not a callback, and is not one.

Read from the syntax of the function alone, whatever it is called.
"""

from __future__ import annotations

from tree_sitter import Node

# Methods of the built-in containers that store their argument in them.
_STORING_METHODS = frozenset({"append", "appendleft", "add", "insert", "extend", "update"})
# Statements a registration may hold besides its stores: a docstring, `pass`, comments.
_NEUTRAL = frozenset({"comment", "pass_statement"})


def registers(source: bytes, function: Node, body: Node, parameters: tuple[str, ...], *, method: bool) -> bool:
    """Whether the function (`function`, its block `body`) only stores a callback parameter (not
    a method's receiver) in a container and returns nothing, that parameter or its receiver."""
    stored = set(parameters[1:] if method else parameters)
    receiver = parameters[0] if method and parameters else None
    returned_callbacks: set[str] = set()
    stores = 0
    for index, statement in enumerate(body.named_children):
        if statement.type in _NEUTRAL or (index == 0 and _is_docstring(statement)):
            continue
        if statement.type == "return_statement":
            value = statement.named_children[0] if statement.named_children else None
            returned = _text(source, value) if value is not None and value.type == "identifier" else None
            if value is not None and returned not in {*stored, receiver}:
                return False
            if returned in stored:
                returned_callbacks.add(returned)
            continue
        if statement.type != "expression_statement" or statement.named_child_count != 1:
            return False
        kept = _stored(source, statement.named_children[0], stored)
        if kept is None:
            return False
        stored = {kept}
        stores += 1
    # The annotations are read last: most functions are no registration by their first statement.
    return stores > 0 and bool(stored & returned_callbacks or stored & _callable_parameters(source, function))


def _stored(source: bytes, expression: Node, stored: set[str]) -> str | None:
    """The parameter `container.append(p)` and the like, or `container[key] = p`, store."""
    if expression.type == "assignment":
        left, right = expression.child_by_field_name("left"), expression.child_by_field_name("right")
        if left is not None and left.type == "subscript" and right is not None and right.type == "identifier":
            return _text(source, right) if _text(source, right) in stored else None
        return None
    if expression.type != "call":
        return None
    function, arguments = expression.child_by_field_name("function"), expression.child_by_field_name("arguments")
    if function is None or function.type != "attribute" or arguments is None:
        return None
    method = function.child_by_field_name("attribute")
    if method is None or _text(source, method) not in _STORING_METHODS:
        return None
    names = [_text(source, a) for a in arguments.named_children if a.type == "identifier"]
    return next((name for name in names if name in stored), None)


def _callable_parameters(source: bytes, function: Node) -> set[str]:
    """The parameters annotated with a `Callable` type."""
    parameters = function.child_by_field_name("parameters")
    found: set[str] = set()
    for parameter in parameters.named_children if parameters is not None else ():
        annotation = parameter.child_by_field_name("type")
        name = parameter.child_by_field_name("name") or (parameter.named_children[0] if parameter.named_children else None)
        if annotation is not None and name is not None and "Callable" in _text(source, annotation):
            found.add(_text(source, name))
    return found


def _is_docstring(statement: Node) -> bool:
    return statement.type == "expression_statement" and statement.named_child_count == 1 and (
        statement.named_children[0].type in ("string", "concatenated_string")
    )


def _text(source: bytes, node: Node) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")
