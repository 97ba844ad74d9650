"""Phase-1 facts of one document (Markdown, reStructuredText): headings, their text, links and inline code mentions.

Plain NamedTuples like rhumbline/ingest/facts.py, so they pickle to the parser pool and into the
incremental cache. A Markdown SourceFile carries a DocFacts as its `code`.
"""

from __future__ import annotations

from typing import NamedTuple


class Section(NamedTuple):
    level: int  # heading level, 1-6
    title: str  # heading text with inline markup removed
    anchor: str  # GitHub-style slug, unique within the document (`install`, `install-1`)
    parent: int  # index of the enclosing section in DocFacts.sections; -1 at the top
    start_line: int  # the heading's line (1-based)
    end_line: int  # last line before the next heading of the same or a higher level
    text: str  # the section's own text, up to its first subsection: collapsed, capped
    content_hash: str  # sha256 of the section's own text, uncapped
    rule_items: int  # list items holding an RFC 2119 keyword in capitals (MUST, SHALL NOT, ...)


class Reference(NamedTuple):
    section: int  # index of the innermost enclosing section, -1 before the first one
    line: int
    kind: str  # "link" (a Markdown link's destination) or "code" (an inline code span's text)
    target: str
    text: str  # the link text, or the code span again


class DocFacts(NamedTuple):
    title: str | None  # front matter `title:`, else the only level-1 heading when it comes first
    intro: str  # text before the first section (the title heading's own text): collapsed, capped
    sections: tuple[Section, ...]
    references: tuple[Reference, ...]
    status: str | None  # ADR status: a "Status" section's first line, or a `Status:` line
    syntax_errors: bool = False  # Markdown has none; here so summaries treat every parse alike
    language: str = "markdown"  # or "restructuredtext"
