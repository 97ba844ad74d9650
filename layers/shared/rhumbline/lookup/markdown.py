"""Compact markdown for the code-context tools: the same bundle as the JSON answer, as text a
model reads cheaply. Lists are cut shorter than in JSON (each cut says how many were left out),
docstrings keep their first line, and the whole text is bounded by MAX_CHARS.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from rhumbline.lookup.views import Annotation, Link, Listing, NodeRef
from rhumbline.vocabulary import KNOWLEDGE_KINDS

T = TypeVar("T")

MAX_CHARS = 12_000
MAX_ITEMS = 30  # per section
LINE_CHARS = 200


def first_line(text: str | None, limit: int = 120) -> str:
    if not text:
        return ""
    line = text.strip().splitlines()[0].strip() if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def where(file: str | None, line: int | None) -> str:
    if not file:
        return ""
    return f"{file}:{line}" if line else file


def ref(node: NodeRef) -> str:
    """`shop.models.Product` (Class, shop/models.py:4); `Product` (Concept, docs/glossary.md:3);
    `shop/models.py` (File)."""
    if node.kind == "File":
        return f"`{node.qualified_name}` (File)"
    location = where(node.file, node.line)
    about = f"{node.kind}, {location}" if location else node.kind
    return f"`{title(node)}` ({about})"


def title(node: NodeRef) -> str:
    """Knowledge nodes go by their title (their qualified name is a path and an anchor), code
    nodes by their qualified name."""
    return node.name if node.kind in KNOWLEDGE_KINDS else (node.qualified_name or node.name)


def link_line(item: Link) -> str:
    arrow = "←" if item.direction == "in" else "→"
    evidence = where(item.evidence_file, item.evidence_line)
    text = f"- {arrow} {item.relation} {ref(item.node)}"
    if item.confidence != "EXTRACTED":
        text += f" {item.confidence.lower()}"
    if evidence:
        text += f" @ {evidence}"
    return text


def annotation_line(item: Annotation) -> str:
    tags = f" [{', '.join(item.tags)}]" if item.tags else ""
    by = f" — {item.author}" if item.author else ""
    return f"- {item.provenance}{tags} on `{item.node_label}`: {first_line(item.content, 300)}{by}"


def section(
    title: str, listing: Listing[T] | None, render: Callable[[T], str], *, limit: int = MAX_ITEMS
) -> list[str]:
    """`## title (total)` and one line per item, cut at `limit` with the number left out."""
    if listing is None or not listing.total:
        return []
    lines = [f"## {title} ({listing.total})"]
    shown = listing.items[:limit]
    lines.extend(_cut(render(item)) for item in shown)
    if listing.total > len(shown):
        lines.append(f"- … {listing.total - len(shown)} more")
    return lines


def _cut(line: str) -> str:
    return line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 1] + "…"


def document(blocks: Iterable[Sequence[str]]) -> str:
    """Join sections with blank lines, bounded by MAX_CHARS."""
    text = "\n\n".join("\n".join(block) for block in blocks if block)
    if len(text) > MAX_CHARS:
        text = text[: MAX_CHARS - 40].rsplit("\n", 1)[0] + "\n- … (cut: use format=json for the rest)"
    return text
