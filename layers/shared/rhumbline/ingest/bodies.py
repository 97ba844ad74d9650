"""What a definition's own body says, for search: the names it calls and reads, its comments and
string literals (the words its header and docstring do not hold), without the lines of the
definitions nested in it, which have their own.

Read from the source lines each definition spans, the same way for every language (the comment
and string forms of the languages ingested): the text is what the body says whatever the grammar
calls its parts. Language keywords are left out (they say
nothing of what a body does), and each body keeps its first BODY_WORDS distinct words, so a long
function costs the index and the facts no more than a short one.
"""

from __future__ import annotations

import re

from rhumbline.ingest.facts import CodeFacts, Definition

# Distinct words kept per body, in the order the body holds them.
BODY_WORDS = 48
# The text read per body: bounded, so reading bodies stays linear in a file's size whatever its
# shape (one definition of thousands of lines, thousands of definitions on one minified line).
BODY_CHARS = 8_000
LINE_CHARS = 300
# Identifiers and words: a letter or underscore, then letters, digits, underscores.
_WORD = re.compile(r"[^\W\d]\w*")
_KEYWORDS = frozenset(
    """self cls this super return if else elif for while in not and or is none true false null nil
    undefined def func fn function const let var new class struct interface import from as try
    except catch finally raise throw throws with yield await async pass break continue lambda
    static public private protected void int bool string str len type typeof instanceof of do
    switch case default go defer chan map range package export extends implements final override
    readonly enum abstract end then begin elsif unless module require include fun val when object
    where impl pub mut ref match use crate mod dyn""".split()
)
# As written in any of the usual casings (`None`, `True`, `NULL`).
_KEYWORDS = frozenset(spelled for word in _KEYWORDS for spelled in (word, word.title(), word.upper()))


def with_bodies(code: CodeFacts, source: bytes) -> CodeFacts:
    """The facts with each definition's body words (Definition.body) read from `source`."""
    if not code.definitions:
        return code
    lines = [line[:LINE_CHARS] for line in source.decode("utf-8", "replace").split("\n")]
    spans = [(d.start_line, d.end_line) for d in code.definitions]
    children = _children(spans)
    return code._replace(definitions=tuple(
        _with_body(d, lines, _own_lines(spans[i], children[i])) for i, d in enumerate(code.definitions)
    ))  # fmt: skip


def _children(spans: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """For each span, the spans directly nested in it (strictly inside), in source order."""
    children: list[list[tuple[int, int]]] = [[] for _ in spans]
    stack: list[int] = []
    for i in sorted(range(len(spans)), key=lambda i: (spans[i][0], -spans[i][1])):
        start, end = spans[i]
        while stack and spans[stack[-1]][1] < start:
            stack.pop()
        if stack and spans[stack[-1]] != (start, end) and end <= spans[stack[-1]][1]:
            children[stack[-1]].append((start, end))
        stack.append(i)
    return children


def _own_lines(span: tuple[int, int], nested: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The 1-based line ranges of `span` outside the spans `nested` in it."""
    at, end = span
    own: list[tuple[int, int]] = []
    for s, e in nested:
        if s > at:
            own.append((at, s - 1))
        at = max(at, e + 1)
    if at <= end:
        own.append((at, end))
    return own


# What a body does and says: its comments (`#`, `//`, `/*`, a `*` line) and string
# literals, the names it calls (`name(`) and reads off objects (`.name`). Plain local names are
# left out: `i`, `result`, `data` say nothing of what the code does. The last alternative matches
# the text between those in one step (whole words that are not called, and the characters none
# of the others starts with, and line ends not followed by a `*` comment line): the engine then
# tries the alternatives once per match, not once per character or line. It never starts inside a
# word, so it never hides where another alternative begins.
_SAID = re.compile(
    r"(?P<prose>(?:#|//|/\*|(?<![^\n])[ \t]*\*).*$|\"[^\"\n]*\"|'[^'\n]*'|`[^`\n]*`)"
    r"|\.(?P<read>[^\W\d]\w*+)|(?P<call>[^\W\d](?<!\w\w)\w*+)(?=[ \t]*\()"
    r"|(?:\w++(?![ \t]*\()|[^\w\n#/\"'`.]++|\n(?![ \t]*\*))++",
    re.MULTILINE,
)


def _said(text: str, known: set[str]) -> list[str]:
    """The first BODY_WORDS distinct words of `text` outside `known` and the keywords: the names
    called and read first (what the body does), then the words of its prose. The scan stops once
    the names alone fill the bound: nothing after them can be kept."""
    kept: dict[str, None] = {}
    prose: list[str] = []
    for match in _SAID.finditer(text):
        group = match.lastgroup
        if group is None:  # the text between what is said
            continue
        if group == "prose":
            prose.append(match[group])
        elif (name := match[group]) not in known and name not in _KEYWORDS:
            kept[name] = None
            if len(kept) == BODY_WORDS:
                return list(kept)
    for said in prose:
        for word in _WORD.findall(said):
            if word not in known and word not in _KEYWORDS:
                kept[word] = None
                if len(kept) == BODY_WORDS:
                    return list(kept)
    return list(kept)


def _text(lines: list[str], own: list[tuple[int, int]]) -> str:
    """The beginning of the own lines' text, BODY_CHARS in all (`lines` are cut to LINE_CHARS:
    a minified file's one line holds many definitions, each reads only a part of it)."""
    kept: list[str] = []
    size = 0
    for start, end in own:
        part = lines[start - 1 : end]
        block = "\n".join(part)
        if part and size + len(block) + 1 < BODY_CHARS:  # the whole range fits: joined at once
            kept.append(block)
            size += len(block) + 1
            continue
        for line in part:
            kept.append(line)
            size += len(line) + 1
            if size >= BODY_CHARS:
                return "\n".join(kept)
    return "\n".join(kept)


def _with_body(definition: Definition, lines: list[str], own: list[tuple[int, int]]) -> Definition:
    known = {definition.name, *_WORD.findall(definition.signature), *_WORD.findall(definition.docstring or "")}
    kept = _said(_text(lines, own), known)
    return definition._replace(body=" ".join(kept)) if kept else definition
