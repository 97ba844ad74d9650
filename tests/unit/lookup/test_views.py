"""The code-context views built from store values: texts clipped, stubs named by their id."""

from __future__ import annotations

from rhumbline.lookup.views import definition, link, links, node_ref
from rhumbline.stores.graph.model import EdgeView, LinkedEdge, Node, RelationEdges

NODE = Node(
    id="function:pkg/shop.py:total", kind="Function", name="total", qualified_name="pkg.shop.total",
    file="pkg/shop.py", start_line=3, end_line=9, language="python", signature="def total(items)",
    docstring="  Sum of the prices.  ",
)  # fmt: skip
EDGE = EdgeView(
    relation="CALLS", direction="out", confidence="INFERRED", confidence_score=0.7, explanation="calls price() " * 40,
    file="pkg/shop.py", line=5, other_id="stub:price", other_kind="Unknown", other_name="price",
)  # fmt: skip


def test_a_definition_is_clipped_and_stripped() -> None:
    ref = node_ref(NODE)
    assert (ref.line, ref.file) == (3, "pkg/shop.py")
    assert definition(NODE).docstring == "Sum of the prices."  # stripped
    assert definition(NODE, docstring_chars=5).docstring == "Sum…"  # clipped


def test_a_link_to_a_stub_names_it_by_its_id() -> None:
    with_node = link(NODE.id, EDGE, NODE)
    assert with_node.node == node_ref(NODE)
    stub = link(NODE.id, EDGE, None)
    assert (stub.node.kind, stub.node.qualified_name, stub.node.file) == ("Unknown", "price", None)
    assert len(stub.explanation) == 300  # clipped
    listed = links(RelationEdges(edges=[LinkedEdge(node_id=NODE.id, edge=EDGE, other=None)], total=7))
    assert (listed.total, listed.items) == (7, [stub])
    assert links(None).model_dump() == {"items": [], "total": 0}
