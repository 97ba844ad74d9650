"""`rhumbline watch`'s loop on a real directory with watchfiles, and the per-project ingest lock."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from rhumbline.ingest.lock import IngestBusy, exclusive_ingest
from rhumbline.local.watch import watch_and_ingest

DEBOUNCE_MS = 100


def wait_for(condition, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(0.05)


def test_a_batch_of_changes_is_one_ingest_and_the_store_never_triggers_one(tmp_path: Path) -> None:
    root, home = tmp_path / "tree", tmp_path / "tree" / ".rhumbline"
    (root / "pkg").mkdir(parents=True)
    home.mkdir()
    ingests: list[float] = []
    lines: list[str] = []
    stop = threading.Event()

    def ingest() -> SimpleNamespace:
        ingests.append(time.monotonic())
        # What an ingest does to the store under the tree: must not cause another ingest.
        (home / "graph.sqlite3").write_bytes(b"x" * len(ingests))
        if len(ingests) == 2:
            raise RuntimeError("parse failed")
        return SimpleNamespace(files=3, node_count=9, edge_count=8, duration_s=0.25, changes=None)

    watcher = threading.Thread(
        target=watch_and_ingest, args=(root, ingest),
        kwargs={"home": home, "stop": stop, "debounce_ms": DEBOUNCE_MS, "report": lines.append},
    )  # fmt: skip
    watcher.start()
    try:
        time.sleep(0.3)  # the watcher is set up
        for name in ("a.py", "b.py", "c.py"):
            (root / "pkg" / name).write_text("x = 1\n")
        wait_for(lambda: len(ingests) == 1)
        time.sleep(DEBOUNCE_MS * 5 / 1000)
        assert len(ingests) == 1, "the store's own writes triggered an ingest"
        (root / "pkg" / "a.py").write_text("x = 2\n")
        wait_for(lambda: len(ingests) == 2)
        # A failed ingest is reported and the watch goes on.
        (root / "pkg" / "b.py").write_text("x = 3\n")
        wait_for(lambda: len(ingests) == 3)
    finally:
        stop.set()
        watcher.join(10)
    assert not watcher.is_alive()
    assert lines == [
        f"3 changes under {root}: re-ingesting",
        "re-ingested 3 files: 9 nodes, 8 edges in 0.2 s",
        f"1 change under {root}: re-ingesting",
        "re-ingest failed: parse failed (the previous graph version is still served)",
        f"1 change under {root}: re-ingesting",
        "re-ingested 3 files: 9 nodes, 8 edges in 0.2 s",
    ]


def test_one_ingest_of_a_project_at_a_time(tmp_path: Path) -> None:
    with exclusive_ingest(tmp_path, "acme/shop", timeout=1):
        with pytest.raises(IngestBusy, match="another ingest of 'acme/shop' is running on this machine"):
            with exclusive_ingest(tmp_path, "acme/shop", timeout=0.1):
                pass
        # Another project is not held up.
        with exclusive_ingest(tmp_path, "acme/web", timeout=0.1):
            pass
    with exclusive_ingest(tmp_path, "acme/shop", timeout=0.1):
        pass
