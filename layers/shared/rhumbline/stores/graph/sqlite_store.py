"""The embedded graph store: one SQLite file, stdlib `sqlite3` only.

Concurrency: one connection per thread (threading.local) so a multi-threaded local server reads in
parallel (WAL lets readers run beside the writer), and writes serialized by a process-wide lock so
threads queue here instead of spinning in SQLite's busy handler. Other processes are covered by
`busy_timeout`. Every statement is bounded: a progress handler interrupts it past its deadline.

Edges refer to nodes by integer row id (small keys: a bulk load is several times faster than with
text ids). An edge may name an end with no node (dangling); that end is then a *stub* row: project
and id only, no kind. Stubs are invisible to get_node, search, find_by_name and counts; edges_of
reports them with kind "Unknown" and the id as name; a later node with that id fills the stub in;
remove_files deletes stubs left without edges. The Neo4j backend models dangling ends the same way.

Edges are keyed by (source, relation, target): writing the same edge again updates it.
"""

from __future__ import annotations

import json
import math
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence, Set
from contextlib import contextmanager
from pathlib import Path

from rhumbline.stores.graph import rows
from rhumbline.stores.graph import sqlite_sql as sql
from rhumbline.stores.graph.protocol import (
    Direction,
    Edge,
    EdgeView,
    GraphBatch,
    GraphConflict,
    GraphCounts,
    GraphUnavailable,
    Node,
    NodeEdges,
    SearchHit,
)
from rhumbline.stores.graph.sqlite_bulk import edge_values, insert_cleared
from rhumbline.stores.graph.sqlite_checkpoint import Checkpoints
from rhumbline.stores.graph.sqlite_file_rows import SqliteFileRows
from rhumbline.stores.graph.sqlite_lookups import SqliteLookups
from rhumbline.stores.graph.sqlite_traversal import SqliteReader
from rhumbline.stores.graph.texts_ahead import write_order
from rhumbline.stores.graph.traversal import TraversalMixin
from rhumbline.stores.graph.words import SearchQuery, match_of

# The progress handler runs every this many SQLite VM instructions (~tens of microseconds).
_PROGRESS_STEPS = 2_000
# Sorts after any character a name can contain: `x >= q AND x < q || _HIGH` is "starts with q".
_HIGH = "\U0010ffff"
# A bulk write keeps its working set in memory rather than spilling half-built indexes to disk.
_WRITE_CACHE_KIB = 256_000
_READ_CACHE_KIB = 32_000
# Pages of a new file (SQLite's default is 4,096): a clearing write of the full Django sdist
# (140 MB) builds, commits and checkpoints half as many pages. Only a file with nothing in it yet
# takes it (it must precede the switch to WAL); existing files keep theirs.
PAGE_SIZE = 8_192
# A search row: project, NODE_FIELDS, score, total (sqlite_sql.search's SELECT).
_SCORE = 1 + len(rows.NODE_FIELDS)


# walk, reach, shortest_paths: traversal.py; nodes_in_file, edges_around, degrees: sqlite_lookups.py;
# file_rows: sqlite_file_rows.py
class SqliteGraphStore(TraversalMixin, SqliteLookups, SqliteFileRows):
    backend = "sqlite"

    def __init__(self, path: Path | str, *, timeout: float = 10.0) -> None:
        self._path = str(path)
        self._timeout = timeout
        self._local = threading.local()
        self._write_lock = threading.Lock()
        self._connections: list[sqlite3.Connection] = []
        self._connections_lock = threading.Lock()
        self._checkpoints = Checkpoints(self._path, timeout)

    # -- connections and bounds ----------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        conn = getattr(self._local, "connection", None)
        if conn is not None:
            return conn
        # isolation_level=None: we issue BEGIN/COMMIT ourselves. check_same_thread=False only so
        # close() can close every thread's connection; each is still used by its own thread.
        conn = sqlite3.connect(
            self._path,
            timeout=self._timeout,
            isolation_level=None,
            check_same_thread=False,
            cached_statements=128,
        )
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA temp_store = MEMORY")
        conn.execute(f"PRAGMA cache_size = -{_READ_CACHE_KIB}")
        conn.executescript(sql.TEMP_TABLES)
        self._local.deadline = math.inf
        self._local.counts = {}
        conn.set_progress_handler(self._past_deadline, _PROGRESS_STEPS)
        self._local.connection = conn
        with self._connections_lock:
            self._connections.append(conn)
        return conn

    def _past_deadline(self) -> int:
        return 1 if time.monotonic() > self._local.deadline else 0

    @contextmanager
    def _bounded(self, seconds: float) -> Iterator[sqlite3.Connection]:
        conn = self._connection()
        self._local.deadline = time.monotonic() + seconds
        try:
            yield conn
        except sqlite3.OperationalError as exc:
            message = str(exc)
            if "interrupted" in message:
                raise GraphUnavailable(
                    f"SQLite graph query exceeded its {seconds:.1f} s timeout ({self._path})"
                ) from exc
            if "locked" in message or "busy" in message:
                raise GraphUnavailable(
                    f"SQLite graph database {self._path} stayed locked for {self._timeout:.1f} s"
                ) from exc
            raise
        finally:
            self._local.deadline = math.inf
            if conn.in_transaction:
                conn.execute("ROLLBACK")

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        """One consistent snapshot for reads made of several statements (page + total)."""
        with self._bounded(self._timeout) as conn:
            conn.execute("BEGIN")
            yield conn
            conn.execute("COMMIT")

    @contextmanager
    def _traversal_reader(self, project: str) -> Iterator[SqliteReader]:
        with self._reading() as conn:
            yield SqliteReader(conn, project)

    @contextmanager
    def _writing(self, seconds: float, *, bulk: bool = False) -> Iterator[sqlite3.Connection]:
        """One write transaction; `bulk`: its WAL is checkpointed after the COMMIT, on another
        thread, instead of inside it (sqlite_checkpoint.py)."""
        if not self._write_lock.acquire(timeout=self._timeout):
            raise GraphUnavailable(
                f"another write to {self._path} held the lock for over {self._timeout:.1f} s"
            )
        try:
            with self._bounded(seconds) as conn:
                conn.execute(f"PRAGMA cache_size = -{_WRITE_CACHE_KIB}")
                if bulk:
                    (automatic,) = conn.execute("PRAGMA wal_autocheckpoint").fetchone()
                    conn.execute("PRAGMA wal_autocheckpoint = 0")
                try:
                    # IMMEDIATE takes the write lock now: a busy database fails fast and cleanly.
                    conn.execute("BEGIN IMMEDIATE")
                    yield conn
                    conn.execute("COMMIT")
                finally:
                    self._local.counts.clear()
                    conn.execute(f"PRAGMA cache_size = -{_READ_CACHE_KIB}")  # frees the surplus
                    if bulk:
                        conn.execute(f"PRAGMA wal_autocheckpoint = {int(automatic)}")
            if bulk:
                self._checkpoints.start()
        finally:
            self._write_lock.release()

    # -- schema and writes ----------------------------------------------------------------------

    def ensure_schema(self) -> None:
        with self._write_lock, self._bounded(self._timeout) as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version not in (0, sql.SCHEMA_VERSION):
                raise RuntimeError(
                    f"{self._path} has graph schema version {version}; this code expects "
                    f"{sql.SCHEMA_VERSION}: delete the file and re-ingest"
                )
            conn.executescript(sql.SCHEMA)
            if "properties" not in {row[0] for row in conn.execute(sql.EDGE_COLUMNS)}:
                conn.execute(sql.ADD_EDGE_PROPERTIES)
            (trigger,) = conn.execute(sql.FTS_UPDATE_TRIGGER_SQL).fetchone()
            if "WHEN" not in trigger.split():  # a file from before the WHEN clause
                conn.executescript(
                    f"BEGIN; {sql.DROP_FTS_UPDATE_TRIGGER}; {sql.FTS_UPDATE_TRIGGER}; COMMIT"
                )

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
            latest = write_order(batch.nodes)
            if batch.clear:
                insert_cleared(conn, project, highest, latest, batch.edges, batch.texts_ahead)
            else:
                if latest:
                    conn.executemany(
                        sql.UPSERT_NODE, ((project, *rows.node_values(n)) for n in latest.values())
                    )
                if batch.edges:
                    self._write_edges(conn, project, batch.edges, latest.keys())
            # One INSERT ... SELECT indexes every new row: an FTS5 insert per statement flushes
            # its in-memory index each time (ten times slower for a bulk load).
            conn.execute(sql.INDEX_NEW_NODES, (highest,))

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

    def edges_of(
        self, project: str, node_id: str, direction: Direction, *, limit: int, offset: int = 0
    ) -> tuple[list[EdgeView], int]:
        rows.check_page(limit, offset)
        if direction not in sql.EDGES_PAGE:
            raise ValueError(f"direction must be 'in' or 'out', not {direction!r}")
        with self._reading() as conn:
            page, total = _edges_page(conn, project, node_id, direction, limit, offset)
        return [_edge_view(direction, r) for r in page], total

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
            for direction, offset in (("out", out_offset), ("in", in_offset)):
                page, total = _edges_page(conn, project, node_id, direction, limit, offset)  # type: ignore[arg-type]
                sides[direction] = [_edge_view(direction, r) for r in page], total  # type: ignore[arg-type]
            stamp = conn.execute(sql.GET_STAMP, (project,)).fetchone()
        return NodeEdges(
            node=rows.node_at(row),
            outgoing=sides["out"][0],
            outgoing_total=sides["out"][1],
            incoming=sides["in"][0],
            incoming_total=sides["in"][1],
            version=stamp[0] if stamp else None,
        )

    def search(
        self,
        projects: Sequence[str],
        query: str,
        *,
        kinds: Sequence[str] | None = None,
        limit: int = 20,
        docs_only: bool = False,
    ) -> tuple[list[SearchHit], int]:
        parsed = SearchQuery.parse(query)
        rows.check_page(limit)
        fts = _fts_query(parsed, docs_only=docs_only)
        if not projects or (docs_only and fts is None):
            return [], 0
        params: dict[str, object] = {
            "projects": json.dumps(list(projects)),
            "kinds": json.dumps(list(kinds)) if kinds is not None else None,
            "q": parsed.lower,
            "q_end": parsed.lower + _HIGH,
            "phrase": f" {parsed.phrase}" if parsed.phrase else None,
            "fts": fts,
            "limit": limit,
        }
        # Each query word, padded so that instr() matches whole words only.
        params.update({f"t{i}": f" {term} " for i, term in enumerate(parsed.terms)})
        if docs_only:
            candidates = sql.FTS_CANDIDATES
        elif fts:
            candidates = f"{sql.NAME_CANDIDATES} UNION {sql.FTS_CANDIDATES}"
        else:
            candidates = sql.NAME_CANDIDATES
        with self._bounded(self._timeout) as conn:
            found = conn.execute(sql.search(candidates, len(parsed.terms)), params).fetchall()
        hits = [
            SearchHit(
                project=r[0],
                node=rows.node_at(r, 1),
                score=r[_SCORE],
                match=match_of(r[_SCORE]),
            )
            for r in found
        ]
        return hits, found[0][_SCORE + 1] if found else 0

    def find_by_name(
        self, project: str, name: str, *, kinds: Sequence[str] | None = None, limit: int = 20
    ) -> tuple[list[Node], int]:
        rows.check_page(limit)
        lowered = name.strip().lower()
        if not lowered:
            raise ValueError("name is empty")
        suffix = ("." + lowered)[::-1]
        params = {
            "project": project,
            "name": lowered,
            "suffix": suffix,
            "suffix_end": suffix + _HIGH,
            "kinds": json.dumps(list(kinds)) if kinds is not None else None,
            "limit": limit,
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
        _, by_kind, by_relation = cached
        return GraphCounts(
            nodes=sum(by_kind.values()),
            edges=sum(by_relation.values()),
            nodes_by_kind=dict(by_kind),
            edges_by_relation=dict(by_relation),
        )

    def close(self) -> None:
        self._checkpoints.wait()
        with self._connections_lock:
            for conn in self._connections:
                conn.close()
            self._connections.clear()
        self._local = threading.local()


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


def _edge_view(direction: Direction, row: Sequence[object]) -> EdgeView:
    """An EDGES_PAGE row, read by position (see rows.node_at): `dict(row)` of a sqlite3.Row
    compared every column name per key, a quarter of get_node's tool time on a 20-edge page."""
    relation, confidence, score, explanation, file, line, found, other_id, other_kind, other_name = row
    return EdgeView(
        relation, direction, confidence, score, explanation, file, line,  # type: ignore[arg-type]
        other_id, other_kind, other_name, json.loads(found) if found else None,  # type: ignore[arg-type]
    )


def _fts_query(parsed: SearchQuery, *, docs_only: bool) -> str | None:
    """FTS5 syntax built only from quoted words, so no user text is ever parsed as an operator."""
    if not parsed.terms or parsed.phrase is None:
        return None
    if docs_only:
        return " AND ".join(f"doc_words : {_quoted(t)}" for t in parsed.terms)
    every_term = " AND ".join(f"words : {_quoted(t)}" for t in parsed.terms)
    return f"(name_words : {_quoted(parsed.phrase)}*) OR ({every_term})"


def _quoted(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'
