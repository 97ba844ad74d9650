"""Identifier splitting and query normalization shared by both graph backends."""

from __future__ import annotations

import pytest

from rhumbline.stores.graph.words import SearchQuery, indexed_words, match_of, node_text, split_words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("get_object_or_404", ["get", "object", "or", "404"]),
        ("getObjectOr404", ["get", "object", "or", "404"]),
        ("QuerySet", ["query", "set"]),
        ("HTTPServer", ["http", "server"]),
        ("IOError", ["io", "error"]),
        ("iOS", ["i", "os"]),
        ("__init__", ["init"]),
        ("django/db/models/query.py", ["django", "db", "models", "query", "py"]),
        ("sha256sum", ["sha", "256", "sum"]),
        ("CONSTANT_NAME", ["constant", "name"]),
        ("Ärger_über", ["ärger", "über"]),
        ('AND OR ( foo" * :', ["and", "or", "foo"]),
        ("", []),
        (None, []),
    ],
)
def test_split_words(text: str | None, words: list[str]) -> None:
    assert split_words(text) == words


def test_indexed_words_keep_the_whole_identifier_too() -> None:
    assert indexed_words("models.QuerySet") == ["models", "query", "set", "queryset"]
    assert indexed_words("get_object") == ["get", "object"]


def test_node_text() -> None:
    text = node_text(
        "QuerySet",
        "django.db.models.query.QuerySet",
        "django/db/models/query.py",
        "Represent a lazy database lookup for a set of objects.",
    )
    assert text.name_lower == "queryset"
    assert text.qn_lower == "django.db.models.query.queryset"
    assert text.qn_rev == "tesyreuq.yreuq.sledom.bd.ognajd"
    assert text.name_words == "query set"
    assert text.qn_words == "django db models query set queryset"
    assert text.words == (
        "django db models query set queryset py represent a lazy database lookup for of objects"
    )
    assert text.doc_words == "represent a lazy database lookup for set of objects"


def test_node_text_indexes_only_the_start_of_long_docstrings() -> None:
    text = node_text("f", "f", None, "word " * 400 + "needle")
    assert "needle" not in text.words.split()


def test_search_query_normalization() -> None:
    assert SearchQuery.parse("  Query  Set query ") == SearchQuery(
        lower="query  set query", phrase="query set query", terms=("query", "set")
    )
    assert SearchQuery.parse("*") == SearchQuery(lower="*", phrase=None, terms=())
    assert len(SearchQuery.parse(" ".join(f"w{i}" for i in range(40))).terms) == 16


@pytest.mark.parametrize("text", ["", "  \t\n", "x" * 501])
def test_search_query_rejects_empty_and_huge_text(text: str) -> None:
    with pytest.raises(ValueError):
        SearchQuery.parse(text)


@pytest.mark.parametrize(("score", "tier"), [(3.0, "exact"), (2.0, "prefix"), (1.5, "fulltext"), (1.2, "fulltext")])
def test_match_of(score: float, tier: str) -> None:
    assert match_of(score) == tier


def test_node_text_words_hold_the_name_even_when_the_qualified_name_splits_it_otherwise() -> None:
    assert node_text("getX", "m.getX", None, None).words == "m get x getx"
    assert node_text("getX", "m.getx", None, None).words == "m getx get x"
    assert node_text("", "", None, None).words == ""
    assert node_text("", "m.f", None, None).words == "m f"


@pytest.mark.parametrize(
    "qualified_name",
    [
        "django.db.models.query.QuerySet.filter",
        "django.setup[from django.apps import apps]",  # an Import node: dots inside brackets
        "a..b", ".lead", "trail.", "", "noDots", "ça.Été_x.HTTPServer2",
        "pkg.getObjectOr404.pkg",  # a part repeated: kept once, where first seen
    ],
)  # fmt: skip
def test_qualified_words_from_cached_prefixes_equal_splitting_the_whole_name(qualified_name: str) -> None:
    from rhumbline.stores.graph.words import indexed_words, node_text, unique

    # Twice: the second time every prefix comes from the cache.
    for _ in range(2):
        text = node_text("x", qualified_name, None, None)
        assert text.qn_words == " ".join(unique(indexed_words(qualified_name)))


def _reference_node_text(name: str, qualified_name: str, file: str | None, docstring: str | None) -> tuple[str, ...]:
    """node_text as first written: every word list built whole, then made unique."""
    from rhumbline.stores.graph.words import DOCSTRING_INDEX_CHARS, unique

    qn_words = unique(indexed_words(qualified_name))
    doc_words = unique(split_words(docstring[:DOCSTRING_INDEX_CHARS] if docstring else None))
    own_name = qualified_name == name or (
        qualified_name.endswith(name) and not qualified_name[-len(name) - 1].isalnum()
    )
    name_extra = [] if own_name else indexed_words(name)
    words = unique([*qn_words, *name_extra, *indexed_words(file), *doc_words])
    lower = qualified_name.lower()
    return (
        name.lower(), lower, lower[::-1], " ".join(split_words(name)), " ".join(qn_words),
        " ".join(words), " ".join(doc_words),
    )  # fmt: skip


_PREFIXES = ["", "django.db.models.query", "pkg.getObjectOr404", "ça.Été_x", "a..b", "m.HTTPServer2", "x_x"]
_LASTS = ["QuerySet", "__init__", "getX", "x_x_x", "2fa", "Été", "", "query"]
_FILES = [None, "django/db/models/query.py", "pkg/getObjectOr404.py", "a/b c/ça.py"]
_DOCS = [None, "", "Represent a lazy QuerySet lookup, Été x_x.", "word " * 12 + "needle"]  # past the cut (40 characters here)


def _cases() -> list[tuple[str, str, str | None, str | None]]:
    cases = []
    for prefix in _PREFIXES:
        for last in _LASTS:
            for shape in ("dot", "statement", "alone"):
                if shape == "dot":
                    qualified_name, names = f"{prefix}.{last}", [last, last.lower(), "other", ""]
                elif shape == "statement":  # Import and Decorator nodes: scope[text]
                    text = f"from {prefix or 'x'} import {last or 'y'}"
                    qualified_name, names = f"{prefix}[{text}]", [text, f"@{last}", "[x]"]
                else:
                    qualified_name, names = last, [last, "Other"]
                for name in names:
                    for file in _FILES:
                        for doc in _DOCS:
                            cases.append((name, qualified_name, file, doc))
    return cases


def test_node_text_equals_the_reference_on_every_combination_of_tricky_parts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Names own or not, statement nodes, empty parts, non-ASCII words, repeated words, paths
    sharing the prefix's words, docstrings empty, short and cut: twice (the second time from
    the caches)."""
    from rhumbline.stores.graph import words

    monkeypatch.setattr(words, "DOCSTRING_INDEX_CHARS", 40)  # a short cut keeps the test quick
    cases = _cases()
    assert len(cases) > 5_000, len(cases)
    for _ in range(2):
        for case in cases:
            text = words.node_text(*case)
            found = tuple(getattr(text, field) for field in words.NodeText.__slots__)
            assert found == _reference_node_text(*case), case
            assert words.node_text_values(*case) == found
