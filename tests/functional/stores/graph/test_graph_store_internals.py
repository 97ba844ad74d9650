"""What each backend keeps behind the protocol: no orphan stubs, a consistent full-text index,
and (SQLite) safe concurrent use from many threads."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

from rhumbline.stores.graph.model import GraphBatch, GraphCounts, Node
from rhumbline.stores.graph.protocol import GraphStore
from rhumbline.stores.graph.sqlite import sql
from rhumbline.stores.graph.sqlite.store import SqliteGraphStore
from tests.functional.stores.graph.graph_samples import edge, node


def _churn(store: GraphStore, project: str) -> None:
    """Inserts, an upsert, dangling edges, a stub filled in, files removed and re-added.

    Left at the end: a.one (re-added) and ext:later (a stub filled in by a node); the stubs
    ext:os, ext:sys and ext:caller lost their last edges with a.py and b.py and must be gone.
    """
    a1, a2 = node("Function", "a.one", "a.py"), node("Function", "a.two", "a.py", docstring="first")
    b1 = node("Class", "b.One", "b.py")
    store.apply(project, GraphBatch(nodes=[a1, a2, b1], edges=[
        edge(a1.id, a2.id), edge(a1.id, "ext:os"), edge(b1.id, "ext:sys"), edge("ext:caller", b1.id),
        edge(a2.id, "ext:later"),
    ]))  # fmt: skip
    store.apply(project, GraphBatch(nodes=[node("Function", "a.two", "a.py", docstring="second")]))
    later = Node(id="ext:later", kind="Module", name="later", qualified_name="ext.later", file="l.py")
    store.apply(project, GraphBatch(nodes=[later]))
    assert [(v.other_id, v.other_kind) for v in store.edges_of(project, a2.id, "out", limit=5)[0]] == [
        ("ext:later", "Module")
    ]
    store.apply(project, GraphBatch(remove_files=["a.py"], nodes=[a1], edges=[edge(a1.id, b1.id)]))
    store.apply(project, GraphBatch(remove_files=["b.py"]))


LEFT = GraphCounts(nodes=2, edges=0, nodes_by_kind={"Function": 1, "Module": 1})


def _sqlite_rows(store: SqliteGraphStore, project: str) -> int:
    with store._bounded(5) as conn:
        return conn.execute("SELECT count(*) FROM nodes WHERE project = ?", (project,)).fetchone()[0]


def test_sqlite_keeps_no_orphan_stub_and_a_sound_fulltext_index(tmp_path: Path) -> None:
    store = SqliteGraphStore(tmp_path / "graph.sqlite3")
    store.ensure_schema()
    _churn(store, "test/p")

    assert store.counts("test/p") == LEFT
    assert _sqlite_rows(store, "test/p") == 2
    with store._bounded(5) as conn:
        for table in sql.FTS_TABLES:
            conn.execute(f"INSERT INTO {table} ({table}) VALUES ('integrity-check')")
    store.delete_project("test/p")
    assert _sqlite_rows(store, "test/p") == 0
    store.close()


def test_neo4j_keeps_no_orphan_stub(neo4j_graph_store: GraphStore, unique_project: str) -> None:
    try:
        _churn(neo4j_graph_store, unique_project)
        assert neo4j_graph_store.counts(unique_project) == LEFT
        raw = neo4j_graph_store._read(  # type: ignore[attr-defined]
            "MATCH (n:CodeNode {project: $project}) RETURN count(n) AS c", project=unique_project
        )
        assert raw[0]["c"] == 2
    finally:
        neo4j_graph_store.delete_project(unique_project)


def test_sqlite_serves_many_threads_while_writing(tmp_path: Path) -> None:
    store = SqliteGraphStore(tmp_path / "graph.sqlite3")
    store.ensure_schema()
    store.apply("test/p", GraphBatch(nodes=[node("Function", f"m.f{i}", "m.py") for i in range(100)]))
    errors: list[BaseException] = []
    seen: list[int] = []

    def read() -> None:
        try:
            for _ in range(200):
                hits, total = store.search(["test/p"], "f")
                # Each batch adds 10 nodes atomically: a reader never sees a partial batch.
                assert total % 10 == 0 and len(hits) == 20
                seen.append(total)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    def write(worker: int) -> None:
        try:
            for batch in range(10):
                nodes = [node("Function", f"w{worker}.b{batch}.f{i}", f"w{worker}.py") for i in range(10)]
                store.apply("test/p", GraphBatch(nodes=nodes))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=read) for _ in range(4)]
    threads += [threading.Thread(target=write, args=(w,)) for w in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert store.counts("test/p").nodes == 100 + 2 * 10 * 10
    assert min(seen) >= 100 and max(seen) <= 300
    store.close()


def test_sqlite_counts_follow_writes_from_this_and_other_connections(tmp_path: Path) -> None:
    path = tmp_path / "graph.sqlite3"
    store, other = SqliteGraphStore(path), SqliteGraphStore(path)
    store.ensure_schema()
    assert store.counts("test/p").nodes == 0

    store.apply("test/p", GraphBatch(nodes=[node("Function", "f")]))
    assert store.counts("test/p").nodes == 1  # our own commit
    other.apply("test/p", GraphBatch(nodes=[node("Function", "g")]))
    assert store.counts("test/p").nodes == 2  # another connection's commit
    other.delete_project("test/p")
    assert store.counts("test/p") == GraphCounts(nodes=0, edges=0)
    store.close()
    other.close()


def _upsert_changes(store: SqliteGraphStore, project: str, upserted: Node) -> int:
    """Rows the upsert changed, those of the full-text triggers included."""
    conn = store._connection()
    before = conn.total_changes
    store.apply(project, GraphBatch(nodes=[upserted]))
    return conn.total_changes - before


def _doc_hits(store: SqliteGraphStore, project: str, word: str) -> list[str]:
    return [hit.node.id for hit in store.search([project], word)[0]]


def test_sqlite_reindexes_a_node_only_when_its_words_change(tmp_path: Path) -> None:
    store = SqliteGraphStore(tmp_path / "graph.sqlite3")
    store.ensure_schema()
    first = node("Function", "a.two", "a.py", docstring="alpha words", start_line=1)
    store.apply("test/p", GraphBatch(nodes=[first]))

    moved = _upsert_changes(store, "test/p", replace(first, start_line=5))
    reworded = _upsert_changes(
        store, "test/p", replace(first, start_line=5, docstring="omega words")
    )  # fmt: skip

    assert moved == 1  # the node row alone: the index is not touched
    assert reworded > moved  # the node row and the index's delete and insert
    assert _doc_hits(store, "test/p", "alpha") == [] and _doc_hits(store, "test/p", "omega") == [first.id]
    with store._bounded(5) as conn:
        for table in sql.FTS_TABLES:
            conn.execute(f"INSERT INTO {table} ({table}) VALUES ('integrity-check')")
    store.close()
