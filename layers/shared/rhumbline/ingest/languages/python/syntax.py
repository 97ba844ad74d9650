"""Small helpers over Python's tree-sitter nodes: names, docstrings, string literals (text of any
language: languages/text.py)."""

from __future__ import annotations

import io
import re
from inspect import cleandoc

from tree_sitter import Node

# A name Python can resolve statically: `f`, `mod.f`, `self.m`. Anything else (`f()()`, `x[0]`,
# `a . b` across lines) is dynamic.
DOTTED_NAME = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*")
DOCSTRING_LIMIT = 500


# Methods of builtin types: a call `x.append()` on an unknown receiver is almost always one of
# these, so matching it by name to some class in the repository would be noise.
_BUILTIN_METHOD_NAMES = frozenset(
    name
    for builtin_type in (object, str, bytes, bytearray, int, float, list, tuple, dict, set)
    for name in dir(builtin_type)
) | frozenset(dir(io.TextIOWrapper))


def matchable_by_name(method: str) -> bool:
    """Whether a call of `method` on a receiver of unknown type may be matched by name: not a
    builtin type's method, not a dunder."""
    return method not in _BUILTIN_METHOD_NAMES and not (method.startswith("__") and method.endswith("__"))


def is_secondary_site(qualname: str) -> bool:
    """A definition's other site (`f~1`, `C.x~2`: an overload stub, a setter, a second branch),
    named in the graph but never what the name binds (extract.py `_definitions`)."""
    return "~" in qualname.rpartition(".")[2]


def docstring_of(source: bytes, body: Node) -> str | None:
    """The docstring of a function or class body: its first statement, when that is a string."""
    return _leading_string(source, body)


def module_docstring(source: bytes, root: Node) -> str | None:
    return _leading_string(source, root)


def _leading_string(source: bytes, block: Node) -> str | None:
    statement = None
    for index in range(block.named_child_count):
        statement = block.named_child(index)
        if statement.type != "comment":
            break
    if statement is None or statement.type != "expression_statement":
        return None
    value = string_literal_value(source, first_named_child(statement))
    if value is None:
        return None
    return cleandoc(value)[:DOCSTRING_LIMIT] or None


def first_named_child(node: Node) -> Node | None:
    # Node.named_child raises IndexError (not None) past the end.
    return node.named_child(0) if node.named_child_count else None


def string_literal_value(source: bytes, node: Node | None) -> str | None:
    """The text between the quotes of a plain string literal; None for f-strings and bytes.

    Escape sequences stay as written: the value is for reading, not for evaluating.
    """
    if node is None or node.type != "string" or node.named_child_count < 2:
        return None
    start = node.named_child(0)
    end = node.named_child(node.named_child_count - 1)
    if start is None or end is None or start.type != "string_start" or end.type != "string_end":
        return None
    prefix = source[start.start_byte : start.end_byte].lower()
    if b"f" in prefix or b"b" in prefix:
        return None
    return source[start.end_byte : end.start_byte].decode("utf-8", "replace")
