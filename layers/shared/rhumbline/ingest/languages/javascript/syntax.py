"""JavaScript / TypeScript syntax helpers shared by the extractors and the module-level facts:
the node types that matter, member chains as dotted names, strings, export wrappers."""

from __future__ import annotations

from tree_sitter import Node

from rhumbline.ingest.languages.polyglot.extract import Context

FUNCTION_VALUES = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function"}
)
DECLARATIONS = frozenset({"lexical_declaration", "variable_declaration"})
NAME_TYPES = frozenset(
    {"identifier", "property_identifier", "private_property_identifier", "type_identifier"}
)


# How phase 1 writes a function type's parameter types, `(A,B)=>`, and a callback parameter's
# place in a call, `@callee#argument.parameter`, as local types phase 2 reads.
CALLBACK_TYPE = "=>"
CONTEXTUAL_TYPE = "@"
# A type alias of a function type (`type Handler = (c: Context) => void`): the local `type Handler`
# of type `(Context)=>`, a name no value can have, so a callee's parameter declared `Handler`
# types its callback like a written function type.
TYPE_ALIAS = "type "
# A method called on a named function's result, `innerFrom(x).subscribe()`: `innerFrom().subscribe`.
CALL_RESULT = "()"
# A local holding `this` (`const self = this`), or one of its fields (`const { a } = this`: `this.a`).
THIS = "this"
# A method called on a cast, `(x as Subject).next()` or `(<Subject>x).next()`: `(as Subject).next`.
CAST = "(as "


def dotted(x: Context, node: Node | None) -> str | None:
    """`a.b.c`, `this.m`, `super.m` for a member chain of plain names; None otherwise."""
    if node is None:
        return None
    kind = node.type
    if kind == "identifier":
        return x.text(node)
    if kind == "this":
        return "this"
    if kind == "super":
        return "super"
    if kind == "member_expression":
        obj = node.child_by_field_name("object")
        prop = node.child_by_field_name("property")
        if prop is None or prop.type not in NAME_TYPES:
            return None
        base = dotted(x, obj)
        return None if base is None else f"{base}.{x.text(prop)}"
    if kind in ("parenthesized_expression", "non_null_expression") and node.named_child_count == 1:
        return dotted(x, node.named_child(0))  # `(a).b`, TypeScript's `a!.b`
    return None


def unwrapped(node: Node) -> Node:
    """An expression without the parentheses and non-null assertions (`x!`) around it."""
    while node.type in ("parenthesized_expression", "non_null_expression") and node.named_child_count == 1:
        node = node.named_child(0)
    return node


def exported_statement(node: Node) -> Node:
    """The export statement around a declaration, which holds its doc comment and `export`."""
    parent = node.parent
    if parent is not None and parent.type == "export_statement":
        return parent
    return node


def body_start(value: Node | None) -> int:
    if value is None:
        return 0
    body = value.child_by_field_name("body")
    return body.start_byte if body is not None else value.end_byte


def string_value(x: Context, node: Node | None) -> str | None:
    if node is None or node.type != "string":
        return None
    for child in node.named_children:
        if child.type == "string_fragment":
            return x.text(child)
    return ""


def first_identifier(node: Node) -> Node | None:
    for child in node.named_children:
        if child.type == "identifier":
            return child
    return None


def is_require(x: Context, value: Node) -> bool:
    if value.type != "call_expression":
        return False
    function = value.child_by_field_name("function")
    return function is not None and x.text(function) == "require"

