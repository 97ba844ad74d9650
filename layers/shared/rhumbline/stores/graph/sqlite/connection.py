"""SQLite connections of the graph store: one per thread, every statement bounded.

Concurrency: one connection per thread (threading.local) so a multi-threaded local server reads in
parallel (WAL lets readers run beside the writer), and writes serialized by a process-wide lock so
threads queue here instead of spinning in SQLite's busy handler. Other processes are covered by
`busy_timeout`. Every statement is bounded: a progress handler interrupts it past its deadline.
"""

from __future__ import annotations

import math
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rhumbline.stores.graph.protocol import GraphUnavailable
from rhumbline.stores.graph.sqlite import sql
from rhumbline.stores.graph.sqlite.checkpoint import Checkpoints
from rhumbline.stores.graph.sqlite.traversal import SqliteReader

# The progress handler runs every this many SQLite VM instructions (~tens of microseconds).
_PROGRESS_STEPS = 2_000
# A bulk write keeps its working set in memory rather than spilling half-built indexes to disk.
_WRITE_CACHE_KIB = 256_000
_READ_CACHE_KIB = 32_000
# Pages of a new file (SQLite's default is 4,096): a large clearing write builds, commits and
# checkpoints half as many. Only a file with nothing in it yet takes it (it must precede the switch
# to WAL); existing files keep theirs.
PAGE_SIZE = 8_192


class SqliteConnections:
    """The store's connections and their bounds: what every part of SqliteGraphStore reads and
    writes through."""

    def __init__(self, path: Path | str, *, timeout: float = 10.0) -> None:
        self._path = str(path)
        self._timeout = timeout
        self._local = threading.local()
        self._write_lock = threading.Lock()
        self._connections: list[sqlite3.Connection] = []
        self._connections_lock = threading.Lock()
        self._checkpoints = Checkpoints(self._path, timeout)

    def _connection(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "connection", None)
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

    def read_only_connection(self) -> sqlite3.Connection:
        """A new connection that cannot write (opened read-only, `query_only` on), for reads this
        store does not make itself: compiled Cypher (rhumbline/cypher/sqlite/runner.py)."""
        from urllib.request import pathname2url

        conn = sqlite3.connect(
            f"file:{pathname2url(self._path)}?mode=ro", uri=True, timeout=self._timeout,
            isolation_level=None, check_same_thread=False,
        )  # fmt: skip
        conn.execute("PRAGMA query_only = ON")
        conn.execute(f"PRAGMA cache_size = -{_READ_CACHE_KIB}")
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
        thread, instead of inside it (checkpoint.py)."""
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

    def close(self) -> None:
        self._checkpoints.wait()
        with self._connections_lock:
            for conn in self._connections:
                conn.close()
            self._connections.clear()
        self._local = threading.local()
