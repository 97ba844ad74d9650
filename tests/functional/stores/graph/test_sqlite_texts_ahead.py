"""SQLite clearing writes taking the later nodes' search text from another process
(texts_ahead.py): the rows are those the write computes itself, whatever the other process
sends or fails to send."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from rhumbline.ingest import snapshot_ahead
from rhumbline.stores.graph.sqlite import sql
from rhumbline.stores.graph.model import GraphBatch
from rhumbline.stores.graph.sqlite.store import SqliteGraphStore
from rhumbline.stores.graph.texts_ahead import TextsAhead, compute, first_of_child, write_order
from tests.functional.stores.graph.graph_samples import edge, node

NODES = [
    node("Function", f"pkg.mod{i % 7}.Thing{i}.do_it_{i}", f"pkg/mod{i % 7}.py",
         docstring="Does it." if i % 3 == 0 else None)
    for i in range(40)
]  # fmt: skip
# One id twice: the write keeps the last, in the first one's place.
NODES.append(node("Function", "pkg.mod1.Thing1.do_it_1", "pkg/mod1.py", signature="def do_it_1(x)"))
EDGES = [edge(NODES[i].id, NODES[i + 1].id) for i in range(39)] + [edge(NODES[0].id, "module:ext:os")]
INPUTS = {"files": {}, "unresolved": {}, "context": ("c", "h"), "read_ns": 1}


def _rows(path: Path) -> list[tuple]:
    """Every node row (all columns, rid included) and every edge row of the file."""
    conn = sqlite3.connect(path)
    found = conn.execute(f"SELECT rid, {', '.join(sql.NODE_COLUMNS)} FROM nodes ORDER BY rid").fetchall()
    found += conn.execute("SELECT * FROM edges ORDER BY source, relation, target").fetchall()
    found += conn.execute("SELECT rowid, * FROM node_fts ORDER BY rowid").fetchall()
    conn.close()
    return found


def _write(path: Path, texts: TextsAhead | None) -> list[tuple]:
    store = SqliteGraphStore(path)
    store.ensure_schema()
    store.apply("p", GraphBatch(nodes=NODES, edges=EDGES, clear=True, version=1, texts_ahead=texts))
    store.close()
    return _rows(path)


def test_the_text_from_the_snapshot_child_gives_the_rows_of_a_write_on_its_own(tmp_path: Path) -> None:
    child = snapshot_ahead.start("p", NODES, EDGES, INPUTS, texts=True)
    assert child is not None
    taken: list[object] = []
    texts = snapshot_ahead.texts_of(child)
    real_take = texts.take

    def take(nodes: object) -> object:
        taken.append(real_take(nodes))  # type: ignore[arg-type]
        return taken[-1]

    texts.take = take  # type: ignore[method-assign]
    assert _write(tmp_path / "ahead.sqlite3", texts) == _write(tmp_path / "alone.sqlite3", None)
    latest = list(write_order(NODES).values())
    assert len(taken) == 1 and taken[0] == compute(NODES)[2]
    assert len(taken[0]) == len(latest) - first_of_child(len(latest)) > 0  # type: ignore[arg-type]
    # The child's last value (snapshot, scores) still comes after the text.
    found, ahead = snapshot_ahead.result(child, NODES, EDGES, INPUTS, texts)
    assert found == snapshot_ahead.encode(NODES, EDGES, INPUTS) and ahead is not None


def test_the_write_uses_the_text_it_is_given(tmp_path: Path) -> None:
    """Proof that the text is taken and not recomputed: a well-shaped but different text lands."""
    latest = list(write_order(NODES).values())
    start = first_of_child(len(latest))
    marked = [("x",) * 7] * (len(latest) - start)
    rows = _write(tmp_path / "g.sqlite3", TextsAhead(lambda: (start, latest[start].id, marked)))
    name_lower = [row[5] for row in rows[: len(latest)]]
    assert name_lower[start:] == ["x"] * (len(latest) - start)
    assert "x" not in name_lower[:start]


def test_a_missing_or_misshapen_text_is_computed_by_the_write(tmp_path: Path) -> None:
    alone = _write(tmp_path / "alone.sqlite3", None)
    latest = list(write_order(NODES).values())
    start = first_of_child(len(latest))
    good = compute(NODES)[2]
    wrong = [
        None,  # the child died or was late
        (start, latest[start].id, good[1:]),  # one short
        (start + 1, latest[start + 1].id, good[1:]),  # another split
        (start, latest[0].id, good),  # another node first: another graph
        ["not", "a", "tuple"],
    ]
    for i, sent in enumerate(wrong):
        assert _write(tmp_path / f"g{i}.sqlite3", TextsAhead(lambda sent=sent: sent)) == alone


def test_a_text_nobody_took_is_read_past_before_the_snapshot(tmp_path: Path) -> None:
    child = snapshot_ahead.start("p", NODES, EDGES, INPUTS, texts=True)
    texts = snapshot_ahead.texts_of(child)
    found, ahead = snapshot_ahead.result(child, NODES, EDGES, INPUTS, texts)
    assert found == snapshot_ahead.encode(NODES, EDGES, INPUTS) and ahead is not None
