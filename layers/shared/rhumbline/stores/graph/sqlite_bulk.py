"""Clearing writes on SQLite: rids chosen in Python, node rows prepared by a forked child,
lookup indexes rebuilt afterwards.

A clearing write starts from a project with no row: nothing can conflict, so every rid is chosen
here (the next ones SQLite would give, above the file's highest) and the edges' ends need no
lookup (a `SELECT id, rid ... json_each` of every end cost Django's `django/` 0.28 CPU s).

Large ones (BULK_NODES):

- Node rows carry derived search text (words.node_text), the largest Python cost of the write
  (full sdist, 77k nodes: 1.3-1.8 CPU s). A forked child (rhumbline/forked.py) computes the rows
  while this process writes the stubs and edges, which need only the rids; this process then
  loads the child's rows (0.2 CPU s) and inserts them. No child (no fork, no room for the copy, it
  failed): the rows are computed here, as before.
- The lookup indexes (the four node indexes and edges_in) are dropped and rebuilt after the rows
  go in: building an index by one sort afterwards costs about half of inserting into it row by
  row (Django's `django/`, 18.7k nodes: 0.7 → 0.4 CPU s for the node rows; the full sdist's 53.6k:
  2.0 → 1.3; edges_in on the sdist's 199k edges: 1.2 → 1.05 for the edge rows). Only when the
  write's nodes outnumber every other node of the file: rebuilding re-indexes the other projects'
  rows too. The (project, id) key and the edges' primary key stay: upserts need them.

Inside the write's transaction: a failure rolls the drop back with everything else, and readers
(WAL) keep their snapshot, indexes included, until the commit.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from rhumbline import forked
from rhumbline.stores.graph import rows
from rhumbline.stores.graph import sqlite_sql as sql
from rhumbline.stores.graph.protocol import Edge, Node

# Below this many nodes, counting the other rows (and forking) costs more than it saves.
BULK_NODES = 5_000
# Bounds a stuck child, not the work (seconds for the full sdist's rows on a loaded machine).
ROWS_SECONDS = 60.0


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
    file's highest rid, `latest`: the batch's nodes by id, the last of each id."""
    nodes = list(latest.values())
    rid_of = {node_id: rid for rid, node_id in enumerate(latest, highest + 1)}
    prepared = _rows_ahead(nodes) if len(nodes) >= BULK_NODES else None
    try:
        with indexes_built_after(conn, clear=True, new_rows=len(nodes)):
            if edges:
                _insert_edges(conn, project, highest + len(nodes), rid_of, edges)
            found = prepared.result() if prepared is not None else None
            values = found if found is not None else map(rows.node_values, nodes)
            conn.executemany(
                sql.INSERT_NODE_AT,
                ((rid, project, *row) for rid, row in enumerate(values, highest + 1)),
            )
    finally:
        if prepared is not None:
            prepared.close()


def _insert_edges(
    conn: sqlite3.Connection, project: str, highest: int, rid_of: dict[str, int], edges: Sequence[Edge]
) -> None:
    """Stubs for the ends no node has (rids above `highest`), then the edges."""
    ends = {end for e in edges for end in (e.source, e.target) if isinstance(end, str) and end}
    stubs = {end: rid for rid, end in enumerate(ends - rid_of.keys(), highest + 1)}
    conn.executemany(sql.INSERT_STUB_AT, ((rid, project, end) for end, rid in stubs.items()))
    rid_of.update(stubs)
    # Edges are checked as they are written: a bad one rolls the whole batch back.
    conn.executemany(sql.UPSERT_EDGE, (edge_values(e, rid_of) for e in edges))


def _rows_ahead(nodes: list[Node]) -> forked.Forked | None:
    # Four copies at worst: this process, the pipeline's snapshot and centrality children, this.
    return forked.start(
        _node_rows, (nodes,), seconds=ROWS_SECONDS, expected=list, what="node rows", copies=4
    )


def _node_rows(nodes: list[Node]) -> list[tuple[object, ...]]:
    return [rows.node_values(node) for node in nodes]


def edge_values(edge: Edge, rid_of: dict[str, int]) -> tuple[object, ...]:
    """An edge's row (sqlite_sql.UPSERT_EDGE), its ends as rids; checked first."""
    rows.check_edge(edge)
    return (
        rid_of[edge.source],
        edge.relation,
        rid_of[edge.target],
        edge.confidence,
        float(edge.confidence_score),
        edge.explanation,
        edge.file,
        edge.line,
        rows.properties_json(edge),
    )
