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
