"""Both backends score a search alike: the same hits, scores and totals (ranking.py scores what
each backend reports, and what each reports is the same)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rhumbline.stores.graph import ranking
from rhumbline.stores.graph.model import GraphBatch
from rhumbline.stores.graph.protocol import GraphStore
from rhumbline.stores.graph.sqlite.store import SqliteGraphStore
from tests.functional.stores.graph.graph_samples import SEARCH_CORPUS, node

pytestmark = pytest.mark.neo4j

QUERIES = [
    "get", "GET", "QuerySet", "queryset", "object", "query set", "get_obj", "http response",
    "how do I return a single object from the database?", "page not found", "Http404", "render a template",
    "handle the request", "page handler 7",
]  # fmt: skip
EXTRA = [
    node("Function", "tests.test_http.test_render", "tests/test_http.py", docstring="Render returns a response."),
    node("Method", "pkg.db.Database.query", "pkg/db.py", signature="def query(self, sql: str)",
         docstring="Run a query against the database and return the rows of the page asked."),
    # More nodes sharing words than a probe may select (ranking.SELECTIVE): those probes only rank.
    *(node("Function", f"pkg.handlers.handle_{i}", "pkg/handlers.py", docstring=f"Handle request {i} of a page.")
      for i in range(ranking.SELECTIVE + 10)),
]  # fmt: skip


def test_both_backends_score_alike(tmp_path: Path, neo4j_graph_store: GraphStore, project: str) -> None:
    sqlite = SqliteGraphStore(tmp_path / "graph.sqlite3", timeout=10.0)
    sqlite.ensure_schema()
    try:
        for store in (sqlite, neo4j_graph_store):
            store.apply(project, GraphBatch(nodes=[*SEARCH_CORPUS, *EXTRA]))
        for query in QUERIES:
            for options in ({}, {"docs_only": True}, {"kinds": ["Function", "Method"]}, {"limit": 2}):
                answers = []
                for store in (sqlite, neo4j_graph_store):
                    hits, total = store.search([project], query, **options)  # type: ignore[arg-type]
                    answers.append(([(h.node.id, h.score, h.match) for h in hits], total))
                assert answers[0] == answers[1], (query, options)
    finally:
        sqlite.close()
        neo4j_graph_store.delete_project(project)
