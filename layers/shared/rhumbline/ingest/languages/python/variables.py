"""Phase 1 for Python: module-level variables and `__all__`."""

from __future__ import annotations

from hashlib import sha256

from tree_sitter import Node

from rhumbline.ingest.facts import Variable
from rhumbline.ingest.languages.python.syntax import (
    DOTTED_NAME,
    first_named_child,
    string_literal_value,
)
from rhumbline.ingest.languages.text import collapse, node_text, shortened

# Compound statements whose blocks still run at module level (`if TYPE_CHECKING:`, `try: import`).
_MODULE_LEVEL_BLOCKS = frozenset(
    {
        "if_statement",
        "elif_clause",
        "else_clause",
        "try_statement",
        "except_clause",
        "finally_clause",
        "with_statement",
        "block",
    }
)
_SNIPPET_LIMIT = 120


def module_variables(source: bytes, root: Node) -> tuple[list[Variable], tuple[str, ...] | None]:
    """The module-level variables of a file, and its `__all__` when that is a literal list."""
    variables: dict[str, Variable] = {}
    exports: list[str] | None = None
    pending = list(reversed(root.named_children))
    while pending:
        node = pending.pop()
        if node.type in _MODULE_LEVEL_BLOCKS:
            pending.extend(reversed(node.named_children))
            continue
        if node.type != "expression_statement":
            continue
        statement = first_named_child(node)
        if statement is None:
            continue
        if statement.type == "assignment":
            for variable in _assigned(source, node, statement):
                variables.setdefault(variable.name, variable)
            if _is_dunder_all(source, statement):
                exports = _string_items(source, statement.child_by_field_name("right"))
        elif statement.type == "augmented_assignment" and _is_dunder_all(source, statement):
            extra = _string_items(source, statement.child_by_field_name("right"))
            if exports is not None and extra is not None:
                exports = exports + extra
    return list(variables.values()), tuple(exports) if exports is not None else None


def _assigned(source: bytes, statement: Node, assignment: Node) -> list[Variable]:
    snippet = shortened(collapse(node_text(source, statement)), _SNIPPET_LIMIT)
    content_hash = sha256(source[statement.start_byte : statement.end_byte]).hexdigest()
    start, end = statement.start_point.row + 1, statement.end_point.row + 1
    names: list[str] = []
    value: Node | None = assignment
    while value is not None and value.type == "assignment":  # a = b = value
        target = value.child_by_field_name("left")
        if target is not None:
            if target.type == "identifier":
                names.append(node_text(source, target))
            elif target.type in ("pattern_list", "tuple_pattern"):
                names.extend(
                    node_text(source, n) for n in target.named_children if n.type == "identifier"
                )
        value = value.child_by_field_name("right")
    alias_of = None
    if value is not None and value.type in ("identifier", "attribute"):
        text = node_text(source, value)
        alias_of = text if DOTTED_NAME.fullmatch(text) else None
    return [Variable(name, start, end, snippet, content_hash, alias_of) for name in names]


def _is_dunder_all(source: bytes, assignment: Node) -> bool:
    target = assignment.child_by_field_name("left")
    return target is not None and target.type == "identifier" and node_text(source, target) == "__all__"


def _string_items(source: bytes, node: Node | None) -> list[str] | None:
    if node is None or node.type not in ("list", "tuple"):
        return None
    items = []
    for child in node.named_children:
        value = string_literal_value(source, child)
        if value is None:
            return None
        items.append(value)
    return items
