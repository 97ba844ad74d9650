"""The WAL checkpoint of a bulk write, run on a thread of its own after the write commits.

A clearing write leaves a WAL about as large as the data it wrote. With SQLite's automatic
checkpoint, the COMMIT that ends the write copies all of it into the database file and syncs it
before returning, on a large ingest's critical path although nothing needs it by then (WAL readers
read the new pages from the WAL). So the bulk write's connection turns the automatic checkpoint off for that
COMMIT, and a thread with its own connection runs a PASSIVE checkpoint right after: SQLite runs
it without the GIL, beside what the ingest does next (snapshot, bookkeeping, centrality).

Safe beside everything else: a PASSIVE checkpoint never waits for a lock and never blocks a
reader or a writer; another connection's automatic checkpoint meanwhile finds the checkpoint lock
taken and skips (SQLite serializes checkpoints). The commit itself is unchanged (the version flip
stays atomic: readers see the old version until COMMIT and the new one after). A checkpoint that
fails or never runs (the process exits first) leaves the WAL to the next write's automatic
checkpoint, or to the last connection's close: nothing is lost, the file is only larger.
A process forked while it runs (the next ingest's parse pool) gets no copy of
the thread, only of its memory: those children never use SQLite, so no lock it held matters.
"""

from __future__ import annotations

import logging
import sqlite3
import threading

log = logging.getLogger(__name__)


class Checkpoints:
    """At most one background checkpoint of one database file at a time."""

    def __init__(self, path: str, timeout: float) -> None:
        self._path = path
        self._timeout = timeout
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Checkpoint the WAL soon, on another thread (one already running covers it)."""
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self._thread = threading.Thread(
                target=self._run, name="rhumbline-sqlite-checkpoint", daemon=True
            )
            self._thread.start()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for a running checkpoint, at most `timeout` s (default the store's timeout);
        whether none is running any more."""
        with self._lock:
            thread = self._thread
        if thread is None:
            return True
        thread.join(self._timeout if timeout is None else timeout)
        return not thread.is_alive()

    def _run(self) -> None:
        try:
            conn = sqlite3.connect(self._path, timeout=self._timeout, isolation_level=None)
            try:
                # As the store's connections: the checkpoint syncs the WAL, then the database.
                conn.execute("PRAGMA synchronous = NORMAL")
                busy, logged, copied = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                if busy or copied < logged:
                    log.debug("checkpoint of %s copied %d of %d WAL pages", self._path, copied, logged)
            finally:
                conn.close()
        except sqlite3.Error:  # the next write's automatic checkpoint does it instead
            log.warning("background checkpoint of %s failed", self._path, exc_info=True)
