"""SQLite checkpoints run on their own thread: commits never copy the log back themselves, and the
log stays bounded under a continuous stream of writes."""

from __future__ import annotations

import gc
import os
import sqlite3
import threading
import time
from pathlib import Path

from sqlalchemy import text

from rhumbline.stores.relational import wal_checkpoint
from rhumbline.stores.relational.engine import create_engine_from_url
from rhumbline.stores.relational.wal_checkpoint import WalCheckpointer


def checkpoint_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "rhumbline-wal-checkpoint"]


def test_connections_leave_checkpoints_to_the_engines_thread(tmp_path: Path) -> None:
    before = len(checkpoint_threads())
    engine = create_engine_from_url(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    try:
        with engine.begin() as connection:
            assert connection.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == 0
            connection.exec_driver_sql("CREATE TABLE t (x TEXT)")
        assert len(checkpoint_threads()) == before + 1
        with engine.begin() as connection:
            for _ in range(50):
                connection.execute(text("INSERT INTO t VALUES (:x)"), {"x": "x" * 3000})
        # The thread copies the committed log into the database file without any writer's help.
        probe = sqlite3.connect(tmp_path / "db.sqlite3", isolation_level=None)
        deadline = time.monotonic() + 5
        while True:
            busy, log, done = probe.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()[0]
            # Another checkpoint in progress reports busy; a finished one left nothing to copy.
            if not busy and log == done and os.path.getsize(tmp_path / "db.sqlite3") > 50 * 3000:
                break
            assert time.monotonic() < deadline, "the checkpoint thread did not copy the log"
            time.sleep(0.05)
        probe.close()
    finally:
        engine.dispose()
    del engine, connection  # a connection refers to its engine
    gc.collect()  # the thread ends with its engine
    deadline = time.monotonic() + 5
    while len(checkpoint_threads()) > before:
        assert time.monotonic() < deadline, "the checkpoint thread outlived its engine"
        time.sleep(0.05)


def test_memory_databases_keep_sqlites_own_checkpoints() -> None:
    engine = create_engine_from_url("sqlite:///:memory:")
    with engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar() == 1000


def test_a_log_past_the_restart_threshold_is_rewound(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "db.sqlite3"
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("CREATE TABLE t (x TEXT)")
    for _ in range(30):
        writer.execute("INSERT INTO t VALUES (?)", ("x" * 3000,))
    checkpointer = WalCheckpointer(str(path), restart_wait=0.2)
    # A reader on the log's latest snapshot: a passive checkpoint copies everything around it, but
    # the log cannot be rewound while it reads.
    reader = sqlite3.connect(path, isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM t").fetchall()
    passive = checkpointer.checkpoint()
    assert passive.busy == 0 and passive.log_frames == passive.checkpointed_frames > 20
    # Past the threshold a RESTART is asked for: it waits for the reader, but not for long.
    monkeypatch.setattr(wal_checkpoint, "RESTART_FRAMES", 20)
    started = time.monotonic()
    assert checkpointer.checkpoint().busy == 1
    assert 0.15 <= time.monotonic() - started < 2
    reader.execute("COMMIT")
    assert checkpointer.checkpoint().busy == 0
    # The log was rewound: the next write starts it again from its first frame.
    writer.execute("INSERT INTO t VALUES ('y')")
    assert writer.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()[0][1] < 5
    writer.close()
    reader.close()


def test_a_failing_checkpoint_is_logged_once_and_the_thread_goes_on(tmp_path: Path, caplog) -> None:
    checkpointer = WalCheckpointer(str(tmp_path / "missing" / "db.sqlite3"), interval=0.01)
    checkpointer.start()
    time.sleep(0.2)
    assert checkpointer.running
    checkpointer.stop()
    deadline = time.monotonic() + 2
    while checkpointer.running:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    warnings = [record for record in caplog.records if "WAL checkpoint" in record.getMessage()]
    assert len(warnings) == 1, warnings
