"""Centrality computed in a forked child while a full write runs (rhumbline/centrality_ahead.py,
by the child of ingest/snapshot_ahead.py): the same scores as computing them from the store
afterwards, and a soft fall-back."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from sqlalchemy import Engine

from rhumbline import centrality, centrality_ahead
from rhumbline.ingest import snapshot_ahead
from rhumbline.ingest.build import build_graph
from rhumbline.ingest.pipeline import ingest_local
from rhumbline.stores.graph.model import GraphBatch
from rhumbline.stores.graph.sqlite.store import SqliteGraphStore
from tests.functional.stores.graph.graph_samples import edge, node

PROJECT = "acme/ahead"


def _stored_pairs(store: SqliteGraphStore, project: str) -> list[tuple[str, str]]:
    found = []
    for relations, flip in ((centrality.DEPENDS_ON, False), (centrality.DEPENDED_ON_BY, True)):
        pairs, _ = store.edge_pairs(project, relations=list(relations), limit=centrality.MAX_EDGES)
        found.extend((t, s) if flip else (s, t) for s, t in pairs)
    return found


def test_the_pairs_are_those_the_store_gives_back(graph_store: SqliteGraphStore) -> None:
    a, b, c = (node("Function", f"m.{x}", "m.py") for x in "abc")
    edges = [
        edge(a.id, b.id), edge(a.id, b.id, explanation="again"),  # one key twice
        edge(b.id, "module:ext:os", "IMPORTS"),  # a stub end: not a dependency between nodes
        edge(c.id, a.id, "DECORATES"),  # flipped: a depends on its decorator c
        edge(a.id, c.id, "CONTAINS"),  # not a dependency relation
        edge(c.id, b.id, "INHERITS"),
    ]  # fmt: skip
    graph_store.apply("p", GraphBatch(nodes=[a, b, c], edges=edges, clear=True))

    pairs = centrality_ahead.dependency_pairs([a, b, c], edges)
    assert sorted(pairs) == sorted(_stored_pairs(graph_store, "p"))
    assert len(pairs) == 3


def test_a_full_ingest_stores_the_scores_computing_them_afterwards_gives(
    pyproj: Path, graph_store: SqliteGraphStore, engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="rhumbline.centrality"):
        summary = ingest_local(pyproj, PROJECT, store=graph_store, engine=engine, history=False)
    assert "computed while the graph was written" in caplog.text
    centrality.forget()
    stored = centrality.scores(graph_store, engine, PROJECT)

    recomputed = centrality._compute(graph_store, PROJECT, stored.key, 10.0)  # noqa: SLF001
    assert stored.key == f"v{summary.version}"
    assert stored.values and stored.values == recomputed.values
    assert (stored.node_count, stored.edge_count, stored.exact) == (
        recomputed.node_count, recomputed.edge_count, recomputed.exact,
    )  # fmt: skip


def test_a_child_that_fails_leaves_refresh_to_compute_in_process(
    pyproj: Path, graph_store: SqliteGraphStore, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = build_graph(pyproj, PROJECT, history=False)
    graph_store.apply(PROJECT, GraphBatch(nodes=built.nodes, edges=built.edges, clear=True, version=1))

    def dies(*_args: object) -> None:
        raise SystemExit(3)

    monkeypatch.setattr(snapshot_ahead, "_child", dies)
    child = snapshot_ahead.start(PROJECT, built.nodes, built.edges, {})
    assert child is not None
    encoded, ahead = snapshot_ahead.result(child, built.nodes, built.edges, {})
    assert ahead is None and encoded == snapshot_ahead.encode(built.nodes, built.edges, {})

    refreshed = centrality.refresh(graph_store, engine, PROJECT, ahead=ahead)
    expected = centrality._compute(graph_store, PROJECT, "v1", 10.0)  # noqa: SLF001
    assert refreshed is not None and refreshed.values == expected.values and refreshed.values


def test_without_fork_nothing_is_computed_ahead(monkeypatch: pytest.MonkeyPatch) -> None:
    import multiprocessing

    def no_fork(method: str) -> None:
        raise ValueError(f"cannot find context for {method!r}")  # a platform without fork

    monkeypatch.setattr(multiprocessing, "get_context", no_fork)
    a, b = node("Function", "m.a", "m.py"), node("Function", "m.b", "m.py")
    assert snapshot_ahead.start(PROJECT, [a, b], [edge(a.id, b.id)], {}) is None


def test_no_child_when_a_copy_of_the_process_would_not_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = node("Function", "m.a", "m.py"), node("Function", "m.b", "m.py")
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "1")  # 1 MB: this process is larger
    assert snapshot_ahead.start(PROJECT, [a, b], [edge(a.id, b.id)], {}) is None
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", str(1 << 20))  # 1 TB
    child = snapshot_ahead.start(PROJECT, [a, b], [edge(a.id, b.id)], {})
    assert child is not None
    encoded, ahead = snapshot_ahead.result(child, [a, b], [edge(a.id, b.id)], {})
    assert ahead is not None and ahead.result() is not None and encoded[1:] == (2, 1)
