"""SQLite WAL checkpoints on a background thread instead of inside a writer's commit.

In WAL mode SQLite copies the log back into the database file (a checkpoint) from inside whichever
commit makes the log reach `wal_autocheckpoint` pages (1000 by default), and with
`synchronous=NORMAL` that checkpoint fsyncs the log and the database file. The gateway commits one
audit row per tool call (about five pages: the table, its three indexes, the rowid sequence), so
every ~208th call paid the checkpoint: 5-20 ms at load 4-5 on the test machine, up to 58 ms
(docs/latency-history.md) — the "few calls in 200" of the endpoint's p99 tail.

So SQLite engines turn the automatic checkpoint off on their connections and this thread runs a
PASSIVE checkpoint every CHECKPOINT_INTERVAL_SECONDS: it copies what is committed without waiting
for (or blocking) readers and writers, and its fsyncs happen off any request's path. Commits are
unchanged: a row is in the log, committed, before the call answers, as before.

A writer can restart the log from its beginning only when it starts after a checkpoint that
copied everything; under a continuous stream of writes that may not happen for a while. Once the
log holds RESTART_FRAMES pages the thread asks for a RESTART checkpoint, which rewinds the log so
it stays bounded (~16 MB) whatever the load. A RESTART holds the write lock while it waits for
readers to leave the log, so its wait is short (RESTART_WAIT_SECONDS): a writer is held up at most
that long, and a RESTART that times out is simply tried again at the next round.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from typing import NamedTuple

logger = logging.getLogger("rhumbline.stores.relational")

CHECKPOINT_INTERVAL_SECONDS = 0.2
RESTART_FRAMES = 4000
RESTART_WAIT_SECONDS = 0.1


class CheckpointResult(NamedTuple):
    busy: int  # 1 when the checkpoint could not finish (another checkpoint or a RESTART's wait)
    log_frames: int  # pages in the log
    checkpointed_frames: int  # of those, copied into the database file


class WalCheckpointer:
    """One daemon thread per SQLite engine, with a connection of its own; started on first use."""

    def __init__(
        self, path: str, *, interval: float = CHECKPOINT_INTERVAL_SECONDS, restart_wait: float = RESTART_WAIT_SECONDS
    ) -> None:
        self.path = path
        self.interval = interval
        self.restart_wait = restart_wait
        self._stop = threading.Event()
        self._start_lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._connection: sqlite3.Connection | None = None

    def start(self) -> None:
        with self._start_lock:
            if self._thread is None and not self._stop.is_set():
                self._thread = threading.Thread(target=self._run, name="rhumbline-wal-checkpoint", daemon=True)
                self._thread.start()

    def stop(self) -> None:
        """Ends the thread after its current checkpoint (it closes its own connection)."""
        self._stop.set()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def checkpoint(self) -> CheckpointResult:
        """One PASSIVE checkpoint, then a RESTART one when the log has grown past RESTART_FRAMES."""
        if self._connection is None:
            # Autocommit (no implicit BEGIN). The busy timeout bounds a RESTART's wait for the writer
            # and the readers of the moment; a PASSIVE checkpoint never waits.
            self._connection = sqlite3.connect(
                self.path, timeout=self.restart_wait, isolation_level=None, check_same_thread=False
            )
        # fetchall: a statement left unfinished would hold a read lock, and a reader keeps
        # writers from rewinding the log.
        result = CheckpointResult(*self._connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()[0])
        if result.log_frames >= RESTART_FRAMES:
            result = CheckpointResult(*self._connection.execute("PRAGMA wal_checkpoint(RESTART)").fetchall()[0])
        return result

    def _run(self) -> None:
        failing = False
        try:
            while not self._stop.wait(self.interval):
                # The thread must outlive a bad round: without it nothing checkpoints the log until
                # the engine's last connection closes.
                try:
                    self.checkpoint()
                    failing = False
                except Exception as error:  # noqa: BLE001 - logged, then tried again next round
                    if not failing:  # once per failure streak, not five times a second
                        logger.warning("WAL checkpoint of %s failed: %s", self.path, error)
                    failing = True
        finally:
            if self._connection is not None:
                self._connection.close()
