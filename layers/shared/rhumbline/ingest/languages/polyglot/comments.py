"""Doc comments of the tree-sitter languages: the comment block right above a definition
(`/** … */`, `///`, `//`, `#`, `--`), markers, leading stars and XML doc tags removed."""

from __future__ import annotations

import re
from inspect import cleandoc

from tree_sitter import Node

DOCSTRING_LIMIT = 500

_BLOCK_START = re.compile(r"^/\*+!?")
_BLOCK_END = re.compile(r"\*+/$")
_LINE_PREFIX = re.compile(r"^(?:///?!?|#+|--)")
_STAR_PREFIX = re.compile(r"^\s*\*(?!/) ?", re.MULTILINE)
_XML_TAG = re.compile(r"</?\w+[^>]*>")


def doc_comment(
    source: bytes,
    node: Node,
    comment_types: frozenset[str],
    skip: frozenset[str] = frozenset(),
) -> str | None:
    """The comments right above `node` (no blank line between), markers removed."""
    parts: list[str] = []
    row = node.start_point.row
    sibling = node.prev_sibling
    while sibling is not None:
        kind = sibling.type
        if kind in skip:
            row = sibling.start_point.row
            sibling = sibling.prev_sibling
            continue
        if kind not in comment_types or sibling.end_point.row < row - 1:
            break
        before = sibling.prev_sibling
        if (
            before is not None
            and before.type not in comment_types
            and before.end_point.row == sibling.start_point.row
        ):
            break  # a trailing comment of the line above, not a doc comment
        parts.append(source[sibling.start_byte : sibling.end_byte].decode("utf-8", "replace"))
        row = sibling.start_point.row
        sibling = before
    if not parts:
        return None
    return clean_comment("\n".join(reversed(parts)))


def clean_comment(text: str) -> str | None:
    lines = []
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("/*"):
            line = _BLOCK_START.sub("", line)
        if line.endswith("*/"):
            line = _BLOCK_END.sub("", line)
        line = _LINE_PREFIX.sub("", line)
        if line.startswith("*"):
            line = _STAR_PREFIX.sub("", line, count=1)
        lines.append(line.rstrip())
    cleaned = cleandoc("\n".join(lines))
    if "<" in cleaned and "</" in cleaned:  # C# XML documentation
        cleaned = cleandoc(_XML_TAG.sub("", cleaned))
    return cleaned[:DOCSTRING_LIMIT] or None
