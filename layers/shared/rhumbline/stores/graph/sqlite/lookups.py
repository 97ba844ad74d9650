"""SQLite: the lookups behind the code-context tools (nodes of a file, edges around a node set).

A part of SqliteGraphStore: it reads through the store's connections (connection.py: statements
past the store's timeout are interrupted; a page and its total read one snapshot).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from rhumbline.stores.graph import rows
from rhumbline.stores.graph.model import Direction, EdgeView, LinkedEdge, Node, RelationEdges
from rhumbline.stores.graph.rows import NODE_FIELDS
from rhumbline.stores.graph.sqlite.connection import SqliteConnections

_COLUMNS = ", ".join(f"n.{f}" for f in NODE_FIELDS)
_OTHER_COLUMNS = ", ".join(f"o.{f}" for f in NODE_FIELDS)
# Filters are left out of the SQL rather than written `:x IS NULL OR ...`: an OR keeps SQLite from
# using the (target, relation, source) index for the relation.
_KINDS = "AND n.kind IN (SELECT value FROM json_each(:kinds))"
_RELATIONS = "AND e.relation IN (SELECT value FROM json_each(:relations))"

# coalesce: nodes without a line (a module of an empty file) sort first on both backends.
_IN_FILE = """
FROM nodes AS n
WHERE n.project = :project AND n.file = :path AND n.kind IS NOT NULL AND n.kind != 'File' {kinds}
"""
IN_FILE_PAGE = {
    filtered: f"SELECT {_COLUMNS} {_IN_FILE.format(kinds=_KINDS if filtered else '')}"
    " ORDER BY coalesce(n.start_line, 0), n.id LIMIT :limit OFFSET :offset"
    for filtered in (False, True)
}
# A separate count: a window count would buffer every wide row (docstrings) first.
IN_FILE_TOTAL = {
    filtered: f"SELECT count(*) {_IN_FILE.format(kinds=_KINDS if filtered else '')}" for filtered in (False, True)
}

_ME = "me (rid, id) AS (SELECT rid, id FROM nodes WHERE project = :project AND id IN (SELECT value FROM json_each(:ids)))"
_EDGES_OF_ME = "FROM me JOIN edges AS e ON e.{this} = me.rid JOIN nodes AS o ON o.rid = e.{other} WHERE 1 {relations}"
# An AROUND row: the edge seen from `me`, the far end summarized (a stub has no kind nor name) and
# its NODE_FIELDS (see _linked).
_AROUND_ROW = """me.id, e.relation, e.confidence, e.confidence_score, e.explanation, e.file, e.line,
    e.properties, o.id, coalesce(o.kind, 'Unknown'), coalesce(o.name, o.id), {other_columns}"""
# Every edge, sorted, with no window function: SQLite's row_number/count windows cost per row and
# buffer the wide rows, so the page and the counts are cut in Python. At most :guard rows (-1:
# all), see edges_around.
_AROUND_ALL = "SELECT " + _AROUND_ROW + " " + _EDGES_OF_ME + " ORDER BY e.relation, me.id, o.id LIMIT :guard"
_AROUND_TOTALS = "SELECT e.relation, count(*) " + _EDGES_OF_ME + " GROUP BY e.relation"
# A hub (some relation past the limit): number the edges by (node id, other id) per relation, then
# read the far ends' full rows only for the first :limit of each (thousands of callers are
# counted, not read).
_AROUND_CUT = """
, hits AS (
    SELECT me.id AS node_id, e.relation, e.confidence, e.confidence_score, e.explanation, e.file,
           e.line, e.properties, e.{other} AS other_rid,
           row_number() OVER (PARTITION BY e.relation ORDER BY me.id, o.id) AS n
    FROM me JOIN edges AS e ON e.{this} = me.rid JOIN nodes AS o ON o.rid = e.{other}
    WHERE 1 {relations}
)
SELECT hits.node_id, hits.relation, hits.confidence, hits.confidence_score, hits.explanation,
       hits.file, hits.line, hits.properties, o.id, coalesce(o.kind, 'Unknown'),
       coalesce(o.name, o.id), {other_columns}
FROM hits JOIN nodes AS o ON o.rid = hits.other_rid
WHERE hits.n <= :limit
ORDER BY hits.relation, hits.n
"""
_DEGREES = (
    "SELECT me.id, e.relation, count(*) FROM me JOIN edges AS e ON e.{this} = me.rid"
    " WHERE 1 {relations} GROUP BY me.id, e.relation"
)
_ENDS = {"out": {"this": "source", "other": "target"}, "in": {"this": "target", "other": "source"}}


def statement_variants(template: str, **extra: str) -> dict[tuple[str, bool], str]:
    """The statement per (direction, filtered by relation)."""
    return {
        (direction, filtered): f"WITH {_ME}"
        + ("" if template.startswith("\n,") else " ")
        + template.format(relations=_RELATIONS if filtered else "", **ends, **extra)
        for direction, ends in _ENDS.items()
        for filtered in (False, True)
    }


AROUND_TOTALS = statement_variants(_AROUND_TOTALS)


def around_statements(other_columns: str) -> tuple[dict[tuple[str, bool], str], dict[tuple[str, bool], str]]:
    """The (every edge, each relation's cut) statements whose rows end with `other_columns` of the
    far end `o` (AROUND rows: its NODE_FIELDS)."""
    return (
        statement_variants(_AROUND_ALL, other_columns=other_columns),
        statement_variants(_AROUND_CUT, other_columns=other_columns),
    )


AROUND_ALL, AROUND_CUT = around_statements(_OTHER_COLUMNS)
DEGREES = statement_variants(_DEGREES)


def _json_or_null(values: Sequence[str] | None) -> str | None:
    return json.dumps(list(values)) if values is not None else None


# Columns of an AROUND row (_AROUND_ROW), read by position (see rows.node_at): the far end's
# NODE_FIELDS start at _OTHER (its kind, NULL for a stub, right after its id).
_NODE_ID, _RELATION, _OTHER = 0, 1, 11


def edge_view_at(direction: Direction, row: Sequence[Any], start: int = 0) -> EdgeView:
    """An EdgeView from a row whose columns `start`, `start + 1`, ... are an edge seen from one end
    (relation, confidence, score, explanation, file, line, properties, other id, kind and name:
    EDGES_PAGE's and an AROUND row's after its node id), read by position as rows.node_at reads a
    node."""
    relation, confidence, score, explanation, file, line, found, other_id, other_kind, other_name = row[
        start : start + 10
    ]
    return EdgeView(
        relation, direction, confidence, score, explanation, file, line,
        other_id, other_kind, other_name, json.loads(found) if found else None,
    )  # fmt: skip


def _linked(direction: Direction, row: Sequence[Any]) -> LinkedEdge:
    other = rows.node_at(row, _OTHER) if row[_OTHER + 1] is not None else None  # a stub has no kind
    return LinkedEdge(node_id=row[_NODE_ID], edge=edge_view_at(direction, row, 1), other=other)


def cut_by_relation(
    found: Sequence[Sequence[Any]], limit: int, totals: dict[str, int] | None = None
) -> dict[str, tuple[list[Sequence[Any]], int]]:
    """AROUND rows (by relation, then node id, other id) by relation, each cut at `limit`, with
    its total: given, or counted from `found` when it holds every edge."""
    if totals is None:
        totals = {}
        for row in found:
            totals[row[_RELATION]] = totals.get(row[_RELATION], 0) + 1
    # Relations in the rows' order (SQLite's BINARY text order, as Python sorts these names).
    grouped: dict[str, tuple[list[Sequence[Any]], int]] = {r: ([], total) for r, total in sorted(totals.items())}
    for row in found:
        kept = grouped[row[_RELATION]][0]
        if len(kept) < limit:
            kept.append(row)
    return grouped


def _grouped(
    direction: Direction, found: Sequence[Sequence[Any]], limit: int, totals: dict[str, int] | None = None
) -> dict[str, RelationEdges]:
    return {
        relation: RelationEdges(edges=[_linked(direction, row) for row in kept], total=total)
        for relation, (kept, total) in cut_by_relation(found, limit, totals).items()
    }


def nodes_in_file_page(
    conn: sqlite3.Connection, project: str, path: str, kinds: Sequence[str] | None, limit: int, offset: int
) -> tuple[list[Any], int]:
    """nodes_in_file's page rows (NODE_FIELDS first) and total inside the caller's snapshot
    (arguments already checked)."""
    params: dict[str, Any] = {
        "project": project, "path": path, "kinds": _json_or_null(kinds), "limit": limit, "offset": offset
    }  # fmt: skip
    filtered = kinds is not None
    page = conn.execute(IN_FILE_PAGE[filtered], params).fetchall()
    total = rows.total_of_page(len(page), limit, offset)
    if total is None:
        (total,) = conn.execute(IN_FILE_TOTAL[filtered], params).fetchone()
    return page, total


def around_rows(
    conn: sqlite3.Connection,
    project: str,
    node_ids: Sequence[str],
    direction: Direction,
    relations: Sequence[str] | None,
    limit: int,
    statements: tuple[dict[tuple[str, bool], str], dict[tuple[str, bool], str]] = (AROUND_ALL, AROUND_CUT),
) -> tuple[list[Any], dict[str, int] | None]:
    """edges_around's rows inside the caller's snapshot (arguments already checked): every edge,
    or each relation's first `limit` with the totals (None: `found` holds every edge, count it).
    `statements`: the (all, cut) statements, AROUND rows or narrower ones of the same layout."""
    every, cut = statements
    params = {
        "project": project,
        "ids": json.dumps(list(node_ids)),
        "relations": _json_or_null(relations),
        "limit": limit,
    }
    key = (direction, relations is not None)
    if relations is not None:
        # The usual case in one statement: every edge, up to one more than the answer can hold.
        # Fewer back means that was all of them: totals and cuts are counted here.
        guard = limit * len(set(relations)) + 1
        found = conn.execute(every[key], {**params, "guard": guard}).fetchall()
        if len(found) < guard:
            return found, None
    # Else each relation's total first; the window function only when one is over the limit.
    totals = {relation: total for relation, total in conn.execute(AROUND_TOTALS[key], params)}
    if not totals:
        return [], totals
    if max(totals.values()) <= limit:
        return conn.execute(every[key], {**params, "guard": -1}).fetchall(), totals
    return conn.execute(cut[key], params).fetchall(), totals


class SqliteLookups(SqliteConnections):
    """nodes_in_file, edges_around and degrees (see GraphStore for each one's contract)."""

    def nodes_in_file(
        self, project: str, path: str, *, kinds: Sequence[str] | None = None, limit: int, offset: int = 0
    ) -> tuple[list[Node], int]:
        rows.check_page(limit, offset)
        with self._reading() as conn:
            page, total = nodes_in_file_page(conn, project, path, kinds, limit, offset)
        return [rows.node_at(r) for r in page], total

    def _edges_around(
        self, project: str, node_ids: Sequence[str], direction: Direction, relations: Sequence[str] | None, limit: int
    ) -> dict[str, RelationEdges]:
        with self._reading() as conn:  # whatever is read, from one snapshot
            found, totals = around_rows(conn, project, node_ids, direction, relations, limit)
        return _grouped(direction, found, limit, totals)

    def _degrees(
        self, project: str, node_ids: Sequence[str], direction: Direction, relations: Sequence[str] | None
    ) -> list[tuple[str, str, int]]:
        params = {"project": project, "ids": json.dumps(list(node_ids)), "relations": _json_or_null(relations)}
        with self._bounded(self._timeout) as conn:
            return conn.execute(DEGREES[(direction, relations is not None)], params).fetchall()
