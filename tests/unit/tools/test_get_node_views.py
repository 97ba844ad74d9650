"""get_node's answer is built as its JSON form (registry.Dumped): each row must be exactly what
its validated model dumps, key order included, with every field present."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from rhumbline.annotations import AnnotationView
from rhumbline.stores.graph.model import EdgeView, Node
from rhumbline.tools.get_node import (
    AnnotationOut,
    EdgeList,
    EdgeOut,
    NodeDetail,
    annotation_row,
    edge_list_row,
    edge_row,
    node_row,
)

EDGES = [
    EdgeView(
        relation="CALLS", direction="out", confidence="INFERRED", confidence_score=0.7, explanation="calls price()",
        file="pkg/shop.py", line=5, other_id="stub:price", other_kind="Unknown", other_name="price",
    ),
    EdgeView(
        relation="IMPORTS", direction="in", confidence="EXTRACTED", confidence_score=1.0, explanation="",
        file=None, line=None, other_id="file:pkg/app.py", other_kind="File", other_name="app.py",
        properties={"alias": "shop"},
    ),
]  # fmt: skip


def _same_as_model(model: type, row: dict) -> None:
    validated = model.model_validate(row).model_dump(mode="json")
    assert json.dumps(row) == json.dumps(validated)
    assert list(row) == list(model.model_fields)


def test_edges_equal_their_validated_models() -> None:
    for view in EDGES:
        _same_as_model(EdgeOut, edge_row(view))


def test_an_edge_page_dumps_as_the_validated_page_would() -> None:
    page = edge_list_row(EDGES, total=7, offset=2)
    _same_as_model(EdgeList, page)
    assert [edge["other_id"] for edge in page["edges"]] == ["stub:price", "file:pkg/app.py"]


def test_node_and_annotation_rows_equal_their_validated_models() -> None:
    full = Node("method:a.py:A.f", "Method", "f", "a.A.f", "a.py", 3, 9, "python", "def f(self)", "Doc.", "h1")
    bare = Node("module:a.py", "Module", "a", "a")
    for node in (full, bare):
        _same_as_model(NodeDetail, node_row(node))
    view = AnnotationView(
        id=4, node_id="method:a.py:A.f", node_kind="Method", node_label="a.A.f", content="Slow on big inputs.",
        tags=["perf", "todo"], author="agent", created_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc),
    )  # fmt: skip
    _same_as_model(AnnotationOut, annotation_row(view))
