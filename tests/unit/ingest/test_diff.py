"""Snapshots (records of every attribute, a round trip through storage) and the exact diff of two
of them."""

from __future__ import annotations

from rhumbline.ingest.snapshots.diff import diff_snapshots
from rhumbline.ingest.snapshots.diff_model import Change, DiffCounts, EdgeChange, EdgeEntry, NodeChange, NodeEntry
from rhumbline.ingest.snapshots.format import Partitioned, partitions
from rhumbline.ingest.snapshots.records import Snapshot, digest
from rhumbline.stores.graph.model import Edge, Node

F = Node("function:m.py:f", "Function", "f", "m.f", "m.py", 1, 3, "python", "def f()", "Doc.", "h1")
G = Node("function:m.py:g", "Function", "g", "m.g", "m.py", 5, 6, "python", "def g()", None, "h2")
H = Node("function:m.py:h", "Function", "h", "m.h", "m.py", 8, 9, "python", "def h()", None, "h3")
F_EDGE = Edge(F.id, G.id, "CALLS", "EXTRACTED", 1.0, "f calls g", "m.py", 2)
DANGLING = Edge(G.id, "module:os", "IMPORTS", "INFERRED", 0.8, "g imports os", "m.py", 5)
TOUCHED = Edge("contributor:a@x", "file:m.py", "MODIFIED", "EXTRACTED", 1.0, "a modified m.py",
               "m.py", None, properties={"last_at": "2026-01-01", "commits": 2})  # fmt: skip


def test_a_snapshot_round_trips_with_dangling_ends_and_properties():
    snapshot = Snapshot.of([F, G], [F_EDGE, DANGLING, TOUCHED])
    decoded = Snapshot(*Partitioned.decode(Partitioned.of(partitions([F, G], [F_EDGE, DANGLING, TOUCHED])).encode()).records())
    assert decoded == snapshot
    assert decoded.nodes[F.id] == ("Function", "f", "m.f", "m.py", 1, 3, "python", "def f()", digest("Doc."), "h1")
    assert decoded.edges[(TOUCHED.source, "MODIFIED", TOUCHED.target)][-1] == {"commits": 2, "last_at": "2026-01-01"}


def test_diff_lists_added_removed_and_changed_with_attributes():
    moved_f = Node(F.id, "Function", "f", "m.f", "m.py", 2, 4, "python", "def f(x)", "New doc.", "h9")
    weaker = Edge(F.id, G.id, "CALLS", "AMBIGUOUS", 0.5, "f calls g or h", "m.py", 3)
    before = Snapshot.of([F, G], [F_EDGE, DANGLING])
    after = Snapshot.of([moved_f, H], [weaker, Edge(F.id, H.id, "CALLS", "EXTRACTED", 1.0, "f calls h", "m.py", 3)])

    diff = diff_snapshots("acme/x", 1, 2, before, after)

    assert diff.nodes_added == [NodeEntry(
        id=H.id, kind="Function", name="h", qualified_name="m.h", file="m.py", start_line=8, end_line=9
    )]  # fmt: skip
    assert diff.nodes_removed == [NodeEntry(
        id=G.id, kind="Function", name="g", qualified_name="m.g", file="m.py", start_line=5, end_line=6
    )]  # fmt: skip
    assert diff.nodes_changed == [NodeChange(id=F.id, kind="Function", name="f", changes=_changes({
        "start_line": (1, 2), "end_line": (3, 4), "signature": ("def f()", "def f(x)"),
        "docstring": (digest("Doc."), digest("New doc.")), "content_hash": ("h1", "h9"),
    }))]  # fmt: skip
    assert diff.edges_added == [EdgeEntry(source=F.id, relation="CALLS", target=H.id, confidence="EXTRACTED", line=3)]
    assert diff.edges_removed == [
        EdgeEntry(source=G.id, relation="IMPORTS", target="module:os", confidence="INFERRED", line=5)
    ]
    assert diff.edges_changed == [EdgeChange(source=F.id, relation="CALLS", target=G.id, changes=_changes({
        "confidence": ("EXTRACTED", "AMBIGUOUS"), "confidence_score": (1.0, 0.5), "line": (2, 3),
        "explanation": (digest("f calls g"), digest("f calls g or h")),
    }))]  # fmt: skip
    assert diff.counts == DiffCounts(
        nodes_added=1, nodes_removed=1, nodes_changed=1, edges_added=1, edges_removed=1, edges_changed=1,
        nodes_before=2, nodes_after=2, edges_before=2, edges_after=2,
    )  # fmt: skip


def _changes(pairs: dict[str, tuple[object, object]]) -> dict[str, Change]:
    return {name: Change(before=before, after=after) for name, (before, after) in pairs.items()}
