"""Import and Decorator nodes through a real ingest into the SQLite and the Neo4j graph stores:
stored exactly as built, readable by kind, and invisible to the dependency readers (blast radius's
reach, centrality's edge pairs, name lookups, default search)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from sqlalchemy import Engine

from rhumbline import centrality
from rhumbline.ingest import pipeline
from rhumbline.ingest.build import build_graph
from rhumbline.stores.graph.protocol import GraphStore
from tests.functional.ingest.graph_dump import dump

FIXTURE = Path(__file__).parents[2] / "fixtures" / "ingest" / "statements"
VIEWS = """\
from app.core import cached


@cached
def index():
    return 1
"""
CORE = """\
def cached(func):
    return func
"""


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    shutil.copytree(FIXTURE, root)
    (root / "app").mkdir()
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "core.py").write_text(CORE)
    (root / "app" / "views.py").write_text(VIEWS)
    return root


def test_stored_exactly_as_built(tree: Path, store: GraphStore, engine: Engine, unique_project: str) -> None:
    summary = pipeline.ingest_local(tree, unique_project, store=store, engine=engine, history=False)
    built = build_graph(tree, unique_project, history=False)
    nodes, edges = dump(store, unique_project)
    statements = {n.id for n in built.nodes if n.kind in ("Import", "Decorator")}
    assert len(statements) == summary.nodes_by_kind["Import"] + summary.nodes_by_kind["Decorator"] == 30
    assert statements <= set(nodes)
    new_edges = {
        (e.source, e.relation, e.target): (e.confidence, e.confidence_score, e.explanation, e.file, e.line)
        for e in built.edges
        if e.relation in ("RESOLVES_TO", "APPLIES_TO") or e.target in statements
    }
    assert {key: edges[key][:5] for key in new_edges} == new_edges
    imports, total = store.nodes_of_kind(unique_project, "Import", limit=100)
    assert total == summary.nodes_by_kind["Import"] == len(imports) == 16
    decorator = store.get_node(unique_project, "decorator:app/views.py:index@cached")
    assert decorator is not None
    assert (decorator.kind, decorator.name, decorator.qualified_name, decorator.start_line, decorator.signature) == (
        "Decorator", "@cached", "app.views.index[@cached]", 4, "@cached"
    )
    around, count = store.edges_of(unique_project, decorator.id, "out", limit=10)
    assert count == 2
    assert {(e.relation, e.other_id, e.confidence) for e in around} == {
        ("APPLIES_TO", "function:app/views.py:index", "EXTRACTED"),
        ("RESOLVES_TO", "function:app/core.py:cached", "INFERRED"),
    }


def test_dependency_readers_do_not_see_them(
    tree: Path, store: GraphStore, engine: Engine, unique_project: str
) -> None:
    pipeline.ingest_local(tree, unique_project, store=store, engine=engine, history=False)
    cached = "function:app/core.py:cached"
    reached = store.reach(unique_project, [cached], legs=centrality.DEPENDENTS, depth=4)
    # `index` is decorated by it, and nothing else depends on it; no Import or Decorator node.
    assert reached == {cached: 0, "function:app/views.py:index": 1}
    for relations in (centrality.DEPENDS_ON, centrality.DEPENDED_ON_BY):
        pairs, _ = store.edge_pairs(unique_project, relations=list(relations), limit=10_000)
        assert not [p for p in pairs if any(end.startswith(("import:", "decorator:")) for end in p)]
    found, total = store.find_by_name(unique_project, "cached", limit=10)
    assert (total, [n.id for n in found]) == (1, [cached])
