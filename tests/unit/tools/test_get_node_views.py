"""get_node's edges are built without validation: they must still be exactly what the validated
model would be, with every field set."""

from __future__ import annotations

from rhumbline.stores.graph.protocol import EdgeView
from rhumbline.tools.get_node import EdgeList, EdgeOut, _edge_list, edge_out

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


def test_edges_equal_their_validated_models() -> None:
    for view in EDGES:
        built = edge_out(view)
        validated = EdgeOut.model_validate(built.model_dump())
        assert built == validated
        assert built.model_fields_set == set(EdgeOut.model_fields) == validated.model_fields_set
        assert built.model_dump(mode="json") == validated.model_dump(mode="json")
        assert built.model_dump_json() == validated.model_dump_json()


def test_an_edge_page_dumps_as_the_validated_page_would() -> None:
    page = _edge_list(EDGES, total=7, offset=2)
    validated = EdgeList.model_validate(page.model_dump())
    assert page.model_dump(mode="json") == validated.model_dump(mode="json")
    assert [edge["other_id"] for edge in page.model_dump(mode="json")["edges"]] == ["stub:price", "file:pkg/app.py"]
