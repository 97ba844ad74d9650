"""Search text and query plans shared by both graph backends (words.py, ranking.py)."""

from __future__ import annotations

import pytest

from rhumbline.stores.graph.ranking import SearchPlan, match_of
from rhumbline.stores.graph.words import indexed_words, node_text, split_words, stem


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
        "Class", "QuerySet", "django.db.models.query.QuerySet", "django/db/models/query.py",
        "class QuerySet(AltersData)", "Represent a lazy database lookup for a set of objects.",
    )  # fmt: skip
    assert text.name_lower == "queryset"
    assert text.qn_lower == "django.db.models.query.queryset"
    assert text.qn_rev == "tesyreuq.yreuq.sledom.bd.ognajd"
    assert text.name_words == "query set"
    assert text.name_terms == "queri set queryset"
    # The qualifier's, the path's and the signature's terms the name lacks, once each.
    assert text.context_terms == "django db model py class alter data altersdata"
    # In order, stop words left out, stemmed: "objects" meets "object".
    assert text.doc_terms == "repres lazi databas lookup set object"
    assert (text.doc_len, text.search_class) == (6, 0)


def test_stems_meet_across_forms() -> None:
    assert {stem(w) for w in ("redirect", "redirects", "redirected", "redirecting")} == {"redirect"}
    assert stem("validates") == stem("validator") == stem("validation")
    assert stem("404") == "404" and stem("db") == "db"


def test_test_code_and_kinds_weigh_in_the_class() -> None:
    assert node_text("Function", "test_x", "tests.test_a.test_x", "tests/test_a.py", None, None).search_class == 8
    assert node_text("Function", "helper", "conftest.helper", "conftest.py", None, None).search_class == 8
    assert node_text("Import", "os", "a[import os]", "a.py", None, None).search_class == 4
    assert node_text("Document", "Testing", "docs/testing.md", "docs/testing.md", None, None).search_class == 5
    assert node_text("Method", "latest", "pkg.A.latest", "pkg/a.py", None, None).search_class == 0


def test_node_text_indexes_only_the_start_of_long_docstrings() -> None:
    text = node_text("Function", "f", "f", None, None, "word " * 600 + "needle")
    assert "needl" not in text.doc_terms.split()


def test_search_plan() -> None:
    plan = SearchPlan.parse("  How are passwords hashed for storage? ")
    assert (plan.typed, plan.lower) == ("How are passwords hashed for storage?", "how are passwords hashed for storage?")
    assert plan.phrase == "how are passwords hashed for storage"
    # Stop words left out, stems, a synonym group for "password".
    assert plan.groups == (("password", "pwd", "passwd"), ("hash",), ("storag",))
    assert plan.pairs == ((0, 1), (1, 2))
    assert [(p.field, p.needles) for p in plan.probes][-2:] == [("doc_terms", ("password hash",)), ("doc_terms", ("hash storag",))]
    assert SearchPlan.parse("*").groups == ()
    # A query of stop words only means its words.
    assert SearchPlan.parse("all").groups == (("all",),)
    assert len(SearchPlan.parse(" ".join(f"w{i}" for i in range(40))).groups) == 8


@pytest.mark.parametrize("text", ["", "  \t\n", "x" * 501])
def test_search_plan_rejects_empty_and_huge_text(text: str) -> None:
    with pytest.raises(ValueError):
        SearchPlan.parse(text)


@pytest.mark.parametrize(("score", "tier"), [(3.5, "exact"), (3.0, "exact"), (2.0, "prefix"), (1.5, "fulltext"), (1.2, "fulltext")])
def test_match_of(score: float, tier: str) -> None:
    assert match_of(score) == tier
