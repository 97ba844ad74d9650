"""Search text: identifier words, stems, stop words and the per-field terms both backends index.

Both graph backends index the same pre-computed text and match queries processed the same way, so
SQLite and Neo4j find the same nodes. Identifiers split at snake_case, CamelCase, dots and digit
boundaries (`getObjectOr404` -> get object or 404, plus the whole `getobjector404`); every word is
lowercased and reduced to its Snowball stem (`redirects`, `redirected` -> redirect; `validates`,
`EmailValidator` -> valid), so a question's words meet the code's. The backends' own tokenizers
only ever see lowercase letters-and-digits terms separated by single spaces, which every tokenizer
splits the same way (SQLite `unicode61` and Lucene `whitespace` alike).

A node's terms are kept by field, each field weighing differently in the ranking (ranking.py):
`name_terms` (its name), `context_terms` (the rest of its qualified name, its path and its
signature), `doc_terms` (its docstring or document text, in order, stop words left out, so two
adjacent query words can be matched as a phrase), `body_terms` (what its body says: the names it
calls and reads, its comments and string literals, distinct, without the other fields' terms and
at most MAX_BODY_TERMS: what a definition does when its name does not say it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain
from pathlib import PurePosixPath

import Stemmer

# Runs of letters and digits; everything else (underscores, dots, slashes, quotes, operators) separates.
_ALNUM_RUN = re.compile(r"[^\W_]+")
# The same boundaries as _split_case's loop, for ASCII runs: "HTTPServer" -> HTTP, Server.
_ASCII_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")

# Longer queries are rejected rather than silently cut: the caller learns why nothing matched.
MAX_QUERY_CHARS = 500
# A question's distinct terms (stop words left out) that take part in the ranking.
MAX_QUERY_TERMS = 8
# Full-text covers the beginning of a docstring: the summary is what people search for.
DOCSTRING_INDEX_CHARS = 2_000
SIGNATURE_INDEX_CHARS = 500
# A body's distinct terms indexed, in the order the body holds them: bounded so a long function
# costs the index no more than a short one.
MAX_BODY_TERMS = 64

# English function words and question words: they say nothing about which code is meant. Only
# dropped from prose (docstrings, questions), never from names: `get_or_create` keeps its `or`.
STOP_WORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each either else ever few for
    from further had has have having he her here hers herself him himself his how i if in into is it
    its itself just let lets me might more most must my myself no nor not now of off on once only or
    other ought our ours ourselves out over own please same shall she should so some such than that the
    their theirs them themselves then there these they this those through thus to too under until up
    upon us very via was we were what whatever when whenever where whereas wherever whether which
    while who whom whose why will with within without would yet you your yours yourself yourselves
    e g eg ie etc""".split()
)

_STEMMER = Stemmer.Stemmer("english")
# PyStemmer keeps its own cache of stems; this one also spares the call.
_STEMMER.maxCacheSize = 0


@lru_cache(maxsize=131_072)
def stem(word: str) -> str:
    """The Snowball (Porter 2) stem of a lowercase word; digits and short words stay as they are."""
    return word if len(word) < 3 or not word.isalpha() else _STEMMER.stemWord(word)


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


# A node's class for the ranking's prior (ranking.PRIORS): what kind of thing it is, plus
# TEST_CODE when it lives in test code (an agent asking "how" or "where" wants the implementation).
CLASS_DEFINITION, CLASS_MODULE, CLASS_VARIABLE, CLASS_FILE, CLASS_STATEMENT, CLASS_KNOWLEDGE = range(6)
TEST_CODE = 8
PRIVATE = 16  # `_helper`: an implementation detail, rarely what a question is after
DECLARATION = 32  # a declaration without a body (is_declaration, or Node.declaration): under its implementation
REGISTRATION = 64  # only stores a callback it is given (Node.registration): under the code that runs it
_KIND_CLASS = {
    "Module": CLASS_MODULE, "Package": CLASS_MODULE, "Variable": CLASS_VARIABLE, "Constant": CLASS_VARIABLE,
    "Field": CLASS_VARIABLE, "Property": CLASS_VARIABLE, "File": CLASS_FILE, "Directory": CLASS_FILE,
    "Repository": CLASS_FILE, "Import": CLASS_STATEMENT, "Decorator": CLASS_STATEMENT,
    "Document": CLASS_KNOWLEDGE, "WikiPage": CLASS_KNOWLEDGE, "Concept": CLASS_KNOWLEDGE, "Rule": CLASS_KNOWLEDGE,
    "Decision": CLASS_KNOWLEDGE,
}  # fmt: skip
_TEST_DIRECTORIES = frozenset({"test", "tests", "testing", "__tests__", "spec", "specs", "test_utils"})
_TEST_FILE = re.compile(r"^(?:test_.*|.*_tests?\.\w+|.*\.(?:test|spec)\.\w+|conftest\.py|.*_spec\.rb|.*Tests?\.\w+)$")


@dataclass(frozen=True, slots=True)
class NodeText:
    """The derived, indexed text of one node (stored next to it by both backends)."""

    name_lower: str
    qn_lower: str
    qn_rev: str  # reversed qn_lower: a qualified-name suffix search becomes an index prefix scan
    name_words: str  # the name's words, in order, not stemmed: prefix and phrase matching
    name_terms: str
    context_terms: str
    doc_terms: str
    body_terms: str
    doc_len: int  # how many terms doc_terms holds (the ranking's length normalization)
    search_class: int


def node_text(
    kind: str, name: str, qualified_name: str, file: str | None, signature: str | None, docstring: str | None,
    *, body: str | None = None, declaration: bool = False, registration: bool = False, language: str | None = None,
) -> NodeText:
    return NodeText(*node_text_values(
        kind, name, qualified_name, file, signature, docstring, body=body, declaration=declaration,
        registration=registration, language=language,
    ))  # fmt: skip


def node_text_values(
    kind: str, name: str, qualified_name: str, file: str | None, signature: str | None, docstring: str | None,
    *, body: str | None = None, declaration: bool = False, registration: bool = False, language: str | None = None,
) -> tuple[str, str, str, str, str, str, str, str, int, int]:
    """NodeText's fields in order, as a plain tuple (a bulk write asks for every node's). The
    name's, the qualified name's prefix's and the path's terms are cached: the nodes of a file
    share the last two, and names repeat across a graph."""
    qn_lower = qualified_name.lower()
    name_words, name_terms = _name_terms(name)
    sig = _signature_terms(signature) if signature else ()
    context = dict.fromkeys(chain(_prefix_terms(_qualifier(qualified_name, name)), _path_terms(file), sig))
    for term in name_terms:
        context.pop(term, None)
    doc = _prose_terms(docstring[:DOCSTRING_INDEX_CHARS], keep_order=True) if docstring else ()
    said = _body_terms(body, name_terms, context, doc) if body else ""
    klass = search_class(kind, file, name)
    if declaration or is_declaration(kind, file, language, signature):
        klass |= DECLARATION
    if registration:
        klass |= REGISTRATION
    return (
        name.lower(), qn_lower, qn_lower[::-1], name_words, " ".join(name_terms), " ".join(context),
        " ".join(doc), said, len(doc), klass,
    )  # fmt: skip


def _body_terms(body: str, name: Iterable[str], context: Iterable[str], doc: Iterable[str]) -> str:
    """A body's distinct terms that no other field of the node holds, the first MAX_BODY_TERMS."""
    held = {*name, *context, *doc}
    return " ".join([term for term in _prose_terms(body) if term not in held][:MAX_BODY_TERMS])


def search_class(kind: str, file: str | None, name: str) -> int:
    found = _KIND_CLASS.get(kind, CLASS_DEFINITION)
    if found == CLASS_KNOWLEDGE:
        return found
    if _is_test(file, name):
        found |= TEST_CODE
    if name.startswith("_") and not name.endswith("__"):
        found |= PRIVATE
    return found


# Files of declarations only (TypeScript's declaration files, Python's stub files): their
# definitions are signatures whose code is elsewhere.
_DECLARATION_FILE = re.compile(r"\.(?:d\.[cm]?ts|pyi)$")


def is_declaration(kind: str, file: str | None, language: str | None, signature: str | None) -> bool:
    """A declaration without a body: a definition of a declaration-only file, or a method of a Go
    interface (a method with a body is declared with `func`, an interface's method without)."""
    if file and _DECLARATION_FILE.search(file):
        return True
    return kind == "Method" and language == "go" and bool(signature) and not signature.startswith("func")


def _is_test(file: str | None, name: str) -> bool:
    if name.startswith(("test_", "Test")) and not name.startswith("Testing"):
        return True
    return _is_test_path(file) if file else False


@lru_cache(maxsize=8_192)
def _is_test_path(file: str) -> bool:
    parts = PurePosixPath(file).parts
    return any(part.lower() in _TEST_DIRECTORIES for part in parts[:-1]) or bool(_TEST_FILE.match(parts[-1]))


def _qualifier(qualified_name: str, name: str) -> str:
    """The qualified name without its last part (a statement node's `scope[statement]`: its scope)."""
    scope, bracket, _ = qualified_name.partition("[")
    if bracket:
        return scope
    if qualified_name.endswith(name) and len(qualified_name) > len(name):
        return qualified_name[: -len(name)]
    return qualified_name.rpartition(".")[0]


@lru_cache(maxsize=65_536)  # names repeat (`__init__`, `save`, the names imports bind)
def title_key(name: str) -> tuple[str, tuple[str, ...]]:
    """How find_by_name knows a title whatever the case, punctuation or markup it is typed with:
    its letters and digits in order, lowercased (a stored name's name_words without its spaces:
    case splits only add spaces, so `GitHub` and `github` agree), and the stemmed terms of its
    runs of letters and digits, each of which a name holding the run whole has in name_terms."""
    runs = _ALNUM_RUN.findall(name)
    return "".join(split_words(name)), tuple(unique(stem(run.lower()) for run in runs))


@lru_cache(maxsize=65_536)  # names repeat across a graph (`__init__`, `save`, the names imports bind)
def _name_terms(name: str) -> tuple[str, tuple[str, ...]]:
    """(the name's words joined, in order; its distinct stemmed terms, whole identifiers too)."""
    return " ".join(split_words(name)), tuple(unique(stem(w) for w in indexed_words(name)))


@lru_cache(maxsize=16_384)  # a file's nodes share a handful of prefixes (module, classes)
def _prefix_terms(prefix: str) -> tuple[str, ...]:
    return tuple(unique(stem(w) for w in indexed_words(prefix)))


@lru_cache(maxsize=4_096)  # the nodes of one file share its path
def _path_terms(file: str | None) -> tuple[str, ...]:
    return tuple(unique(stem(w) for w in indexed_words(file))) if file else ()


# Statements repeat across a project's files (`from django.db import models`): many of a graph's
# signatures are another node's.
@lru_cache(maxsize=65_536)
def _signature_terms(signature: str) -> tuple[str, ...]:
    return _prose_terms(signature[:SIGNATURE_INDEX_CHARS])


def _prose_terms(text: str, *, keep_order: bool = False) -> tuple[str, ...]:
    """Stemmed terms of prose or code text, stop words left out: in order with repeats
    (`keep_order`: phrases stay adjacent), else distinct."""
    terms = chain.from_iterable(map(_run_terms, _ALNUM_RUN.findall(text)))
    return tuple(terms) if keep_order else tuple(dict.fromkeys(terms))


# Prose repeats its words: one cached step per run of letters and digits (its words, stop words
# left out, stemmed) instead of a lookup and a stem per word.
@lru_cache(maxsize=131_072)
def _run_terms(run: str) -> tuple[str, ...]:
    return tuple(stem(word) for word in _run_words(run) if word not in STOP_WORDS)
