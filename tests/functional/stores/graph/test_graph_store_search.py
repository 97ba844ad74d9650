"""search and find_by_name: identical ranking, tiers and totals on SQLite and Neo4j.

Ranking (rhumbline/stores/graph/ranking.py): exact name or qualified name (3, and 3.5 spelled as
typed) > name prefix or the query's words consecutive in the name (2) > any query word matched (1),
each tier ordered by BM25-style relevance over stemmed name, context and doc terms; ties: shorter
qualified name, id. The scores themselves are compared across the two backends by
test_both_backends_score_alike (tests/functional/stores/graph/neo4j).
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
    edge,
    node,
)


@pytest.fixture
def corpus(graph_store: GraphStore, project: str) -> GraphStore:
    graph_store.apply(project, GraphBatch(nodes=SEARCH_CORPUS))
    return graph_store


def ranked(store: GraphStore, projects: list[str], query: str, **options: object) -> tuple[list, int]:
    hits, total = store.search(projects, query, **options)  # type: ignore[arg-type]
    return [(h.node.id, h.match) for h in hits], total


def test_exact_beats_prefix_beats_fulltext(corpus: GraphStore, project: str) -> None:
    assert ranked(corpus, [project], "get") == (
        [
            (GET.id, "exact"),
            (GET_OBJECT_OR_404.id, "prefix"),  # its docstring says "get" too
            (GET_LIST.id, "prefix"),
            (GET_OBJECT_OR_404_CAMEL.id, "prefix"),
            (HTTP_RESPONSE.id, "fulltext"),  # "get" only in its docstring
        ],
        5,
    )


def test_matching_ignores_case_but_the_spelling_typed_wins(corpus: GraphStore, project: str) -> None:
    assert ranked(corpus, [project], "GET")[0] == ranked(corpus, [project], "get")[0]
    lower = corpus.search([project], "queryset")[0]
    typed = corpus.search([project], "QuerySet")[0]
    assert (lower[0].node.id, lower[0].match, typed[0].node.id, typed[0].match) == (
        QUERY_SET.id, "exact", QUERY_SET.id, "exact"
    )
    assert typed[0].score > lower[0].score  # spelled as typed


def test_exact_match_on_the_full_qualified_name(corpus: GraphStore, project: str) -> None:
    assert ranked(corpus, [project], "PKG.QUERY.QUERYSET.FILTER")[0][0] == (FILTER.id, "exact")


def test_snake_and_camel_case_words_are_found(corpus: GraphStore, project: str) -> None:
    found, _ = ranked(corpus, [project], "object")
    assert found[:2] == [(GET_OBJECT_OR_404.id, "prefix"), (GET_OBJECT_OR_404_CAMEL.id, "prefix")]
    assert {GET.id, QUERY_SET.id} <= {node_id for node_id, _ in found[2:]}  # "object(s)" in their docstrings
    # A name whose words are the query's is an exact match: `query set` is QuerySet.
    assert ranked(corpus, [project], "query set")[0][0] == (QUERY_SET.id, "exact")
    assert ranked(corpus, [project], "get_obj")[0][:2] == [
        (GET_OBJECT_OR_404.id, "prefix"), (GET_OBJECT_OR_404_CAMEL.id, "prefix"),
    ]  # fmt: skip
    assert ranked(corpus, [project], "getObject")[0][:2] == [
        (GET_OBJECT_OR_404.id, "prefix"), (GET_OBJECT_OR_404_CAMEL.id, "prefix"),
    ]  # fmt: skip


def test_words_in_any_order_and_any_field_rank_by_relevance(corpus: GraphStore, project: str) -> None:
    # HttpResponse has both words in its name; render has "response" in its docstring and "http"
    # in its qualified name.
    assert ranked(corpus, [project], "response http")[0][:2] == [
        (HTTP_RESPONSE.id, "fulltext"), (RENDER.id, "fulltext"),
    ]  # fmt: skip
    assert ranked(corpus, [project], "http response")[0][:2] == [(HTTP_RESPONSE.id, "exact"), (RENDER.id, "fulltext")]
    assert ranked(corpus, [project], "Http404")[0][:2] == [(HTTP_404.id, "exact"), (GET_OBJECT_OR_404.id, "fulltext")]


def test_a_question_in_words_finds_its_answer(corpus: GraphStore, project: str) -> None:
    # Stop words left out, "objects" stemmed to "object", any word enough (OR).
    assert ranked(corpus, [project], "how do I return a single object from the database?")[0][0] == (GET.id, "fulltext")
    assert ranked(corpus, [project], "page not found") == ([(HTTP_404.id, "fulltext")], 1)
    assert ranked(corpus, [project], "objects")[0][0][0] == GET_OBJECT_OR_404.id


def test_equal_relevance_breaks_on_qualified_name_length(corpus: GraphStore, project: str) -> None:
    assert [node_id for node_id, _ in ranked(corpus, [project], "a lookup")[0]] == [QUERY_SET.id]
    hits, _ = corpus.search([project], "content template")  # one word each, in docstrings of like length
    assert [h.node.id for h in hits] == [RENDER.id, HTTP_RESPONSE.id] or hits[0].score != hits[1].score


def test_kinds_filter_and_limit_keep_the_exact_total(corpus: GraphStore, project: str) -> None:
    assert ranked(corpus, [project], "get", kinds=["Function"]) == (
        [
            (GET_OBJECT_OR_404.id, "prefix"),
            (GET_LIST.id, "prefix"),
            (GET_OBJECT_OR_404_CAMEL.id, "prefix"),
        ],
        3,
    )
    assert ranked(corpus, [project], "get", kinds=["Class", "Module"]) == ([(HTTP_RESPONSE.id, "fulltext")], 1)
    assert ranked(corpus, [project], "get", kinds=[]) == ([], 0)
    assert ranked(corpus, [project], "get", limit=2) == ([(GET.id, "exact"), (GET_OBJECT_OR_404.id, "prefix")], 5)


def test_docs_only_keeps_nodes_whose_docstring_holds_a_query_word(corpus: GraphStore, project: str) -> None:
    assert ranked(corpus, [project], "get", docs_only=True) == (
        [(GET_OBJECT_OR_404.id, "prefix"), (HTTP_RESPONSE.id, "fulltext")],
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
    assert [(h.project, h.node.id, h.match) for h in hits] == [
        (other_project, short_get.id, "exact"),  # shorter qualified name
        (project, GET.id, "exact"),
        (project, GET_OBJECT_OR_404.id, "prefix"),
        (project, GET_LIST.id, "prefix"),
        (project, GET_OBJECT_OR_404_CAMEL.id, "prefix"),
        (project, HTTP_RESPONSE.id, "fulltext"),
    ]
    assert hits[0].node == short_get
    assert ranked(corpus, [other_project], "get") == ([(short_get.id, "exact")], 1)
    assert ranked(corpus, [], "get") == ([], 0)


@pytest.mark.parametrize("query", ["*", ":", '"', "\\", "^2", "{}", "(", "-"])
def test_query_syntax_in_user_text_is_never_interpreted(corpus: GraphStore, project: str, query: str) -> None:
    assert ranked(corpus, [project], query) == ([], 0)


@pytest.mark.parametrize(
    ("query", "words"),
    [('foo"', "foo"), ("AND OR (", "and or"), ("NEAR(a b)", "near a b"), ("a:b", "a b"), ("-x", "x"),
     ("col : x", "col x"), ("{x}", "x"), ('object" OR "get', "object or get")],
)  # fmt: skip
def test_operators_in_user_text_are_plain_words(corpus: GraphStore, project: str, query: str, words: str) -> None:
    assert ranked(corpus, [project], query) == ranked(corpus, [project], words)


def test_odd_names_match_exactly(graph_store: GraphStore, project: str) -> None:
    quoted = Node(id='variable:q.py:foo"', kind="Variable", name='foo"', qualified_name='q.foo"')
    dunder = Node(id="method:q.py:A.__add__", kind="Method", name="__add__", qualified_name="q.A.__add__")
    graph_store.apply(project, GraphBatch(nodes=[quoted, dunder]))

    assert ranked(graph_store, [project], 'foo"') == ([(quoted.id, "exact")], 1)
    assert ranked(graph_store, [project], "__ADD__") == ([(dunder.id, "exact")], 1)
    assert ranked(graph_store, [project], "add") == ([(dunder.id, "exact")], 1)  # its name's one word


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


# A declaration without a body, documented at least as well as its implementation: the
# implementation ranks first, and the declaration is folded into it rather than listed as a hit.
_PARSE_DOC = "Parse options from argv, removing known options"
_MATCH_DOC = "Match searches the routing tree for a handler that matches the method/path."
_MATCH_ARGS = "Match(rctx *Context, method, path string) bool"
TYPED_PARSE = node("Method", "typings:Command.parseOptions", "typings/index.d.ts", language="typescript",
                   signature="parseOptions(argv: string[]): ParseOptionsResult", docstring=f"{_PARSE_DOC}.")  # fmt: skip
PARSE = node("Method", "lib/command:Command.parseOptions", "lib/command.js", language="javascript",
             signature="parseOptions(argv)", docstring=f"{_PARSE_DOC}, and return argv split into operands and "
             "unknown arguments. Side effects: modifies the command by storing options.")  # fmt: skip
STUB_HEADERS = node("Class", "pkg.headers.Headers", "pkg/headers.pyi", language="python",
                    docstring="An object that stores HTTP headers.")  # fmt: skip
HEADERS = node("Class", "pkg.headers.Headers", "pkg/headers.py", language="python")
INTERFACE_MATCH = node("Method", "chi.Routes.Match", "chi.go", language="go", signature=_MATCH_ARGS,
                       docstring=_MATCH_DOC)  # fmt: skip
MUX_MATCH = node("Method", "chi.Mux.Match", "mux.go", language="go", signature=f"func (mx *Mux) {_MATCH_ARGS}",
                 docstring=f"{_MATCH_DOC} It's similar to routing a http request, but without executing the "
                 "handler thereafter.")  # fmt: skip


@pytest.mark.parametrize(
    ("query", "implementation", "declaration"),
    [
        ("how are options parsed from argv?", PARSE, TYPED_PARSE),  # a TypeScript declaration file's
        ("parseOptions", PARSE, TYPED_PARSE),
        ("Headers", HEADERS, STUB_HEADERS),  # a Python stub file's
        ("how is a handler matched in the routing tree?", MUX_MATCH, INTERFACE_MATCH),  # a Go interface's method
    ],
)
def test_declarations_without_a_body_rank_under_their_implementation_and_group_with_it(
    graph_store: GraphStore, project: str, query: str, implementation: Node, declaration: Node
) -> None:
    graph_store.apply(project, GraphBatch(nodes=[TYPED_PARSE, PARSE, STUB_HEADERS, HEADERS, INTERFACE_MATCH, MUX_MATCH]))
    hits, total = graph_store.search([project], query)
    assert (hits[0].node, hits[0].declarations) == (implementation, (declaration,))
    assert declaration.id not in {hit.node.id for hit in hits}
    assert total >= 2  # the declaration still counts as a match


def test_a_declaration_without_its_implementation_above_it_stays_a_hit(graph_store: GraphStore, project: str) -> None:
    graph_store.apply(project, GraphBatch(nodes=[TYPED_PARSE, INTERFACE_MATCH]))
    hits, _ = graph_store.search([project], "parseOptions")
    assert [(hit.node, hit.declarations) for hit in hits] == [(TYPED_PARSE, ())]


def test_of_two_equal_matches_the_one_called_from_more_places_ranks_first(graph_store: GraphStore, project: str) -> None:
    """The call prior (ranking.CALLS_PRIOR): relevance equal, the definition more code calls wins,
    however their qualified names compare."""
    lonely = node("Function", "app.a.serialize_invoice", "app/a.py", docstring="Write an invoice out as JSON.")
    called = node("Function", "app.longer_module.serialize_invoice", "app/longer_module.py",
                  docstring="Write an invoice out as JSON.")  # fmt: skip
    callers = [node("Function", f"app.views.view_{i}", "app/views.py") for i in range(3)]
    graph_store.apply(project, GraphBatch(nodes=[lonely, called, *callers]))
    before = [h.node.id for h in graph_store.search([project], "serialize invoice")[0]]

    graph_store.apply(project, GraphBatch(edges=[edge(c.id, called.id, "CALLS") for c in callers]))
    after = [h.node.id for h in graph_store.search([project], "serialize invoice")[0]]

    assert before[:2] == [lonely.id, called.id]  # shorter qualified name first, all else equal
    assert after[:2] == [called.id, lonely.id]
