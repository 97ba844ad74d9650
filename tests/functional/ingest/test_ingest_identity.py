"""Everything a full ingest produces is the graph phase 2 built, exactly, on both graph backends:
what the store holds (every node and edge attribute, read back), the version's snapshot, the facts
cache, the centrality scores; and a no-change re-ingest and a `clear` rebuild leave exactly the
same. A multi-language tree with git history, so every resolver and the contributors run."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from sqlalchemy import Engine

from rhumbline import centrality
from rhumbline.ingest.build import BuiltGraph, build_graph
from rhumbline.ingest.facts_codec import decode_facts
from rhumbline.ingest.pipeline import ingest_local
from rhumbline.ingest.snapshots import storage
from rhumbline.ingest.snapshots.facts_cache import FactCache
from rhumbline.ingest.snapshots.records import Snapshot
from rhumbline.stores.graph.protocol import GraphStore
from rhumbline.stores.graph.rows import NODE_FIELDS
from tests.functional.ingest.graph_dump import dump

FIXTURES = Path(__file__).parents[2] / "fixtures" / "ingest"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """Every language fixture in one tree, committed by two authors when git is installed."""
    root = tmp_path / "polyglot"
    shutil.copytree(FIXTURES, root)
    if shutil.which("git") is not None:
        git = ["git", "-C", str(root), "-c", "user.name=Ada", "-c", "user.email=ada@example.com"]
        subprocess.run([*git, "init", "-q"], check=True)
        subprocess.run([*git, "add", "pyproj"], check=True)
        subprocess.run([*git, "commit", "-q", "-m", "python"], check=True)
        subprocess.run([*git, "add", "."], check=True)
        subprocess.run([*git, "-c", "user.name=Bo", "-c", "user.email=bo@example.com", "commit", "-q",
                        "-m", "the rest"], check=True)  # fmt: skip
    return root


def expected_graph(built: BuiltGraph) -> tuple[dict[str, tuple], dict[tuple[str, str, str], tuple]]:
    """The built graph as graph_dump reads a store: the last of each node id and edge key wins."""
    nodes = {node.id: tuple(getattr(node, field) for field in NODE_FIELDS[1:]) for node in built.nodes}
    edges = {
        (e.source, e.relation, e.target): (
            e.confidence, e.confidence_score, e.explanation, e.file, e.line,
            dict(sorted(e.properties.items())) if e.properties else None,
        )
        for e in built.edges
    }  # fmt: skip
    return nodes, edges


def dependency_scores(built: BuiltGraph, project: str) -> dict[str, float]:
    """Betweenness of the built graph's "depends on" pairs, as centrality stores it."""
    real = {node.id for node in built.nodes}
    keys = dict.fromkeys((e.source, e.relation, e.target) for e in built.edges if e.source in real and e.target in real)
    pairs = [(s, t) for s, relation, t in keys if relation in centrality.DEPENDS_ON]
    pairs += [(t, s) for s, relation, t in keys if relation in centrality.DEPENDED_ON_BY]
    values, _, exact = centrality.betweenness(pairs, seed=project)
    assert exact
    return {node_id: float(f"{value:.6g}") for node_id, value in values.items()}


def without_call_order(facts: object) -> object:
    """Facts with their call sites sorted: tree-sitter may list two calls that start at one byte
    (`super().m(...)` and its inner `super()`) in either order, which changes no edge."""
    calls = getattr(facts, "calls", None)
    return facts._replace(calls=tuple(sorted(calls))) if calls is not None else facts  # type: ignore[attr-defined]


def test_a_full_ingest_stores_exactly_the_built_graph(
    tree: Path, store: GraphStore, engine: Engine, unique_project: str
) -> None:
    built = build_graph(tree, unique_project, workers=1)
    assert {n.language for n in built.nodes} >= {"python", "go", "rust", "java", "typescript", "c", "php", "ruby"}
    nodes, edges = expected_graph(built)

    summary = ingest_local(tree, unique_project, store=store, engine=engine, workers=1)

    assert dump(store, unique_project) == (nodes, edges)
    assert (summary.changes.nodes_added, summary.changes.edges_added) == (len(nodes), len(edges))
    assert storage.load(engine, unique_project, summary.version) == Snapshot.of(built.nodes, built.edges)
    cache = FactCache.load(engine, unique_project)
    parsed = {(s.content_hash, s.language): without_call_order(s.code) for s in built.sources if s.code is not None}
    cached = {key: without_call_order(decode_facts(blob)) for key, blob in cache._blobs.items()}
    assert cached == parsed
    centrality.forget()
    scores = centrality.scores(store, engine, unique_project)
    assert scores.exact and scores.values == dependency_scores(built, unique_project) != {}
    if shutil.which("git") is not None:
        assert {n.qualified_name for n in built.nodes if n.kind == "Contributor"} == {"ada@example.com", "bo@example.com"}

    unchanged = ingest_local(tree, unique_project, store=store, engine=engine, workers=1)
    assert unchanged.changes.mode == "unchanged"
    rebuilt = ingest_local(tree, unique_project, store=store, engine=engine, workers=1, clear=True)
    assert rebuilt.changes.mode == "full"
    assert dump(store, unique_project) == (nodes, edges)
    assert storage.load(engine, unique_project, rebuilt.version) == Snapshot.of(built.nodes, built.edges)
