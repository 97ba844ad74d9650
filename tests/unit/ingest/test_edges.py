"""EdgeSet: one edge per key with its strongest evidence, built as ordinary Edge objects."""

from __future__ import annotations

from dataclasses import fields

from rhumbline.ingest.graph.edges import EdgeSet
from rhumbline.stores.graph.model import Edge


def test_edges_equal_those_the_dataclass_builds_field_by_field():
    edges = EdgeSet()
    edges.extracted("file:a.py", "DEFINES", "function:a.py:f", "a.py defines f", "a.py", 1)
    edges.add("function:a.py:f", "CALLS", "function:b.py:g", "INFERRED", 0.8, "call g", "a.py", 2)
    edges.add("function:a.py:f", "CALLS", "function:b.py:g", "EXTRACTED", 1.0, "call g again", "a.py", 3)
    edges.add("function:a.py:f", "CALLS", "function:b.py:h", "AMBIGUOUS", 1 / 3, "call h", "a.py", 4)
    edges.set_properties("function:a.py:f", "CALLS", "function:b.py:h", {"sites": 1})
    built = edges.edges()
    assert built == [
        Edge("file:a.py", "function:a.py:f", "DEFINES", "EXTRACTED", 1.0, "a.py defines f", "a.py", 1),
        Edge("function:a.py:f", "function:b.py:g", "CALLS", "EXTRACTED", 1.0,
             "call g again (and 1 more)", "a.py", 3),  # fmt: skip
        Edge("function:a.py:f", "function:b.py:h", "CALLS", "AMBIGUOUS", 0.3333, "call h", "a.py", 4,
             {"sites": 1}),  # fmt: skip
    ]
    for edge in built:  # every field set, hashable like any Edge
        assert all(hasattr(edge, field.name) for field in fields(Edge))
        assert hash(edge) == hash(Edge(**{field.name: getattr(edge, field.name) for field in fields(Edge)}))


def test_taking_the_edges_gives_what_edges_gives_and_empties_the_set():
    edges = EdgeSet()
    for n in range(50):
        edges.add(f"f{n % 7}", "CALLS", f"g{n % 11}", "INFERRED", 0.8, f"call {n}", "a.py", n)
    edges.set_properties("f0", "CALLS", "g0", {"sites": 3})
    expected = edges.edges()

    assert edges.take() == expected
    assert len(edges) == 0 and edges.edges() == []
