"""search and find_by_name: identical ranking, scores and totals on SQLite and Neo4j.

Scores: exact name or qualified name 3.0; name prefix or consecutive name words 2.0; every query
word among the node's words 1 + s/(1+s), s = mean over query words of 1 (word of the name),
0.5 (of the qualified name) or 0.25 (path or docstring only). Ties: shorter qualified name, id.
"""

from __future__ import annotations

import pytest

from rhumbline.stores.graph.model import GraphBatch, Node
from rhumbline.stores.graph.protocol import GraphStore
from tests.functional.stores.graph.graph_samples import (
    FILTER,
    GET,
    GET_LIST,
    GET_OBJECT_OR_404,
    GET_OBJECT_OR_404_CAMEL,
    HTTP_404,
    HTTP_RESPONSE,
    QUERY_SET,
    RENDER,
    SEARCH_CORPUS,
    node,
)

ONE_THIRD = 1 + 0.5 / 1.5  # s = 0.5: every query word is a word of the qualified name


@pytest.fixture
def corpus(graph_store: GraphStore, project: str) -> GraphStore:
    graph_store.apply(project, GraphBatch(nodes=SEARCH_CORPUS))
    return graph_store


def ranked(store: GraphStore, projects: list[str], query: str, **options: object) -> tuple[list, int]:
    hits, total = store.search(projects, query, **options)  # type: ignore[arg-type]
    return [(h.node.id, h.score, h.match) for h in hits], total


def test_exact_beats_prefix_beats_fulltext(corpus: GraphStore, project: str) -> None:
    assert ranked(corpus, [project], "get") == (
        [
            (GET.id, 3.0, "exact"),
            (GET_LIST.id, 2.0, "prefix"),  # pkg.http.get_list: shortest qualified name
            (GET_OBJECT_OR_404_CAMEL.id, 2.0, "prefix"),
            (GET_OBJECT_OR_404.id, 2.0, "prefix"),
            (HTTP_RESPONSE.id, 1.2, "fulltext"),  # "get" only in its docstring: s = 0.25
        ],
        5,
    )


def test_matching_ignores_case(corpus: GraphStore, project: str) -> None:
    assert ranked(corpus, [project], "GET") == ranked(corpus, [project], "get")
    assert ranked(corpus, [project], "queryset") == (
        [(QUERY_SET.id, 3.0, "exact"), (GET.id, ONE_THIRD, "fulltext"), (FILTER.id, ONE_THIRD, "fulltext")],
        3,
    )


def test_exact_match_on_the_full_qualified_name(corpus: GraphStore, project: str) -> None:
    assert ranked(corpus, [project], "PKG.QUERY.QUERYSET.FILTER") == ([(FILTER.id, 3.0, "exact")], 1)


def test_snake_and_camel_case_words_are_found(corpus: GraphStore, project: str) -> None:
    assert ranked(corpus, [project], "object") == (
        [
            (GET_OBJECT_OR_404_CAMEL.id, 2.0, "prefix"),
            (GET_OBJECT_OR_404.id, 2.0, "prefix"),
            (GET.id, 1.2, "fulltext"),  # "a single object" in its docstring
        ],
        3,
    )
    assert ranked(corpus, [project], "query set") == (
        [(QUERY_SET.id, 2.0, "prefix"), (GET.id, ONE_THIRD, "fulltext"), (FILTER.id, ONE_THIRD, "fulltext")],
        3,
    )
    assert ranked(corpus, [project], "get_obj") == (
        [(GET_OBJECT_OR_404_CAMEL.id, 2.0, "prefix"), (GET_OBJECT_OR_404.id, 2.0, "prefix")],
        2,
    )
    # "get" is its name (1), "object" in its docstring (0.25): s = 0.625.
    assert ranked(corpus, [project], "getObject") == (
        [
            (GET_OBJECT_OR_404_CAMEL.id, 2.0, "prefix"),
            (GET_OBJECT_OR_404.id, 2.0, "prefix"),
            (GET.id, 1 + 0.625 / 1.625, "fulltext"),
        ],
        3,
    )


def test_fulltext_relevance_orders_before_length(corpus: GraphStore, project: str) -> None:
    # HttpResponse has both words in its name (s = 1); render has "http" in its qualified name
    # and "response" in its docstring (s = 0.375), and a shorter qualified name.
    assert ranked(corpus, [project], "response http") == (
        [(HTTP_RESPONSE.id, 1.5, "fulltext"), (RENDER.id, 1 + 0.375 / 1.375, "fulltext")],
        2,
    )
    assert ranked(corpus, [project], "http response") == (
        [(HTTP_RESPONSE.id, 2.0, "prefix"), (RENDER.id, 1 + 0.375 / 1.375, "fulltext")],
        2,
    )
    assert ranked(corpus, [project], "Http404") == (
        [(HTTP_404.id, 3.0, "exact"), (GET_OBJECT_OR_404.id, 1 + 0.625 / 1.625, "fulltext")],
        2,
    )


def test_equal_scores_break_on_qualified_name_length(corpus: GraphStore, project: str) -> None:
    assert ranked(corpus, [project], "return") == (
        [(GET.id, 1.2, "fulltext"), (FILTER.id, 1.2, "fulltext"), (GET_OBJECT_OR_404.id, 1.2, "fulltext")],
        3,
    )


def test_kinds_filter_and_limit_keep_the_exact_total(corpus: GraphStore, project: str) -> None:
    assert ranked(corpus, [project], "get", kinds=["Function"]) == (
        [
            (GET_LIST.id, 2.0, "prefix"),
            (GET_OBJECT_OR_404_CAMEL.id, 2.0, "prefix"),
            (GET_OBJECT_OR_404.id, 2.0, "prefix"),
        ],
        3,
    )
    assert ranked(corpus, [project], "get", kinds=["Class", "Module"]) == (
        [(HTTP_RESPONSE.id, 1.2, "fulltext")],
        1,
    )
    assert ranked(corpus, [project], "get", kinds=[]) == ([], 0)
    assert ranked(corpus, [project], "get", limit=2) == (
        [(GET.id, 3.0, "exact"), (GET_LIST.id, 2.0, "prefix")],
        5,
    )


def test_docs_only_keeps_nodes_whose_docstring_holds_every_word(
    corpus: GraphStore, project: str
) -> None:
    assert ranked(corpus, [project], "get", docs_only=True) == (
        [(GET_OBJECT_OR_404.id, 2.0, "prefix"), (HTTP_RESPONSE.id, 1.2, "fulltext")],
        2,
    )
    assert ranked(corpus, [project], "*", docs_only=True) == ([], 0)


def test_several_projects_are_merged_by_score(
    corpus: GraphStore, project: str, other_project: str
) -> None:
    short_get = node("Function", "other.get", "other.py")
    corpus.apply(other_project, GraphBatch(nodes=[short_get]))

    hits, total = corpus.search([project, other_project], "get")
    assert total == 6
    assert [(h.project, h.node.id, h.score) for h in hits] == [
        (other_project, short_get.id, 3.0),
        (project, GET.id, 3.0),
        (project, GET_LIST.id, 2.0),
        (project, GET_OBJECT_OR_404_CAMEL.id, 2.0),
        (project, GET_OBJECT_OR_404.id, 2.0),
        (project, HTTP_RESPONSE.id, 1.2),
    ]
    assert hits[0].node == short_get
    assert ranked(corpus, [other_project], "get") == ([(short_get.id, 3.0, "exact")], 1)
    assert ranked(corpus, [], "get") == ([], 0)


@pytest.mark.parametrize(
    "query", ['foo"', "AND OR (", "*", ":", "NEAR(a b)", '"', "\\", "a:b", "-x", "^2", "col : x", "{x}"]
)
def test_query_syntax_in_user_text_is_never_interpreted(
    corpus: GraphStore, project: str, query: str
) -> None:
    assert ranked(corpus, [project], query) == ([], 0)


def test_odd_names_match_exactly(graph_store: GraphStore, project: str) -> None:
    quoted = Node(id='variable:q.py:foo"', kind="Variable", name='foo"', qualified_name='q.foo"')
    dunder = Node(id="method:q.py:A.__add__", kind="Method", name="__add__", qualified_name="q.A.__add__")
    graph_store.apply(project, GraphBatch(nodes=[quoted, dunder]))

    assert ranked(graph_store, [project], 'foo"') == ([(quoted.id, 3.0, "exact")], 1)
    assert ranked(graph_store, [project], "__ADD__") == ([(dunder.id, 3.0, "exact")], 1)
    assert ranked(graph_store, [project], "add") == ([(dunder.id, 2.0, "prefix")], 1)


@pytest.mark.parametrize("query", ["", "   ", "\n\t", "x" * 501])
def test_empty_or_huge_queries_are_rejected(graph_store: GraphStore, project: str, query: str) -> None:
    with pytest.raises(ValueError):
        graph_store.search([project], query)


@pytest.mark.parametrize("limit", [0, 1001])
def test_search_limit_is_bounded(graph_store: GraphStore, project: str, limit: int) -> None:
    with pytest.raises(ValueError, match="limit"):
        graph_store.search([project], "get", limit=limit)


def test_find_by_name_matches_names_qualified_names_and_dotted_suffixes(
    corpus: GraphStore, project: str
) -> None:
    assert corpus.find_by_name(project, "QuerySet.filter") == ([FILTER], 1)
    assert corpus.find_by_name(project, "query.QuerySet.get") == ([GET], 1)
    assert corpus.find_by_name(project, "PKG.QUERY.QUERYSET") == ([QUERY_SET], 1)
    assert corpus.find_by_name(project, "queryset") == ([QUERY_SET], 1)
    assert corpus.find_by_name(project, "get") == ([GET], 1)
    # A suffix counts only on a dot boundary.
    assert corpus.find_by_name(project, "ry.QuerySet.get") == ([], 0)
    assert corpus.find_by_name(project, "pkg.http") == ([], 0)
    assert corpus.find_by_name(project, "get", kinds=["Function"]) == ([], 0)


def test_find_by_name_orders_by_qualified_name_length_with_exact_total(
    graph_store: GraphStore, project: str, other_project: str
) -> None:
    runs = [node("Function", "b.c.run", "b.py"), node("Function", "run", "r.py"), node("Method", "a.run", "a.py")]
    graph_store.apply(project, GraphBatch(nodes=runs))
    graph_store.apply(other_project, GraphBatch(nodes=[node("Function", "run", "r.py")]))

    assert graph_store.find_by_name(project, "run", limit=2) == ([runs[1], runs[2]], 3)
    assert graph_store.find_by_name(project, "run", kinds=["Function"]) == ([runs[1], runs[0]], 2)
    with pytest.raises(ValueError):
        graph_store.find_by_name(project, "  ")
