"""A dotted name typed as the file path spells it finds its node on the SQLite and the Neo4j graph
stores, also inside namespace packages (PEP 420: directories without `__init__.py`), where the
ingest's module name leaves the leading directories out (stores/graph/dotted.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine

from rhumbline.ingest import pipeline
from rhumbline.stores.graph.protocol import GraphStore

RENDER = "function:acme/tools/fmt/render.py:render_table"
PLAIN = "function:acme/tools/plain.py:plain_helper"


def _tree(root: Path) -> None:
    """`acme/` and `acme/tools/` are namespace packages; `acme/tools/fmt/` is a regular package."""
    (root / "acme" / "tools" / "fmt").mkdir(parents=True)
    (root / "acme" / "tools" / "fmt" / "__init__.py").write_text("")
    (root / "acme" / "tools" / "fmt" / "render.py").write_text("def render_table(rows):\n    return rows\n")
    (root / "acme" / "tools" / "plain.py").write_text("def plain_helper():\n    return 1\n")
    # The same function name elsewhere: only the path the query spells is an exact match.
    (root / "other").mkdir()
    (root / "other" / "render.py").write_text("def render_table(rows):\n    return list(rows)\n")


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("acme.tools.fmt.render.render_table", RENDER),
        ("tools.fmt.render.render_table", RENDER),
        ("ACME.tools.fmt.render.render_table", RENDER),
        ("acme.tools.plain.plain_helper", PLAIN),
    ],
)
def test_a_dotted_name_through_namespace_packages_is_an_exact_match(
    tmp_path: Path, store: GraphStore, engine: Engine, unique_project: str, query: str, expected: str
) -> None:
    root = tmp_path / "app"
    _tree(root)
    pipeline.ingest_local(root, unique_project, store=store, engine=engine)

    hits, total = store.search([unique_project], query)

    assert [(hit.node.id, hit.match) for hit in hits if hit.match == "exact"] == [(expected, "exact")]
    assert hits[0].node.id == expected
    assert total >= len(hits)


def test_a_dotted_name_its_path_does_not_spell_is_no_exact_match(
    tmp_path: Path, store: GraphStore, engine: Engine, unique_project: str
) -> None:
    root = tmp_path / "app"
    _tree(root)
    pipeline.ingest_local(root, unique_project, store=store, engine=engine)

    for query in ("elsewhere.tools.fmt.render.render_table", "acme.fmt.render.render_table"):
        hits, _ = store.search([unique_project], query)
        assert [hit.node.id for hit in hits if hit.match == "exact"] == [], query
