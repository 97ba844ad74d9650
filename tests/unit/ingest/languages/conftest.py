"""Fixture trees of tests/fixtures/ingest/<language>, built into graphs (helpers: graphs.py)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from rhumbline.ingest.build import BuiltGraph, build_graph

FIXTURES = Path(__file__).parents[3] / "fixtures" / "ingest"


@pytest.fixture
def build_fixture(tmp_path: Path) -> Callable[[str], BuiltGraph]:
    """Copy tests/fixtures/ingest/<name> (outside the git work tree) and build it twice: the two
    graphs must be identical, ids included, and every edge must explain itself."""

    def build(name: str) -> BuiltGraph:
        root = tmp_path / name
        shutil.copytree(FIXTURES / name, root)
        first = build_graph(root, f"fixtures/{name}", workers=1, history=False)
        second = build_graph(root, f"fixtures/{name}", workers=1, history=False)
        assert sorted(n.id for n in first.nodes) == sorted(n.id for n in second.nodes)
        assert sorted(first.edges, key=_key) == sorted(second.edges, key=_key)
        assert len({n.id for n in first.nodes}) == len(first.nodes), "duplicate node ids"
        for edge in first.edges:
            assert edge.explanation, edge
        return first

    return build


def _key(edge) -> tuple:
    return (edge.source, edge.relation, edge.target)
