"""The code-context views are built without validation: they must still be exactly what the
validated models would be, with every field set."""

from __future__ import annotations

from pydantic import BaseModel

from rhumbline.lookup.views import Definition, Link, NodeRef, definition, link, node_ref, stub_ref
from rhumbline.stores.graph.protocol import EdgeView, Node

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


def test_views_equal_their_validated_models() -> None:
    ref = node_ref(NODE)
    assert isinstance(ref, NodeRef) and (ref.line, ref.file) == (3, "pkg/shop.py")
    assert_same_as_validated(ref)
    full = definition(NODE)
    assert isinstance(full, Definition) and full.docstring == "Sum of the prices."
    assert_same_as_validated(full)
    assert_same_as_validated(stub_ref(EDGE))
    with_node = link("function:pkg/shop.py:total", EDGE, NODE)
    assert isinstance(with_node, Link) and with_node.node.id == NODE.id
    assert_same_as_validated(with_node)
    stub = link("function:pkg/shop.py:total", EDGE, None)
    assert (stub.node.kind, stub.node.qualified_name) == ("Unknown", "price")
    assert_same_as_validated(stub)
