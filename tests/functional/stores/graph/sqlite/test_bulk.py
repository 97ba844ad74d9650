"""SQLite: a clearing write chooses its rids, a large one rebuilds the lookup indexes after its rows
(sqlite/bulk.py); the file ends exactly as upserts and row-by-row indexing would leave it, or as it
was when the write fails."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from rhumbline.stores.graph import rows
from rhumbline.stores.graph.sqlite import sql
from rhumbline.stores.graph.model import Edge, GraphBatch
from rhumbline.stores.graph.sqlite.bulk import BULK_NODES
from rhumbline.stores.graph.sqlite.connection import PAGE_SIZE as SQLITE_PAGE_SIZE
from rhumbline.stores.graph.sqlite.store import SqliteGraphStore
from tests.functional.stores.graph.graph_samples import edge, node

BIG = [node("Function", f"pkg.mod{i % 50}.f{i}", f"pkg/mod{i % 50}.py") for i in range(BULK_NODES)]


def _index_rows(path: Path) -> dict[str, list[tuple]]:
    """Every entry of every node lookup index, read through that index."""
    conn = sqlite3.connect(path)
    found = {}
    for name, statement in sql.BULK_INDEXES.items():
        columns = statement.split("(")[1].rstrip(")")
        table = "edges" if name in sql.EDGE_INDEXES else "nodes"
        found[name] = conn.execute(
            f"SELECT {columns} FROM {table} INDEXED BY {name} ORDER BY {columns}"
        ).fetchall()
    conn.close()
    return found


def _statements(store: SqliteGraphStore) -> list[str]:
    traced: list[str] = []
    store._connection().set_trace_callback(traced.append)  # noqa: SLF001
    return traced


@pytest.mark.parametrize("others", [0, BULK_NODES + 1], ids=["alone", "outnumbered"])
def test_a_large_clearing_write_indexes_like_row_by_row_inserts(tmp_path: Path, others: int) -> None:
    bulk, plain = SqliteGraphStore(tmp_path / "bulk.sqlite3"), SqliteGraphStore(tmp_path / "plain.sqlite3")
    filler = [node("Class", f"other.C{i}", "other.py") for i in range(others)]
    for store in (bulk, plain):
        store.ensure_schema()
        store.apply("other", GraphBatch(nodes=filler))
        store.apply("p", GraphBatch(nodes=BIG[:10]))  # replaced by the clear
    traced = _statements(bulk)
    bulk.apply("p", GraphBatch(nodes=BIG, edges=[edge(BIG[0].id, BIG[1].id)], clear=True))
    for start in range(0, len(BIG), 1_000):  # below BULK_NODES: indexed row by row
        plain.apply("p", GraphBatch(nodes=BIG[start : start + 1_000], clear=start == 0))
    plain.apply("p", GraphBatch(edges=[edge(BIG[0].id, BIG[1].id)]))

    dropped = [s for s in traced if s.startswith("DROP INDEX")]
    assert len(dropped) == (len(sql.BULK_INDEXES) if others == 0 else 0)
    assert _index_rows(tmp_path / "bulk.sqlite3") == _index_rows(tmp_path / "plain.sqlite3")
    assert bulk.find_by_name("p", "f42", limit=5) == plain.find_by_name("p", "f42", limit=5)
    assert bulk.counts("p") == plain.counts("p")


def test_a_failing_large_clearing_write_keeps_the_indexes_and_the_old_graph(tmp_path: Path) -> None:
    store = SqliteGraphStore(tmp_path / "graph.sqlite3")
    store.ensure_schema()
    store.apply("p", GraphBatch(nodes=BIG[:10]))
    before = _index_rows(tmp_path / "graph.sqlite3")
    bad = Edge(BIG[0].id, BIG[1].id, "CALLS", "EXTRACTED", 1.0, "")  # no explanation

    with pytest.raises(ValueError, match="explanation"):
        store.apply("p", GraphBatch(nodes=BIG, edges=[bad], clear=True))

    assert _index_rows(tmp_path / "graph.sqlite3") == before
    assert store.counts("p").nodes == 10
    assert store.find_by_name("p", "f3", limit=5)[0] == [BIG[3]]


def _rows(path: Path, project: str) -> tuple[list[tuple], list[tuple]]:
    """A project's node rows and edges (ends by id), without rids."""
    conn = sqlite3.connect(path)
    nodes = conn.execute(
        f"SELECT {', '.join(sql.NODE_COLUMNS)} FROM nodes WHERE project = ? ORDER BY id", (project,)
    ).fetchall()
    edges = conn.execute(
        "SELECT s.id, e.relation, t.id, e.confidence, e.confidence_score, e.explanation, e.file,"
        " e.line, e.properties FROM edges AS e JOIN nodes AS s ON s.rid = e.source"
        " JOIN nodes AS t ON t.rid = e.target WHERE s.project = ? ORDER BY 1, 2, 3",
        (project,),
    ).fetchall()
    fts = tuple(
        conn.execute(
            f"SELECT count(*) FROM {table} JOIN nodes ON nodes.rid = {table}.rowid WHERE nodes.project = ?"
            f" AND {table} MATCH 'helper'",
            (project,),
        ).fetchone()[0]
        for table in sql.FTS_TABLES
    )
    conn.close()
    return nodes, edges + [fts]


def test_a_clearing_write_chooses_rids_that_give_the_rows_an_upsert_gives(tmp_path: Path) -> None:
    a, b = node("Function", "m.helper", "m.py"), node("Function", "m.b", "m.py")
    renamed = node("Function", "m.b", "m.py", signature="def b(x)")  # same id: the last one wins
    edges = [
        edge(a.id, b.id), edge(a.id, b.id, explanation="again"),  # one key twice: the last wins
        edge(b.id, "module:ext:os", "IMPORTS"), edge("module:ext:os", a.id, "REFERENCES"),  # a stub
        edge(a.id, b.id, "REFERENCES", properties={"via": "x"}),
    ]  # fmt: skip
    batch = GraphBatch(nodes=[a, b, renamed], edges=edges, version=3)
    store = SqliteGraphStore(tmp_path / "graph.sqlite3")
    store.ensure_schema()
    store.apply("other", GraphBatch(nodes=BIG[:20], edges=[edge(BIG[0].id, "stub:x")]))  # rids below
    store.apply("cleared", GraphBatch(nodes=BIG[:5]))  # replaced by the clear
    store.apply("cleared", GraphBatch(nodes=batch.nodes, edges=batch.edges, clear=True, version=3))
    store.apply("upserted", batch)

    cleared, upserted = _rows(tmp_path / "graph.sqlite3", "cleared"), _rows(tmp_path / "graph.sqlite3", "upserted")
    assert [row[1:] for row in cleared[0]] == [row[1:] for row in upserted[0]]
    assert cleared[1] == upserted[1]
    assert len(cleared[0]) == 3 and len(cleared[1]) == 5  # two nodes and a stub; four edges, a hit
    assert store.get_node("cleared", b.id) == renamed
    assert store.counts("other").edges == 1  # the other project's rows are untouched
    assert store.edges_of("cleared", "module:ext:os", "out", limit=5)[1] == 1


@pytest.mark.parametrize(
    "bad",
    [
        {"relation": "CALLS`]->() DETACH DELETE (n) //"}, {"relation": ""}, {"confidence": "MAYBE"},
        {"confidence_score": 1.5}, {"confidence_score": float("nan")}, {"explanation": "  "},
        {"explanation": ""}, {"target": ""}, {"source": None}, {"target": 5},
        {"properties": {"Bad": 1}}, {"properties": {"ok": [1]}},
    ],
)  # fmt: skip
@pytest.mark.parametrize("clear", [True, False])
def test_a_bad_edge_gets_the_checks_own_error_whatever_the_write(tmp_path: Path, bad: dict, clear: bool) -> None:
    """edge_values' inline tests only let the usual edge skip check_edge: every other one is
    rejected with check_edge's own message, and nothing is written."""
    store = SqliteGraphStore(tmp_path / "graph.sqlite3")
    store.ensure_schema()
    wrong = Edge(**{**vars_of(edge(BIG[0].id, BIG[1].id)), **bad})
    with pytest.raises(ValueError) as expected:
        rows.check_edge(wrong)
    good = [edge(BIG[i].id, BIG[i + 1].id) for i in range(5)]
    with pytest.raises(ValueError) as found:
        store.apply("p", GraphBatch(nodes=BIG[:10], edges=[*good, wrong], clear=clear))
    assert str(found.value) == str(expected.value)
    assert store.counts("p").nodes == 0
    store.close()


def vars_of(value: Edge) -> dict[str, object]:
    return {name: getattr(value, name) for name in Edge.__dataclass_fields__}


def test_a_clearing_write_sorts_its_edges_and_the_last_of_a_key_still_wins(tmp_path: Path) -> None:
    """Edges go in sorted by key (sqlite_bulk.insert_cleared): given in descending key order with
    one key three times, the rows are those upserts in the given order leave."""
    ids = [n.id for n in BIG[:6]]
    edges = [edge(ids[i], ids[j]) for i in range(5, 0, -1) for j in range(i - 1, -1, -1)]
    edges[3:3] = [edge(ids[0], ids[1], explanation="first")]
    edges.append(edge(ids[0], ids[1], explanation="second"))
    edges.insert(7, edge(ids[2], ids[1], explanation="early"))
    store = SqliteGraphStore(tmp_path / "graph.sqlite3")
    store.ensure_schema()
    store.apply("cleared", GraphBatch(nodes=BIG[:6], edges=edges, clear=True))
    store.apply("upserted", GraphBatch(nodes=BIG[:6]))
    for one in edges:
        store.apply("upserted", GraphBatch(edges=[one]))

    cleared, upserted = _rows(tmp_path / "graph.sqlite3", "cleared"), _rows(tmp_path / "graph.sqlite3", "upserted")
    assert [row[1:] for row in cleared[0]] == [row[1:] for row in upserted[0]]
    assert cleared[1] == upserted[1]
    explanations = {(s, t): x for s, _, t, _, _, x, *_ in cleared[1][:-1]}
    assert explanations[ids[0], ids[1]] == "second"
    assert explanations[ids[2], ids[1]] == f"{ids[2]} calls {ids[1]}"  # not "early"
    store.close()


def test_a_new_file_gets_the_larger_pages_and_an_existing_file_keeps_its_own(tmp_path: Path) -> None:
    old = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(old)
    conn.execute("PRAGMA journal_mode = WAL")  # a file made before: SQLite's default pages
    conn.close()
    for path, expected in ((tmp_path / "new.sqlite3", SQLITE_PAGE_SIZE), (old, 4_096)):
        store = SqliteGraphStore(path)
        store.ensure_schema()
        store.apply("p", GraphBatch(nodes=BIG[:10], edges=[edge(BIG[0].id, BIG[1].id)], clear=True))
        (found,) = store._connection().execute("PRAGMA page_size").fetchone()  # noqa: SLF001
        assert found == expected
        assert store.counts("p").edges == 1
        store.close()
