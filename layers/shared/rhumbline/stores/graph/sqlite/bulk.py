"""Clearing writes on SQLite: rids chosen in Python, lookup indexes rebuilt afterwards.

A clearing write starts from a project with no row: nothing can conflict, so every rid is chosen
here (the next ones SQLite would give, above the file's highest) and the edges' ends need no
lookup (a `SELECT id, rid ... json_each` of every end, a visible share of a large write).

Large ones (BULK_NODES) drop the lookup indexes (the four node indexes and edges_in) and rebuild
them after the rows go in: building an index by one sort afterwards costs less than inserting
into it row by row. Only when the write's nodes outnumber every other node of the file:
rebuilding re-indexes the other projects' rows too. The (project, id) key and the edges' primary
key stay: upserts need them.

Inside the write's transaction: a failure rolls the drop back with everything else, and readers
(WAL) keep their snapshot, indexes included, until the commit.

Edges go in sorted by their key (source rid, relation, target rid): the edges table is a WITHOUT
ROWID B-tree on that key, so each row is appended to its last leaf instead of splitting pages all
over the tree (the sort costs far less than the page splits it saves).
The sort is stable: of two edges with one key the later one is still written last and wins.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from operator import itemgetter

from rhumbline.stores.graph import rows
from rhumbline.stores.graph.sqlite import sql
from rhumbline.stores.graph.model import Edge, Node

# Below this many nodes, counting the other rows costs more than deferring saves.
BULK_NODES = 5_000
# An edge row's key: source rid, relation, target rid (edge_values' first three values).
_EDGE_KEY = itemgetter(0, 1, 2)


@contextmanager
def indexes_built_after(conn: sqlite3.Connection, *, clear: bool, new_rows: int) -> Iterator[None]:
    """Around the inserts of a batch; `clear`: the project's rows are deleted already."""
    deferred: tuple[str, ...] = ()
    if clear and new_rows >= BULK_NODES:
        (others,) = conn.execute(sql.COUNT_ALL_NODES).fetchone()
        if others <= new_rows:
            deferred = tuple(sql.BULK_INDEXES)
            for name in deferred:
                conn.execute(f"DROP INDEX IF EXISTS {name}")
    yield
    for name in deferred:
        conn.execute(sql.BULK_INDEXES[name])


def insert_cleared(
    conn: sqlite3.Connection,
    project: str,
    highest: int,
    latest: dict[str, Node],
    edges: Sequence[Edge],
) -> None:
    """The rows of a clearing write (the project's rows are deleted already); `highest`: the
    file's highest rid, `latest`: the batch's nodes by id, the last of each id. The nodes go in
    rid order (each insert an append)."""
    rid_of = {node_id: rid for rid, node_id in enumerate(latest, highest + 1)}
    ends = {end for e in edges for end in (e.source, e.target) if isinstance(end, str) and end}
    stubs = {end: rid for rid, end in enumerate(ends - latest.keys(), highest + len(latest) + 1)}
    rid_of.update(stubs)
    with indexes_built_after(conn, clear=True, new_rows=len(latest)):
        if edges:
            # Edges are checked as their rows are built: a bad one rolls the whole batch back.
            edge_rows = sorted((edge_values(e, rid_of) for e in edges), key=_EDGE_KEY)
            conn.executemany(sql.UPSERT_EDGE, edge_rows)
            del edge_rows
        conn.executemany(
            sql.INSERT_NODE_AT,
            ((rid_of[n.id], project, *rows.node_values(n)) for n in latest.values()),
        )
        # Stubs after the nodes: their rids are the highest.
        conn.executemany(sql.INSERT_STUB_AT, ((rid, project, end) for end, rid in stubs.items()))


def edge_values(edge: Edge, rid_of: dict[str, int]) -> tuple[object, ...]:
    """An edge's row (sql.UPSERT_EDGE), its ends as rids; checked first."""
    explanation, score = edge.explanation, edge.confidence_score
    # The usual edge passes these few tests inline (no call and no copy of its explanation per
    # edge); any other gets check_edge's specific error, or passes it.
    if (
        edge.properties is not None
        or edge.confidence not in rows.CONFIDENCES
        or not 0.0 <= score <= 1.0
        or not explanation
        or explanation.isspace()
        or type(edge.source) is not str
        or type(edge.target) is not str
        or not edge.source
        or not edge.target
    ):
        rows.check_edge(edge)
    rows.check_relation(edge.relation)
    return (
        rid_of[edge.source],
        edge.relation,
        rid_of[edge.target],
        edge.confidence,
        float(score),
        explanation,
        edge.file,
        edge.line,
        rows.properties_json(edge),
    )
