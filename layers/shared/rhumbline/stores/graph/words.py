"""Identifier words: CamelCase / snake_case splitting and search-query normalization.

Both graph backends index the same pre-split text and match user queries split the same way, so
`get_object_or_404`, `getObjectOr404` and `QuerySet` are found by `object`, `query set`, ... and
SQLite and Neo4j give identical answers. The backends' own tokenizers only ever see lowercase
alphanumeric words separated by single spaces, which every tokenizer splits the same way (SQLite
`unicode61` and Lucene `whitespace` alike).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
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
    name_lower = name.lower()
    qn_lower = qualified_name.lower()
    qn_words = _qualified_words(qualified_name)
    doc = docstring[:DOCSTRING_INDEX_CHARS] if docstring else None
    doc_words = unique(split_words(doc))
    # The name is usually the qualified name's last part, whose words are already in qn_words.
    # (Case-sensitive: case decides where words split.)
    own_name = qualified_name == name or (
        qualified_name.endswith(name) and not qualified_name[-len(name) - 1].isalnum()
    )
    name_extra = () if own_name else _identifier_words(name)
    all_words = unique([*qn_words, *name_extra, *_path_words(file), *doc_words])
    return NodeText(
        name_lower=name_lower,
        qn_lower=qn_lower,
        qn_rev=qn_lower[::-1],
        name_words=_name_words(name),
        qn_words=" ".join(qn_words),
        words=" ".join(all_words),
        doc_words=" ".join(doc_words),
    )


# A bulk write asks for the words of every node: names repeat (`__init__`, `save`, one import
# statement in many files), and qualified names share their leading parts.
@lru_cache(maxsize=65_536)
def _name_words(name: str) -> str:
    return " ".join(split_words(name))


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
