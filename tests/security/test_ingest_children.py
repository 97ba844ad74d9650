"""Issue 15, item 9: no process an ingest starts outlives it.

An ingest starts no child of its own but the parse pool's workers (rhumbline/ingest/discover/
parallel.py). They must be gone once the ingest is over, however it ends: failed (an exception in
the parent) or killed (SIGKILL: no cleanup runs in the parent at all).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rhumbline.ingest.discover.parallel import IN_PROCESS_BELOW, read_all

# The kernel's parent-death signal, and /proc to see which processes run, are Linux's.
pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="Linux only")

_PARENT = """
import json, multiprocessing, sys, time
from pathlib import Path
from rhumbline.ingest.discover.parallel import read_all

def hold(done, total):
    # The first chunk is back: report the workers, then keep the pool alive until killed.
    print(json.dumps([child.pid for child in multiprocessing.active_children()]), flush=True)
    time.sleep(120)

read_all(Path(sys.argv[1]), sys.argv[2:], workers=2, progress=hold)
"""


def _tree(root: Path) -> list[str]:
    paths = [f"pkg{i % 7}/mod{i}.py" for i in range(IN_PROCESS_BELOW + 50)]
    for i, path in enumerate(paths):
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(f"def f{i}():\n    return g{i}()\n")
    return paths


def test_the_parse_workers_die_with_a_killed_ingest(tmp_path: Path) -> None:
    script = tmp_path / "parent.py"
    script.write_text(_PARENT)
    parent = subprocess.Popen(
        [sys.executable, str(script), str(tmp_path), *_tree(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        workers = json.loads(parent.stdout.readline())  # type: ignore[union-attr]
        assert len(workers) == 2 and all(_alive(pid) for pid in workers)
    finally:
        parent.kill()
        parent.wait(timeout=10)
    _assert_gone(workers)


def test_the_parse_workers_are_gone_when_an_ingest_fails(tmp_path: Path) -> None:
    workers: list[int] = []

    def fail(done: int, total: int) -> None:
        workers.extend(child.pid for child in multiprocessing.active_children())
        raise RuntimeError("the ingest failed")

    with pytest.raises(RuntimeError, match="the ingest failed"):
        read_all(tmp_path, _tree(tmp_path), workers=2, progress=fail)
    assert len(workers) == 2
    _assert_gone(workers)


def _assert_gone(workers: list[int]) -> None:
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    survivors = [pid for pid in workers if _alive(pid)]
    for pid in survivors:  # not left behind by a failing run
        os.kill(pid, signal.SIGKILL)
    assert not survivors, "a parse worker outlived its ingest"


def _alive(pid: int) -> bool:
    """Running (a zombie left to an init that does not reap is dead)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
