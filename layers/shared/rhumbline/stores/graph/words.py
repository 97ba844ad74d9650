"""Identifier words: CamelCase / snake_case splitting and search-query normalization.

Both graph backends index the same pre-split text and match user queries split the same way, so
`get_object_or_404`, `getObjectOr404` and `QuerySet` are found by `object`, `query set`, ... and
SQLite and Neo4j give identical answers. The backends' own tokenizers only ever see lowercase
alphanumeric words separated by single spaces, which every tokenizer splits the same way (SQLite
`unicode61` and Lucene `whitespace` alike).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

# Runs of letters and digits; everything else (underscores, dots, slashes, quotes, operators) separates.
_ALNUM_RUN = re.compile(r"[^\W_]+")
# The same boundaries as _split_case's loop, for ASCII runs: "HTTPServer" -> HTTP, Server.
_ASCII_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")

# Longer queries are rejected rather than silently cut: the caller learns why nothing matched.
MAX_QUERY_CHARS = 500
# Full-text relevance looks at this many distinct query words; more add nothing useful.
MAX_QUERY_TERMS = 16
# Full-text covers the beginning of a docstring: the summary is what people search for.
DOCSTRING_INDEX_CHARS = 2_000


def split_words(text: str | None) -> list[str]:
    """Lowercase words of an identifier, path or prose, in order (duplicates kept).

    `getObjectOr404` -> get object or 404; `HTTPServer` -> http server; `a/b_c.py` -> a b c py.
    """
    if not text:
        return []
    if text.isascii():  # one regex pass (its parts never span a separator), then C-level string ops
        return " ".join(_ASCII_PART.findall(text)).lower().split()
    return [part.lower() for run in _ALNUM_RUN.findall(text) for part in _split_case(run)]


def indexed_words(text: str | None) -> list[str]:
    """split_words plus each whole identifier that was split, so `queryset` finds `QuerySet` too."""
    if not text:
        return []
    words: list[str] = []
    for run in _ALNUM_RUN.findall(text):
        words.extend(_run_words(run))
    return words


# Qualified names and paths repeat their leading parts (packages, modules, classes) across the
# nodes of a file: caching per run makes indexing a bulk load several times faster.
@lru_cache(maxsize=65_536)
def _run_words(run: str) -> tuple[str, ...]:
    parts = tuple(part.lower() for part in _split_case(run))
    return (*parts, run.lower()) if len(parts) > 1 else parts


def _split_case(run: str) -> list[str]:
    """Parts of one letters-and-digits run at case and digit boundaries."""
    if run.islower() and run.isalpha():  # most prose words: nothing to split
        return [run]
    if run.isascii():  # the usual identifier: one regex pass
        return _ASCII_PART.findall(run)
    parts: list[str] = []
    start = 0
    for i in range(1, len(run)):
        prev, cur = run[i - 1], run[i]
        digit_edge = prev.isdigit() != cur.isdigit()
        # "getObject": a capital after a non-capital starts a word.
        camel_edge = cur.isupper() and not prev.isupper()
        # "HTTPServer": the last capital of a run starts the next word when a lowercase follows.
        acronym_edge = (
            prev.isupper() and cur.isupper() and i + 1 < len(run) and run[i + 1].islower()
        )
        if digit_edge or camel_edge or acronym_edge:
            parts.append(run[start:i])
            start = i
    parts.append(run[start:])
    return parts


def unique(words: Iterable[str]) -> list[str]:
    """Words in first-seen order without repeats."""
    return list(dict.fromkeys(words))


@dataclass(frozen=True, slots=True)
class NodeText:
    """The derived, indexed text of one node (stored next to it by both backends)."""

    name_lower: str
    qn_lower: str
    qn_rev: str  # reversed qn_lower: a qualified-name suffix search becomes an index prefix scan
    name_words: str  # in order, so a multi-word query can match consecutive words of the name
    qn_words: str  # distinct, with whole identifiers too (see indexed_words)
    words: str  # everything searchable: name, qualified name, file path, docstring start
    doc_words: str  # the docstring start alone, for searches restricted to documentation


def node_text(
    name: str, qualified_name: str, file: str | None, docstring: str | None
) -> NodeText:
    return NodeText(*node_text_values(name, qualified_name, file, docstring))


def _extend(joined: str, more: Sequence[str]) -> str:
    """`joined` (space-separated words, possibly empty) followed by `more`'s words."""
    if not more:
        return joined
    return joined + " " + " ".join(more) if joined else " ".join(more)


def node_text_values(
    name: str, qualified_name: str, file: str | None, docstring: str | None
) -> tuple[str, str, str, str, str, str, str]:
    """NodeText's fields in order, as a plain tuple: a bulk write asks for every node's (sdist:
    77k), and a frozen dataclass costs as much to build as the cheap nodes' words.

    The qualified name's words are its prefix's (cached: the file's or class's nodes share it)
    followed by its last part's that the prefix lacks; for the usual node (its name is that last
    part, no docstring) the searchable words are those plus the path's that neither has, the
    path's remainder after the prefix being cached too. Identical to unique() over the whole
    (tests/unit/stores/graph/test_graph_words.py compares it with that straightforward version;
    tests/functional/ingest/test_ingest_identity.py)."""
    qn_lower = qualified_name.lower()
    prefix, last = _split_last(qualified_name)
    prefix_words, prefix_joined, prefix_set = _prefix_info(prefix)
    name_words, name_identifiers = _name_parts(name)
    # A statement node's last part is its name and the closing bracket: the same words (the
    # bracket only separates), split once.
    statement = last == name + "]"
    last_words = name_identifiers if statement or last == name else _identifier_words(last)
    added = [w for w in dict.fromkeys(last_words) if w not in prefix_set]
    qn_joined = _extend(prefix_joined, added)
    # The name is usually the qualified name's last part, whose words are already in qn_words.
    # (Case-sensitive: case decides where words split.)
    own_name = qualified_name == name or (
        qualified_name.endswith(name) and not qualified_name[-len(name) - 1].isalnum()
    )
    # A statement node's name words are all in qn_words already, as an own name's are.
    if (own_name or statement) and not docstring:
        tail = _path_after(prefix, file)
        if added:
            tail = [w for w in tail if w not in added]
        words = _extend(qn_joined, tail)
        doc_joined = ""
    else:
        doc_words = unique(split_words(docstring[:DOCSTRING_INDEX_CHARS])) if docstring else []
        name_extra = () if own_name else name_identifiers
        qn_words = [*prefix_words, *added]
        words = " ".join(unique([*qn_words, *name_extra, *_path_words(file), *doc_words]))
        doc_joined = " ".join(doc_words)
    return (
        name.lower(), qn_lower, qn_lower[::-1], name_words, qn_joined, words, doc_joined
    )  # fmt: skip


def _split_last(qualified_name: str) -> tuple[str, str]:
    """(prefix, last part): a statement node's `scope[statement]` splits at its first bracket,
    anything else at its last dot; a bracket or a dot always separates word runs, so the words
    of the whole are the prefix's followed by the last part's."""
    scope, bracket, statement = qualified_name.partition("[")
    if bracket:
        return scope, statement
    prefix, _, last = qualified_name.rpartition(".")
    return prefix, last


# Names repeat (`__init__`, `save`, one import statement in many files).
@lru_cache(maxsize=65_536)
def _name_parts(name: str) -> tuple[str, tuple[str, ...]]:
    """(split_words(name) joined, indexed_words(name)) from one pass over its runs: the second
    is the first with each run's whole word after its parts when it has several."""
    parts: list[str] = []
    identifiers: list[str] = []
    for run in _ALNUM_RUN.findall(name):
        words = _run_words(run)
        identifiers.extend(words)
        parts.extend(words[:-1] if len(words) > 1 else words)
    return " ".join(parts), tuple(identifiers)


@lru_cache(maxsize=16_384)
def _prefix_info(prefix: str) -> tuple[tuple[str, ...], str, frozenset[str]]:
    words = _prefix_words(prefix)
    return words, " ".join(words), frozenset(words)


@lru_cache(maxsize=16_384)  # a file's nodes share a handful of prefixes (module, classes)
def _path_after(prefix: str, file: str | None) -> tuple[str, ...]:
    """The path's distinct words that the prefix's words lack, in order."""
    prefix_set = _prefix_info(prefix)[2]
    return tuple(w for w in dict.fromkeys(_path_words(file)) if w not in prefix_set)


def _qualified_words(qualified_name: str) -> list[str]:
    """unique(indexed_words(qualified_name)), from cached words of its parts: a dot or a bracket
    always separates runs, so the words of `a.b` are those of `a` followed by those of `b`.
    A statement node's `scope[statement]` splits at the bracket: the scope is shared by the
    file's statements, the statement text by every file with the same one."""
    scope, bracket, statement = qualified_name.partition("[")
    if bracket:
        return unique([*_prefix_words(scope), *_identifier_words(statement)])
    prefix, dot, last = qualified_name.rpartition(".")
    if not dot:
        return unique(_identifier_words(qualified_name))
    return unique([*_prefix_words(prefix), *_identifier_words(last)])


@lru_cache(maxsize=16_384)
def _prefix_words(prefix: str) -> tuple[str, ...]:
    return tuple(_qualified_words(prefix))


# Names repeat across a graph (`__init__`, `save`, `get`, the names an import binds).
@lru_cache(maxsize=65_536)
def _identifier_words(name: str) -> tuple[str, ...]:
    return tuple(indexed_words(name))


@lru_cache(maxsize=4_096)  # the nodes of one file share its path
def _path_words(file: str | None) -> tuple[str, ...]:
    return tuple(indexed_words(file))


@dataclass(frozen=True, slots=True)
class SearchQuery:
    """A user's search text, normalized once for every tier of the ranking.

    Tiers (never overlapping): exact name or qualified name 3.0; name prefix, or consecutive name
    words starting with the query's words, 2.0; every query word among the node's words
    1.0 + relevance in [0, 1).
    """

    lower: str  # for exact and name-prefix matching
    phrase: str | None  # query words joined by spaces; None when the query has no words
    terms: tuple[str, ...]  # distinct query words for full-text matching

    @classmethod
    def parse(cls, text: str) -> SearchQuery:
        stripped = text.strip()
        if not stripped:
            raise ValueError("search query is empty")
        if len(stripped) > MAX_QUERY_CHARS:
            raise ValueError(f"search query is longer than {MAX_QUERY_CHARS} characters")
        words = split_words(stripped)
        return cls(
            lower=stripped.lower(),
            phrase=" ".join(words) or None,
            terms=tuple(unique(words)[:MAX_QUERY_TERMS]),
        )


# Full-text relevance: each query word weighs 1 if it is a word of the name, 0.5 if of the
# qualified name, 0.25 if only of the path or docstring; s = mean weight in (0, 1], and the
# relevance s / (1 + s) lies in [0.2, 0.5] so the full-text tier (1.2..1.5) never reaches prefix.
# Both backends compute exactly this expression in their query language.
WEIGHT_NAME = 1.0
WEIGHT_QUALIFIED_NAME = 0.5
WEIGHT_OTHER = 0.25
SCORE_EXACT = 3.0
SCORE_PREFIX = 2.0
SCORE_FULLTEXT = 1.0


def match_of(score: float) -> Literal["exact", "prefix", "fulltext"]:
    """The tier a score belongs to."""
    if score >= SCORE_EXACT:
        return "exact"
    if score >= SCORE_PREFIX:
        return "prefix"
    return "fulltext"
