"""The code-context views are built without validation: they must still be exactly what the
validated models would be, with every field set."""

from __future__ import annotations

from pydantic import BaseModel, TypeAdapter

import json

from rhumbline.lookup.views import (
    Definition,
    Link,
    Listing,
    NodeRef,
    definition_row,
    link_row,
    link_rows,
    node_ref,
    node_ref_row,
    stub_ref_row,
)
from rhumbline.stores.graph.model import EdgeView, LinkedEdge, Node, RelationEdges

NODE = Node(
    id="function:pkg/shop.py:total", kind="Function", name="total", qualified_name="pkg.shop.total",
    file="pkg/shop.py", start_line=3, end_line=9, language="python", signature="def total(items)",
    docstring="  Sum of the prices.  ",
)  # fmt: skip
EDGE = EdgeView(
    relation="CALLS", direction="out", confidence="INFERRED", confidence_score=0.7, explanation="calls price()",
    file="pkg/shop.py", line=5, other_id="stub:price", other_kind="Unknown", other_name="price",
)  # fmt: skip


def assert_same_as_validated(built: BaseModel) -> None:
    model = type(built)
    validated = model.model_validate(built.model_dump())
    assert built == validated
    assert built.model_fields_set == set(model.model_fields) == validated.model_fields_set
    assert built.model_dump(mode="json") == validated.model_dump(mode="json")


def test_node_ref_equals_its_validated_model() -> None:
    ref = node_ref(NODE)
    assert isinstance(ref, NodeRef) and (ref.line, ref.file) == (3, "pkg/shop.py")
    assert_same_as_validated(ref)


def assert_is_the_dump_of(row: dict, model: type[BaseModel]) -> None:
    """The row is exactly the model's JSON form: same values, same key order (the JSON text an
    agent receives is the same either way)."""
    assert json.dumps(model.model_validate(row).model_dump(mode="json")) == json.dumps(row)


def test_rows_are_their_models_json_form() -> None:
    assert_is_the_dump_of(node_ref_row(NODE), NodeRef)
    assert node_ref_row(NODE) == node_ref(NODE).model_dump(mode="json")
    assert_is_the_dump_of(stub_ref_row(EDGE), NodeRef)
    assert definition_row(NODE)["docstring"] == "Sum of the prices."  # stripped
    assert definition_row(NODE, docstring_chars=5)["docstring"] == "Sum…"  # clipped
    for docstring_chars in (5, 1_200):
        assert_is_the_dump_of(definition_row(NODE, docstring_chars=docstring_chars), Definition)
    with_node = link_row(NODE.id, EDGE, NODE)
    assert with_node["node"] == node_ref_row(NODE)
    stub = link_row(NODE.id, EDGE, None)
    assert (stub["node"]["kind"], stub["node"]["qualified_name"], stub["node"]["file"]) == ("Unknown", "price", None)
    for row in (with_node, stub):
        assert_is_the_dump_of(row, Link)
    group = RelationEdges(edges=[LinkedEdge(node_id=NODE.id, edge=EDGE, other=None)], total=7)
    rows = link_rows(group)
    assert json.dumps(TypeAdapter(Listing[Link]).dump_python(TypeAdapter(Listing[Link]).validate_python(rows), mode="json")) == json.dumps(rows)
    assert rows["total"] == 7 and link_rows(None) == {"items": [], "total": 0}
