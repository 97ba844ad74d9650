"""The nominal type in a type as written, the same way for every tree-sitter language."""

from __future__ import annotations

import re

_GENERIC = re.compile(r"<[^<>]*>")
_TYPE_QUALIFIERS = re.compile(r"\b(?:const|mut|dyn|impl|ref|in|out|readonly|final|struct|enum)\b")
_NOT_TYPE_CHARS = re.compile(r"[*&?!^]|\[\]|'\w+")


def type_name(text: str, separators: tuple[str, ...] = ("::",)) -> str | None:
    """The nominal type in a written type: `List<Item>` → `List`, `*pkg.Cart` → `pkg.Cart`,
    `&mut Cart` → `Cart`; None for anything not a plain (dotted) name."""
    text = text.strip()
    while "<" in text:
        stripped = _GENERIC.sub("", text)
        if stripped == text:
            return None
        text = stripped
    text = _NOT_TYPE_CHARS.sub("", _TYPE_QUALIFIERS.sub(" ", text)).strip()
    for separator in separators:
        text = text.replace(separator, ".")
    text = text.replace("\\", ".").strip(".")
    if not text or not all(part.isidentifier() for part in text.split(".")):
        return None
    return text
