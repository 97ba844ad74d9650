"""Text of source code, whatever its language: a node's text, one-line signatures, shortened snippets."""

from __future__ import annotations

import re

from tree_sitter import Node

_WHITESPACE = re.compile(r"\s+")
_BRACKET_PADDING = re.compile(r"([(\[]) | (?=[)\]])")
# A trailing comma before a closing bracket on its own line (black style); `(1,)` stays.
_MAGIC_TRAILING_COMMA = re.compile(r",\s*\n\s*(?=[)\]])")


def shortened(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def node_text(source: bytes, node: Node | None) -> str:
    if node is None:
        return ""
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def collapse(text: str) -> str:
    """One line: runs of whitespace become one space, minus the padding line breaks leave inside
    brackets (`def f(\n    a,\n)` → `def f(a)`)."""
    if "\n" not in text and "  " not in text and "\t" not in text:
        return text.strip()  # the common case: already one line
    text = _MAGIC_TRAILING_COMMA.sub("", text)
    return _BRACKET_PADDING.sub(r"\1", _WHITESPACE.sub(" ", text)).strip()
