"""Semantic ranking (stores/graph/semantic.py) with the real wordllama model: a question's answer
moves up among the full-text candidates, name matches keep their tier and order, and a deployment
that turns it on without the `semantic` extra gets a clear error."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from rhumbline.config import load_settings
from rhumbline.errors import Unsupported
from rhumbline.stores.graph import semantic
from rhumbline.stores.graph.model import GraphBatch
from rhumbline.stores.graph.protocol import GraphStore
from tests.functional.stores.graph.graph_samples import node

pytest.importorskip("wordllama", reason="semantic ranking needs the `semantic` extra (wordllama)")

# Both hold the question's words once in a docstring of similar length; only one is about it.
PROTECT = node(
    "Function", "accounts.protect", "accounts.py", signature="protect(raw)",
    docstring="Salt and hash a user password with scrypt before it is saved.",
)  # fmt: skip
ROW = node(
    "Function", "db.row", "db.py", signature="row(table)",
    docstring="Hash of a table row; the password column is skipped.",
)  # fmt: skip
PASSWORD_HASH = node(
    "Function", "accounts.password_hash", "accounts.py", signature="password_hash(raw)",
    docstring="Deprecated: calls protect.",
)  # fmt: skip
QUESTION = "how are passwords hashed?"


@pytest.fixture
def corpus(graph_store: GraphStore, project: str) -> Iterator[GraphStore]:
    graph_store.apply(project, GraphBatch(nodes=[PROTECT, ROW, PASSWORD_HASH]))
    yield graph_store
    graph_store.semantic_ranking = False  # the Neo4j store is shared by the session


def ids(store: GraphStore, project: str, query: str, *, semantic_ranking: bool) -> list[tuple[str, str]]:
    store.semantic_ranking = semantic_ranking
    return [(h.node.id, h.match) for h in store.search([project], query)[0]]


def test_the_answer_to_a_question_moves_up(corpus: GraphStore, project: str) -> None:
    lexical = ids(corpus, project, QUESTION, semantic_ranking=False)
    blended = ids(corpus, project, QUESTION, semantic_ranking=True)
    assert lexical.index((PROTECT.id, "fulltext")) > lexical.index((ROW.id, "fulltext"))
    assert blended.index((PROTECT.id, "fulltext")) < blended.index((ROW.id, "fulltext"))
    assert sorted(lexical) == sorted(blended)  # the same candidates, reordered


@pytest.mark.parametrize("query", ["password_hash", "password hash", "password", "protect", "row"])
def test_name_matches_keep_their_rank(corpus: GraphStore, project: str, query: str) -> None:
    lexical = ids(corpus, project, query, semantic_ranking=False)
    assert lexical[0][1] in ("exact", "prefix")
    named = [hit for hit in lexical if hit[1] != "fulltext"]
    assert ids(corpus, project, query, semantic_ranking=True)[: len(named)] == named


def test_scores_stay_within_their_tier() -> None:
    from rhumbline.stores.graph import ranking

    row = ranking.SearchRow(PROTECT, "p", 10, 0, 0, 0, 0)
    for within in (0.0, ranking.TIER_SPAN):
        for cosine in (-1.0, 0.0, 1.0):
            score = semantic.blend(ranking.Ranked(ranking.TIER_FULLTEXT + within, row), cosine)
            assert ranking.match_of(score) == "fulltext"
            assert ranking.TIER_FULLTEXT <= score <= ranking.TIER_FULLTEXT + ranking.TIER_SPAN


def test_on_without_the_extra_is_a_clear_error(
    corpus: GraphStore, project: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(semantic, "_model", None)
    monkeypatch.setitem(sys.modules, "wordllama", None)  # what `import wordllama` sees when it is absent
    corpus.semantic_ranking = True
    with pytest.raises(Unsupported, match=r"rhumbline\[semantic\]"):
        corpus.search([project], QUESTION)


def test_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_settings().semantic_ranking is False
    monkeypatch.setenv("RHUMBLINE_SEMANTIC_RANKING", "on")
    assert load_settings().semantic_ranking is True
    monkeypatch.setenv("RHUMBLINE_SEMANTIC_RANKING", "maybe")
    with pytest.raises(ValueError, match="RHUMBLINE_SEMANTIC_RANKING must be on or off"):
        load_settings()
