"""The embedded graph store: one SQLite file, stdlib `sqlite3` only (connections: connection.py).

Edges refer to nodes by integer row id (small keys: a bulk load is several times faster than with
text ids). An edge may name an end with no node (dangling); that end is then a *stub* row: project
and id only, no kind. Stubs are invisible to get_node, search, find_by_name and counts; edges_of
reports them with kind "Unknown" and the id as name; a later node with that id fills the stub in;
remove_files deletes stubs left without edges. The Neo4j backend models dangling ends the same way.

Edges are keyed by (source, relation, target): writing the same edge again updates it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence, Set
from contextlib import AbstractContextManager
from typing import cast

from rhumbline.stores.graph import ranking, rows
from rhumbline.stores.graph.words import title_key
from rhumbline.stores.graph.model import Direction, Edge, EdgeView, GraphBatch, GraphCounts, Node, NodeEdges
from rhumbline.stores.graph.protocol import GraphConflict, GraphStore
from rhumbline.stores.graph.sqlite import sql
from rhumbline.stores.graph.sqlite.bulk import edge_values, insert_cleared
from rhumbline.stores.graph.sqlite.file_rows import SqliteFileRows
from rhumbline.stores.graph.sqlite.lookups import SqliteLookups, edge_view_at
from rhumbline.stores.graph.ranking import Probe, SearchPlan, SearchRow

# Sorts after any character a name can contain: `x >= q AND x < q || _HIGH` is "starts with q".
_HIGH = "\U0010ffff"


# Connections: connection.py; nodes_in_file, edges_around, degrees: lookups.py; file_rows: file_rows.py;
# traversals and the other bundles: GraphStore (protocol.py).
class SqliteGraphStore(SqliteLookups, SqliteFileRows, GraphStore):
    backend = "sqlite"

    # -- schema and writes ----------------------------------------------------------------------

    def ensure_schema(self) -> None:
        with self._write_lock, self._bounded(self._timeout) as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version not in (0, *sql.UPGRADABLE_VERSIONS, sql.SCHEMA_VERSION):
                raise RuntimeError(
                    f"{self._path} has graph schema version {version}; this code expects "
                    f"{sql.SCHEMA_VERSION}: delete the file and re-ingest"
                )
            if version in sql.UPGRADABLE_VERSIONS:
                conn.execute(sql.ADD_BODY_TERMS)
            conn.executescript(sql.SCHEMA)
            if version in sql.UPGRADABLE_VERSIONS:
                conn.execute(sql.REBUILD_BODY_INDEX)
            if "properties" not in {row[0] for row in conn.execute(sql.EDGE_COLUMNS)}:
                conn.execute(sql.ADD_EDGE_PROPERTIES)

    def apply(self, project: str, batch: GraphBatch) -> None:
        with self._writing(rows.write_budget(self._timeout, batch), bulk=batch.clear) as conn:
            if batch.expect_version is not None:
                found = conn.execute(sql.GET_STAMP, (project,)).fetchone()
                if (found[0] if found else None) != batch.expect_version:
                    raise GraphConflict(
                        f"the graph of {project} is at version {found[0] if found else None},"
                        f" not {batch.expect_version}: nothing written"
                    )
            if batch.clear:
                self._delete_all(conn, project)
            elif batch.remove_files:
                self._remove_files(conn, project, batch.remove_files)
            if batch.remove_edges and not batch.clear:
                keys = json.dumps([[s, r, t] for s, r, t in batch.remove_edges])
                for statement in sql.REMOVE_EDGES:
                    conn.execute(statement, {"project": project, "keys": keys})
            if batch.remove_nodes and not batch.clear:
                ids = json.dumps(list(batch.remove_nodes))
                for statement in sql.REMOVE_NODES:
                    conn.execute(statement, {"project": project, "ids": ids})
            if batch.version is not None:
                conn.execute(sql.SET_STAMP, (project, batch.version))
            # Rows added from here on get rids above this (SQLite's rowid rule below 2**63).
            (highest,) = conn.execute("SELECT coalesce(max(rid), 0) FROM nodes").fetchone()
            # Last one wins within a batch, as across batches; deduplicating first also means an
            # upsert conflict only ever meets a row indexed by an earlier batch.
            latest = {node.id: node for node in batch.nodes}
            if batch.clear:
                insert_cleared(conn, project, highest, latest, batch.edges)
            else:
                if latest:
                    conn.executemany(
                        sql.UPSERT_NODE, ((project, *rows.node_values(n)) for n in latest.values())
                    )
                if batch.edges:
                    self._write_edges(conn, project, batch.edges, latest.keys())
            # One INSERT ... SELECT indexes every new row: an FTS5 insert per statement flushes
            # its in-memory index each time (ten times slower for a bulk load).
            for statement in sql.INDEX_NEW_NODES:
                conn.execute(statement, (highest,))

    def _write_edges(
        self, conn: sqlite3.Connection, project: str, edges: Sequence[Edge], known: Set[str]
    ) -> None:
        ends = {end for e in edges for end in (e.source, e.target) if isinstance(end, str) and end}
        conn.executemany(sql.ADD_STUB, ((project, end) for end in ends - known))
        rid_of = dict(conn.execute(sql.RIDS_OF, (project, json.dumps(list(ends)))).fetchall())
        # Edges are checked as they are written: a bad one rolls the whole batch back.
        conn.executemany(sql.UPSERT_EDGE, (edge_values(e, rid_of) for e in edges))

    def _remove_files(self, conn: sqlite3.Connection, project: str, files: Sequence[str]) -> None:
        params = {"project": project, "files": json.dumps(list(files))}
        for statement in sql.REMOVE_FILES:
            conn.execute(statement, params)

    def _delete_all(self, conn: sqlite3.Connection, project: str) -> None:
        conn.execute(sql.DELETE_PROJECT_EDGES, (project,))
        conn.execute(sql.DELETE_PROJECT_NODES, (project,))
        conn.execute(sql.DELETE_STAMP, (project,))

    def graph_version(self, project: str) -> int | None:
        with self._bounded(self._timeout) as conn:
            found = conn.execute(sql.GET_STAMP, (project,)).fetchone()
        return found[0] if found else None

    def delete_project(self, project: str) -> None:
        with self._bounded(self._timeout) as conn:
            (count,) = conn.execute(sql.COUNT_ROWS, (project,)).fetchone()
        with self._writing(self._timeout + count / 1000 * rows.WRITE_SECONDS_PER_1000_ROWS) as conn:
            self._delete_all(conn, project)

    # -- reads ----------------------------------------------------------------------------------

    def get_node(self, project: str, node_id: str) -> Node | None:
        with self._bounded(self._timeout) as conn:
            row = conn.execute(sql.GET_NODE, (project, node_id)).fetchone()
        return rows.node_at(row) if row is not None else None

    def _edges_of(
        self, project: str, node_id: str, direction: Direction, limit: int, offset: int
    ) -> tuple[list[EdgeView], int]:
        with self._reading() as conn:
            page, total = _edges_page(conn, project, node_id, direction, limit, offset)
        return [edge_view_at(direction, r) for r in page], total

    def node_with_edges(
        self, project: str, node_id: str, *, limit: int, out_offset: int = 0, in_offset: int = 0
    ) -> NodeEdges | None:
        rows.check_page(limit, out_offset)
        rows.check_page(limit, in_offset)
        # One snapshot (one BEGIN/COMMIT) for the five reads, instead of one per edges_of.
        with self._reading() as conn:
            row = conn.execute(sql.GET_NODE, (project, node_id)).fetchone()
            if row is None:
                return None
            sides: dict[str, tuple[list[EdgeView], int]] = {}
            pages: tuple[tuple[Direction, int], ...] = (("out", out_offset), ("in", in_offset))
            for direction, offset in pages:
                page, total = _edges_page(conn, project, node_id, direction, limit, offset)
                sides[direction] = [edge_view_at(direction, r) for r in page], total
            stamp = conn.execute(sql.GET_STAMP, (project,)).fetchone()
        return NodeEdges(
            node=rows.node_at(row),
            outgoing=sides["out"][0],
            outgoing_total=sides["out"][1],
            incoming=sides["in"][0],
            incoming_total=sides["in"][1],
            version=stamp[0] if stamp else None,
        )

    def _search_reader(self) -> AbstractContextManager[sqlite3.Connection]:
        return self._reading()

    def _probe_counts(self, reader: object, projects: Sequence[str], probes: Sequence[Probe]) -> list[int]:
        if not probes:
            return []
        conn = cast(sqlite3.Connection, reader)
        scope = self._scope(conn, projects)
        params: dict[str, object] = {f"m{i}": scope + _probe_query(p) for i, p in enumerate(probes)}
        params["cap"] = ranking.SELECTIVE + 1
        statement = sql.probe_counts(tuple(sql.FTS_TABLE_OF[p.field] for p in probes))
        return list(conn.execute(statement, params).fetchone())

    def _scope(self, conn: sqlite3.Connection, projects: Sequence[str]) -> str:
        """The FTS5 condition keeping a probe to `projects`: none when the file holds no other
        project (limiting a probe to a project walks every row of it). Known per data_version."""
        (version,) = conn.execute("PRAGMA data_version").fetchone()
        cached = self._local.counts.get("\0projects")
        if cached is None or cached[0] != version:
            cached = (version, frozenset(p for (p,) in conn.execute(sql.PROJECTS)))
            self._local.counts["\0projects"] = cached
        if cached[1] <= set(projects):
            return ""
        return f"project : ({' OR '.join(_quoted(p) for p in projects)}) AND "

    def _search_rows(
        self, reader: object, projects: Sequence[str], plan: SearchPlan, weighing: ranking.Weighing,
        kinds: Sequence[str] | None, names: bool,
    ) -> tuple[list[SearchRow], int]:  # fmt: skip
        conn = cast(sqlite3.Connection, reader)
        scope = self._scope(conn, projects)
        params: dict[str, object] = {
            "projects": json.dumps(list(projects)), "kinds": json.dumps(list(kinds)) if kinds is not None else None,
            "q": plan.lower, "q_end": plan.lower + _HIGH, "typed": plan.typed,
            "phrase": f" {plan.phrase}" if plan.phrase else None, "words": plan.phrase, "cut": ranking.CUT,
            "name_phrase": f"{scope}name_words : {_quoted(plan.phrase)}*" if plan.phrase else None,
        }  # fmt: skip
        for i, (probe, weight) in enumerate(weighing.selecting):
            params.update({f"s{i}": scope + _probe_query(probe), f"b{i}": 1 << probe.bit, f"w{i}": weight})
        checks = []
        for i, probe in enumerate(weighing.common):
            params.update({f"c{i}_{j}": f" {needle} " for j, needle in enumerate(probe.needles)})
            checks.append((probe.field, len(probe.needles), probe.bit))
        tables = tuple(sql.FTS_TABLE_OF[probe.field] for probe, _ in weighing.selecting)
        statement = sql.search_rows(tables, names, names and plan.phrase is not None, tuple(checks))
        found = conn.execute(statement, params).fetchall()
        return [SearchRow(rows.node_at(row, 8), *row[:7]) for row in found], found[0][7] if found else 0

    def find_by_name(
        self, project: str, name: str, *, kinds: Sequence[str] | None = None, limit: int = 20
    ) -> tuple[list[Node], int]:
        rows.check_page(limit)
        lowered = name.strip().lower()
        if not lowered:
            raise ValueError("name is empty")
        suffix = ("." + lowered)[::-1]
        letters, terms = title_key(name)
        params = {
            "project": project,
            "name": lowered,
            "suffix": suffix,
            "suffix_end": suffix + _HIGH,
            "kinds": json.dumps(list(kinds)) if kinds is not None else None,
            "limit": limit,
            "title_letters": letters,
            "title_terms": f"name_terms : ({' AND '.join(map(_quoted, terms)) or _quoted('')})",
        }
        with self._reading() as conn:
            page = conn.execute(sql.FIND_PAGE, params).fetchall()
            (total,) = conn.execute(sql.FIND_TOTAL, params).fetchone()
        return [rows.node_at(r) for r in page], total

    def nodes_of_kind(
        self, project: str, kind: str, *, limit: int, offset: int = 0
    ) -> tuple[list[Node], int]:
        rows.check_page(limit, offset)
        with self._reading() as conn:
            page = conn.execute(sql.KIND_PAGE, (project, kind, limit, offset)).fetchall()
            (total,) = conn.execute(sql.KIND_TOTAL, (project, kind)).fetchone()
        return [rows.node_at(r) for r in page], total

    def counts(self, project: str) -> GraphCounts:
        # Counting a large project's edges takes a few hundred milliseconds, and listing projects
        # asks again and again: answers are kept per connection until the data changes.
        # data_version moves when another connection commits; our own commits clear the cache.
        with self._reading() as conn:
            (version,) = conn.execute("PRAGMA data_version").fetchone()
            cached = self._local.counts.get(project)
            if cached is None or cached[0] != version:
                by_kind = dict(conn.execute(sql.COUNT_KINDS, (project,)).fetchall())
                by_relation = dict(conn.execute(sql.COUNT_RELATIONS, (project,)).fetchall())
                cached = (version, by_kind, by_relation)
                self._local.counts[project] = cached
        return GraphCounts.of(cached[1], cached[2])


def _edges_page(
    conn: sqlite3.Connection, project: str, node_id: str, direction: Direction, limit: int, offset: int
) -> tuple[list[sqlite3.Row], int]:
    """One direction's page of a node's edges and their exact total (counted only when the page
    does not tell it: rows.total_of_page), inside the caller's snapshot."""
    page = conn.execute(sql.EDGES_PAGE[direction], (project, node_id, limit, offset)).fetchall()
    total = rows.total_of_page(len(page), limit, offset)
    if total is None:
        (total,) = conn.execute(sql.EDGES_TOTAL[direction], (project, node_id)).fetchone()
    return page, total


def _probe_query(probe: Probe) -> str:
    """FTS5 syntax built only from quoted words, so no user text is ever parsed as an operator."""
    return f"{probe.field} : ({' OR '.join(_quoted(needle) for needle in probe.needles)})"


def _quoted(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'
