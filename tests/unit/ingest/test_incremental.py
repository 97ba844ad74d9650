"""The phase-1 facts cache and the graph difference an incremental ingest writes."""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine
from tests.unit.ingest.conftest import TreeWriter

from rhumbline.ingest.snapshots import facts_cache
from rhumbline.ingest.build import build_graph
from rhumbline.ingest.facts_codec import decode_facts, encode_facts
from rhumbline.ingest.snapshots.changes import graph_changes
from rhumbline.ingest.snapshots.facts_cache import FactCache
from rhumbline.ingest.snapshots.records import Snapshot
from rhumbline.stores.graph.model import Edge, Node
from rhumbline.stores.relational.engine import create_engine_from_url
from rhumbline.stores.relational.migrate import upgrade

PROJECT = "acme/cache"


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = create_engine_from_url(f"sqlite:///{tmp_path / 'rhumbline.sqlite3'}")
    upgrade(engine)
    yield engine
    engine.dispose()


def build(root: Path, engine: Engine):
    cache = FactCache.load(engine, PROJECT)
    built = build_graph(root, PROJECT, cache=cache, history=False)
    cache.save(engine, built.sources)
    return built, cache.stats


def test_only_files_with_new_bytes_are_parsed(write_tree: TreeWriter, engine: Engine):
    root = write_tree({"a.py": "def a():\n    return 1\n", "b.py": "def b():\n    return 2\n",
                       "notes.md": "# Notes\n", "data.txt": "no extractor\n"})  # fmt: skip
    first, stats = build(root, engine)
    assert (stats.parsed, stats.reused) == (3, 0)
    again, stats = build(root, engine)
    assert (stats.parsed, stats.reused) == (0, 3)
    assert again.sources == first.sources and again.edges == first.edges

    (root / "b.py").write_text("def b():\n    return 3\n")
    (root / "a.py").rename(root / "moved.py")  # same bytes, new path: reused
    _, stats = build(root, engine)
    assert (stats.parsed, stats.reused) == (1, 2)
    with engine.connect() as connection:
        rows = connection.exec_driver_sql("SELECT path FROM ingested_files ORDER BY path").scalars().all()
    assert rows == ["b.py", "moved.py", "notes.md"]  # only parsed files, only current paths


def test_new_extractor_code_never_reuses_old_facts(
    write_tree: TreeWriter, engine: Engine, monkeypatch: pytest.MonkeyPatch
):
    root = write_tree({"a.py": "def a():\n    return 1\n"})
    build(root, engine)
    monkeypatch.setattr(facts_cache, "extractor_fingerprint", lambda: "0123456789abcdef")
    _, stats = build(root, engine)
    assert (stats.parsed, stats.reused) == (1, 0)


def test_cached_facts_round_trip_and_refuse_anything_but_fact_tuples(write_tree: TreeWriter):
    root = write_tree({"a.py": "import os\n\ndef a(x):\n    return os.path.join(x)\n"})
    (source,) = [s for s in build_graph(root, PROJECT, history=False).sources if s.code is not None]
    assert decode_facts(encode_facts(source.code)) == source.code
    evil = pickle.dumps(print)
    with pytest.raises(pickle.UnpicklingError):
        decode_facts(evil)


def node(node_id: str, **fields) -> Node:
    return Node(id=node_id, kind="Function", name=node_id, qualified_name=node_id, **fields)


def edge(source: str, target: str, **fields) -> Edge:
    values = {"confidence": "EXTRACTED", "confidence_score": 1.0, "explanation": f"{source}→{target}"}
    return Edge(source=source, target=target, relation="CALLS", **{**values, **fields})


def test_graph_changes_write_only_the_difference():
    old_nodes = [node("a"), node("b", start_line=1), node("gone")]
    old_edges = [edge("a", "b"), edge("a", "gone"), edge("b", "ext"), edge("gone", "b"), edge("a", "ext")]
    new_nodes = [node("a"), node("b", start_line=2), node("new")]
    # a→gone stays, now dangling; a→ext changes its evidence; b→new is new.
    new_edges = [edge("a", "b"), edge("a", "gone"), edge("b", "ext"), edge("b", "new"),
                 edge("a", "ext", line=3)]  # fmt: skip
    base, new = Snapshot.of(old_nodes, old_edges), Snapshot.of(new_nodes, new_edges)

    changes = graph_changes(base, new, new_nodes, new_edges)

    assert [n.id for n in changes.upsert_nodes] == ["b", "new"]
    assert changes.remove_nodes == ["gone"]
    # Removing `gone` removes a→gone: the unchanged edge is written again (to a stub end).
    assert [(e.source, e.target) for e in changes.upsert_edges] == [("a", "gone"), ("b", "new"), ("a", "ext")]
    assert changes.remove_edges == [("gone", "CALLS", "b")]
    assert (changes.nodes_added, changes.nodes_changed, changes.nodes_removed) == (1, 1, 1)
    assert (changes.edges_added, changes.edges_changed, changes.edges_removed) == (1, 1, 1)
    assert graph_changes(new, new, new_nodes, new_edges).empty


def test_the_inputs_key_changes_with_any_input(write_tree: TreeWriter):
    from rhumbline.ingest.snapshots.inputs_key import InputsKey

    root = write_tree({"a.py": "A = 1\n", "b.md": "# B\n"})
    sources = build_graph(root, PROJECT, history=False).sources

    def key(project=PROJECT, root_name="app", history=True, files=sources, log="log"):
        inputs = InputsKey(project, root_name, history, None)
        assert inputs(files, log) is False  # nothing stored to match
        return inputs.value

    base = key()
    assert key() == base and key(files=list(reversed(sources))) == base
    changed = [sources[0]._replace(content_hash="0" * 64), *sources[1:]]
    others = {key(project="acme/other"), key(root_name="src"), key(history=False), key(files=changed),
              key(files=sources[:1]), key(log="log\nmore"), key(log=None)}  # fmt: skip
    assert base not in others and len(others) == 7
    stored = InputsKey(PROJECT, "app", True, base)
    assert stored(sources, "log") is True and stored.value == base


def test_calls_left_out_by_the_reader_are_filled_in_and_a_bad_calls_part_is_parsed_again(
    write_tree: TreeWriter, engine: Engine
):
    root = write_tree({"a.py": "def a():\n    return b()\n\n\ndef b():\n    return 1\n"})
    first, _ = build(root, engine)
    cache = FactCache.load(engine, PROJECT)
    (key, blob), = cache._blobs.items()
    read = cache.read_all(root, ["a.py"])
    assert read[0].code.calls == ()  # left out: a partial rebuild may never need them
    assert cache.complete(read) == first.sources
    # A row whose calls part is damaged: the file is parsed again rather than the ingest failing.
    head = int.from_bytes(blob[3:7], "big")
    cache._blobs[key] = blob[: 7 + head] + b"not a pickle"
    read = cache.read_all(root, ["a.py"])
    assert cache.complete(read, {"a.py"}) == first.sources
