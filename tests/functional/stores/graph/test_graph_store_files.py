"""nodes_in_file, edges_around and degrees: the lookups behind the code-context tools.

Same expected answers on both backends, order included.
"""

from __future__ import annotations

import pytest

from rhumbline.stores.graph.model import Edge, GraphBatch, Node
from rhumbline.stores.graph.protocol import GraphStore

pytestmark = pytest.mark.parametrize("graph_store", ["sqlite", pytest.param("neo4j", marks=pytest.mark.neo4j)], indirect=True)

FILE = Node("file:app/cart.py", "File", "cart.py", "app/cart.py", "app/cart.py", 1, 60, "python")
MODULE = Node("module:app.cart", "Module", "cart", "app.cart", "app/cart.py", None, None, "python")
CART = Node("class:app/cart.py:Cart", "Class", "Cart", "app.cart.Cart", "app/cart.py", 5, 40, "python",
            "class Cart(Base)", "A cart.")
ADD = Node("method:app/cart.py:Cart.add", "Method", "add", "app.cart.Cart.add", "app/cart.py", 10, 20, "python",
           "def add(self, item)")
TOTAL = Node("method:app/cart.py:Cart.total", "Method", "total", "app.cart.Cart.total", "app/cart.py", 22, 40,
             "python", "def total(self)")
LIMIT = Node("variable:app/cart.py:LIMIT", "Variable", "LIMIT", "app.cart.LIMIT", "app/cart.py", 3, 3, "python")
HELPER = Node("function:app/util.py:helper", "Function", "helper", "app.util.helper", "app/util.py", 1, 4, "python")
CHECKOUT = Node("function:app/shop.py:checkout", "Function", "checkout", "app.shop.checkout", "app/shop.py", 1, 9,
                "python")
GUIDE = Node("concept:docs/guide.md#carts", "Concept", "Carts", "docs/guide.md#carts", "docs/guide.md", 3, 8,
             "markdown")


def _edge(source: str, target: str, relation: str, line: int | None = None, **extra: object) -> Edge:
    return Edge(source, target, relation, "EXTRACTED", 1.0, f"{source} {relation} {target}", "app/cart.py", line,
                **extra)  # type: ignore[arg-type]


EDGES = [
    _edge(FILE.id, MODULE.id, "DEFINES", 1),
    _edge(FILE.id, CART.id, "DEFINES", 5),
    _edge(FILE.id, LIMIT.id, "DEFINES", 3),
    _edge(CART.id, ADD.id, "DEFINES", 10),
    _edge(CART.id, TOTAL.id, "DEFINES", 22),
    _edge(ADD.id, HELPER.id, "CALLS", 12),
    _edge(TOTAL.id, HELPER.id, "CALLS", 25),
    _edge(TOTAL.id, ADD.id, "CALLS", 26),
    _edge(CHECKOUT.id, CART.id, "CALLS", 3),
    _edge(CHECKOUT.id, ADD.id, "CALLS", 4),
    _edge(GUIDE.id, CART.id, "DOCUMENTS", 5, properties={"mentions": 2}),
    _edge(CART.id, "class:?:Base", "INHERITS", 5),  # an unresolved base: a stub
]


@pytest.fixture
def seeded(graph_store: GraphStore, project: str, other_project: str) -> GraphStore:
    nodes = [FILE, MODULE, CART, ADD, TOTAL, LIMIT, HELPER, CHECKOUT, GUIDE]
    graph_store.apply(project, GraphBatch(nodes=nodes, edges=EDGES))
    # The same file in another project never leaks in.
    graph_store.apply(other_project, GraphBatch(nodes=[FILE, CART], edges=[EDGES[1]]))
    return graph_store


def test_nodes_in_file_by_line_without_the_file_node(seeded: GraphStore, project: str) -> None:
    nodes, total = seeded.nodes_in_file(project, "app/cart.py", limit=50)
    # The module has no line: it sorts first.
    assert [n.id for n in nodes] == [MODULE.id, LIMIT.id, CART.id, ADD.id, TOTAL.id]
    assert total == 5
    assert nodes[2] == CART


def test_nodes_in_file_capped_with_exact_total_and_kinds(seeded: GraphStore, project: str) -> None:
    nodes, total = seeded.nodes_in_file(project, "app/cart.py", limit=2)
    assert ([n.id for n in nodes], total) == ([MODULE.id, LIMIT.id], 5)
    methods, total = seeded.nodes_in_file(project, "app/cart.py", kinds=["Method"], limit=1)
    assert ([n.id for n in methods], total) == ([ADD.id], 2)
    assert seeded.nodes_in_file(project, "app/none.py", limit=5) == ([], 0)
    assert seeded.nodes_in_file("test/nobody", "app/cart.py", limit=5) == ([], 0)


@pytest.mark.parametrize("limit", [1, 2, 4, 5, 6, 50])
def test_nodes_in_file_total_is_exact_at_every_page(seeded: GraphStore, project: str, limit: int) -> None:
    # SQLite takes the total from a page the list's end cut short, and counts otherwise: every
    # (limit, offset), inside, at and past the end of the list, gives the one exact total.
    everything = [MODULE.id, LIMIT.id, CART.id, ADD.id, TOTAL.id]
    for offset in range(0, 8):
        nodes, total = seeded.nodes_in_file(project, "app/cart.py", limit=limit, offset=offset)
        assert ([n.id for n in nodes], total) == (everything[offset : offset + limit], 5), (limit, offset)
        methods, total = seeded.nodes_in_file(project, "app/cart.py", kinds=["Method"], limit=limit, offset=offset)
        assert ([n.id for n in methods], total) == ([ADD.id, TOTAL.id][offset : offset + limit], 2), (limit, offset)
        assert seeded.nodes_in_file(project, "app/none.py", limit=limit, offset=offset) == ([], 0)


def _rows(found: dict) -> dict[str, tuple[list[tuple[str, str]], int]]:
    return {relation: ([(e.node_id, e.edge.other_id) for e in group.edges], group.total) for relation, group in found.items()}


def test_edges_around_several_nodes_grouped_by_relation(seeded: GraphStore, project: str) -> None:
    found = seeded.edges_around(project, [ADD.id, TOTAL.id, HELPER.id], "in", limit=50)
    assert list(found) == ["CALLS", "DEFINES"]
    # By (node id, other id) within a relation: "function:..." < "method:...".
    assert _rows(found) == {
        "CALLS": ([(HELPER.id, ADD.id), (HELPER.id, TOTAL.id), (ADD.id, CHECKOUT.id), (ADD.id, TOTAL.id)], 4),
        "DEFINES": ([(ADD.id, CART.id), (TOTAL.id, CART.id)], 2),
    }
    call = found["CALLS"].edges[2]
    assert call.other == CHECKOUT
    assert (call.edge.direction, call.edge.line, call.edge.other_kind, call.edge.relation) == ("in", 4, "Function", "CALLS")
    assert call.edge.explanation == f"{CHECKOUT.id} CALLS {ADD.id}"


def test_edges_around_caps_each_relation_with_its_exact_total(seeded: GraphStore, project: str) -> None:
    capped = seeded.edges_around(project, [ADD.id, TOTAL.id, HELPER.id], "in", limit=1)
    assert _rows(capped) == {"CALLS": ([(HELPER.id, ADD.id)], 4), "DEFINES": ([(ADD.id, CART.id)], 2)}
    out = seeded.edges_around(project, [CART.id], "out", relations=["DEFINES", "INHERITS"], limit=5)
    assert _rows(out) == {"DEFINES": ([(CART.id, ADD.id), (CART.id, TOTAL.id)], 2), "INHERITS": ([(CART.id, "class:?:Base")], 1)}
    stub = out["INHERITS"].edges[0]
    assert (stub.other, stub.edge.other_kind, stub.edge.other_name) == (None, "Unknown", "class:?:Base")
    documented = seeded.edges_around(project, [CART.id], "in", relations=["DOCUMENTS"], limit=5)["DOCUMENTS"]
    assert documented.edges[0].other == GUIDE
    assert documented.edges[0].edge.properties == {"mentions": 2}
    assert seeded.edges_around(project, [], "in", limit=5) == {}
    assert seeded.edges_around(project, ["function:nowhere"], "in", limit=5) == {}
    assert seeded.edges_around(project, [CART.id], "in", relations=["IMPORTS"], limit=5) == {}


@pytest.mark.parametrize("relations", [None, ["CALLS", "DEFINES"], ["DEFINES", "CALLS", "CALLS"]])
def test_edges_around_cut_pages_are_prefixes_of_the_whole_list(
    seeded: GraphStore, project: str, relations: list[str] | None
) -> None:
    # SQLite reads every edge (counting and cutting in Python) when they are few, counts first and
    # numbers them per relation only when one is over the limit: every way must give the same
    # order, cut at the same place, with the same totals.
    ids = [ADD.id, TOTAL.id, HELPER.id]
    whole = _rows(seeded.edges_around(project, ids, "in", relations=relations, limit=4))  # CALLS: 4, DEFINES: 2
    assert whole == _rows(seeded.edges_around(project, ids, "in", relations=relations, limit=1000))
    assert list(whole) == ["CALLS", "DEFINES"]
    for limit in (1, 2, 3):
        cut = _rows(seeded.edges_around(project, ids, "in", relations=relations, limit=limit))
        assert cut == {relation: (edges[:limit], total) for relation, (edges, total) in whole.items()}


def test_degrees_count_by_node_and_relation(seeded: GraphStore, project: str) -> None:
    ids = [CART.id, ADD.id, TOTAL.id, HELPER.id, "function:nowhere"]
    assert seeded.degrees(project, ids, "in") == {
        ADD.id: {"CALLS": 2, "DEFINES": 1},
        CART.id: {"CALLS": 1, "DEFINES": 1, "DOCUMENTS": 1},
        HELPER.id: {"CALLS": 2},
        TOTAL.id: {"DEFINES": 1},
    }
    assert seeded.degrees(project, ids, "out", relations=["CALLS"]) == {
        ADD.id: {"CALLS": 1},
        TOTAL.id: {"CALLS": 2},
    }


def test_bad_arguments_are_refused(seeded: GraphStore, project: str) -> None:
    with pytest.raises(ValueError):
        seeded.edges_around(project, [CART.id], "both", limit=5)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        seeded.degrees(project, [f"n{i}" for i in range(1001)], "in")
    with pytest.raises(ValueError):
        seeded.nodes_in_file(project, "app/cart.py", limit=0)
