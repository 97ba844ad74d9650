"""Per-file snapshot chunks (partitioned.py): round trip, sharing, refusal of globals and of other
formats."""

from __future__ import annotations

import pickle
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rhumbline.ingest.snapshots.format import Partitioned, differing_parts, partitions, split
from rhumbline.ingest.snapshots.records import Snapshot, edge_record, node_record
from rhumbline.stores.graph.model import Edge, Node

F = Node("function:m.py:f", "Function", "f", "m.f", "m.py", 1, 3, "python", "def f()", "Doc.", "h1")
G = Node("function:n.py:g", "Function", "g", "n.g", "n.py", 5, 6, "python", "def g()", None, "h2")
DIRECTORY = Node("directory:pkg", "Directory", "pkg", "pkg")
CALL = Edge(F.id, G.id, "CALLS", "INFERRED", 0.8, "f calls g", "m.py", 2)
TOUCHED = Edge("contributor:a@x", "file:n.py", "MODIFIED", "EXTRACTED", 1.0, "a modified n.py",
               "n.py", None, properties={"commits": 2})  # fmt: skip
COMMITTED = Edge("contributor:a@x", "repository:", "COMMITTED_TO", "EXTRACTED", 1.0, "a", None, None)


def test_records_are_partitioned_by_their_file_and_round_trip():
    snapshot = Snapshot.of([F, G, DIRECTORY], [CALL, TOUCHED, COMMITTED])
    stored = Partitioned.of(
        partitions([F, G, DIRECTORY], [CALL, TOUCHED, COMMITTED]), files={"m.py": ("python", "h")}, context="c",
        skipped={"a.mo": ("binary", 10, 1, 2, 3)},
    )  # fmt: skip

    decoded = Partitioned.decode(stored.encode())

    assert set(decoded.chunks) == {"m.py", "n.py", ""}
    assert decoded.records(["m.py"]) == ({F.id: node_record(F)}, {("function:m.py:f", "CALLS", G.id): snapshot.edges[("function:m.py:f", "CALLS", G.id)]})
    assert Snapshot(*decoded.records()) == snapshot
    assert (decoded.node_count, decoded.edge_count) == (3, 3)
    assert (decoded.files, decoded.context) == ({"m.py": ("python", "h")}, "c")
    assert decoded.skipped == {"a.mo": ("binary", 10, 1, 2, 3)}


def test_a_replaced_partition_is_re_encoded_and_the_others_shared():
    stored = Partitioned.of(partitions([F, G], [CALL]))
    moved = Node(F.id, "Function", "f", "m.f", "m.py", 2, 4, "python", "def f()", "Doc.", "h1")
    after = Snapshot.of([moved], [CALL])

    replaced = stored.replaced(split(after.nodes, after.edges), files={}, unresolved={}, read_ns=None)

    assert replaced.chunks["n.py"] is stored.chunks["n.py"]
    assert differing_parts(stored, replaced) == ["m.py"]
    assert replaced.records()[0][F.id][4] == 2
    emptied = stored.replaced({"n.py": ({}, {})}, files={}, unresolved={}, read_ns=None)
    assert set(emptied.chunks) == {"m.py"}
    assert stored.replaced({}, files={}, unresolved={}, read_ns=None, skipped={"x": ("binary",)}).skipped == {
        "x": ("binary",)
    }


def test_a_blob_may_not_reference_any_global_and_other_formats_are_refused():
    with pytest.raises(pickle.UnpicklingError):
        Partitioned.decode(pickle.dumps((3, {"m.py": (1, 0, b"")}, print, {}, None, None, {})))
    chunk = zlib.compress(pickle.dumps(([(F.id, (print,))], [])))
    with pytest.raises(pickle.UnpicklingError):
        Partitioned.decode(pickle.dumps((3, {"m.py": (1, 0, chunk)}, {}, {}, None, None, {}))).records()
    with pytest.raises(ValueError):  # format 2: without the skipped files
        Partitioned.decode(pickle.dumps((2, {}, {}, {}, None, None)))
    with pytest.raises(pickle.UnpicklingError):  # format 1: one compressed pickle of the graph
        Partitioned.decode(zlib.compress(pickle.dumps((1, [F.id], [node_record(F)], []))))


def test_a_full_build_shares_the_chunks_of_partitions_whose_records_did_not_change():
    stored = Partitioned.of(partitions([F, G], [CALL]))
    moved = Node(F.id, "Function", "f", "m.f", "m.py", 2, 4, "python", "def f()", "Doc.", "h1")

    rebuilt = Partitioned.of(partitions([moved, G], [CALL]), like=stored, like_parts=stored.decoded())

    assert rebuilt.chunks["n.py"] is stored.chunks["n.py"]
    assert rebuilt.chunks["m.py"] != stored.chunks["m.py"]
    assert Snapshot(*rebuilt.records()) == Snapshot.of([moved, G], [CALL])


def _whole_graph_blob(nodes, edges, **inputs):
    """The blob as a clearing ingest encoded it from the whole graph's records at once."""
    snapshot = Snapshot.of(nodes, edges)
    return Partitioned.of(split(snapshot.nodes, snapshot.edges).items(), **inputs).encode()


def test_a_graph_encoded_partition_by_partition_is_the_whole_graph_blob_byte_for_byte():
    # A repeated id whose id text is another object than the first's: the first stays the key, as
    # in a dict, which the pickle's sharing of equal objects shows in the bytes.
    f_again = Node("".join(["function:", "m.py:f"]), "Function", "f", "m.f", "n.py", 9, 9, "python", None, None, "h3")
    weaker = Edge(F.id, G.id, "CALLS", "AMBIGUOUS", 0.5, "maybe", None, None)
    nodes = [F, DIRECTORY, G, f_again, Node("repository:", "Repository", "r", "r")]
    edges = [CALL, TOUCHED, COMMITTED, weaker, Edge(G.id, F.id, "CALLS", "INFERRED", 0.8, "g calls f", "n.py", 6)]

    streamed = Partitioned.of(partitions(nodes, edges), files={"m.py": ("python", "h")}, read_ns=7)

    assert streamed.encode() == _whole_graph_blob(nodes, edges, files={"m.py": ("python", "h")}, read_ns=7)
    # f's last record moved it to n.py, the call's to "": nothing is left in m.py.
    assert list(streamed.chunks) == ["n.py", ""]
    assert streamed.records(["n.py"])[0][F.id] == node_record(f_again)
    assert streamed.records([""])[1][(F.id, "CALLS", G.id)] == edge_record(weaker)
    assert Partitioned.of(partitions([], [])).encode() == _whole_graph_blob([], [])


_IDS = st.sampled_from(["function:m.py:f", "function:n.py:g", "directory:pkg", "file:m.py"])
_FILES = st.sampled_from([None, "", "m.py", "n.py", "pkg/o.py"])
_NODES = st.builds(
    Node, _IDS, st.sampled_from(["Function", "File"]), st.text(max_size=3), st.text(max_size=3), _FILES,
    st.none() | st.integers(0, 9), st.none() | st.integers(0, 9), st.none() | st.just("python"),
    st.none() | st.text(max_size=3), st.none() | st.text(max_size=3), st.none() | st.text(max_size=70),
)  # fmt: skip
_EDGES = st.builds(
    Edge, _IDS, _IDS, st.sampled_from(["CALLS", "IMPORTS"]), st.sampled_from(["EXTRACTED", "INFERRED"]),
    st.sampled_from([1.0, 0.8, 1]), st.text(max_size=3), _FILES, st.none() | st.integers(0, 9),
    properties=st.dictionaries(st.sampled_from(["commits", "last_at"]), st.integers(0, 3), max_size=2),
)  # fmt: skip


@settings(max_examples=150, deadline=None, database=None)
@given(st.lists(_NODES, max_size=12), st.lists(_EDGES, max_size=16))
def test_any_graph_encoded_partition_by_partition_is_the_whole_graph_blob_byte_for_byte(nodes, edges):
    assert Partitioned.of(partitions(nodes, edges)).encode() == _whole_graph_blob(nodes, edges)
