"""Issue 15, items 6 and 10: one ingest per project at a time, timed-out ingests cancelled,
abandoned builds failed — on both deployment shapes.

Before: the loser of two concurrent ingests got `internal_error` (an unmapped GraphConflict), an
ingest that passed the tool's timeout kept running (one token could stack ingests), and a killed
ingest left its build `running` forever. Now the running version is the project's lease
(stores/relational/versions.py, ingest/lease.py). A real SIGKILL mid-ingest is
tests/functional/ingest/test_incremental.py::test_a_killed_ingest_leaves_the_previous_version_queryable.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path

import pytest

from rhumbline.config import settings
from rhumbline.stores.relational import versions
from rhumbline.stores.relational.schema.base import utcnow
from rhumbline.stores.relational.schema.core import GraphVersion
from rhumbline.stores.relational.session import session_scope

PYPROJ = Path(__file__).resolve().parents[1] / "fixtures" / "ingest" / "pyproj"
ADMIN = {"scopes": ("admin",)}


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "pyproj"
    shutil.copytree(PYPROJ, root)
    monkeypatch.setenv("RHUMBLINE_INGEST_ROOTS", str(tmp_path))
    settings.cache_clear()
    return root


def _slug() -> str:
    return f"acme/lease{uuid.uuid4().hex[:8]}"


def _ingest(world, tree: Path, slug: str, **options) -> dict:
    return world.call("ingest", {"path": str(tree), "project": slug}, projects=(slug,), **{**ADMIN, **options})


def test_a_second_ingest_of_a_project_gets_conflict_naming_the_running_one(world, tree: Path) -> None:
    slug = _slug()
    with session_scope(world.engine) as session:
        running = versions.start(session, slug, holder="alice@example.com (token tk_alice, request r-1)")
        running_id = running.id
    refused = _ingest(world, tree, slug)
    assert not refused["ok"] and refused["error"]["code"] == "conflict", refused
    assert refused["error"]["message"].startswith(
        f"{slug} is being ingested as version 1 by alice@example.com (token tk_alice, request r-1), its lease runs until "
    )
    assert refused["error"]["details"]["running_version"] == 1
    assert refused["error"]["details"]["holder"] == "alice@example.com (token tk_alice, request r-1)"
    # The running ingest is untouched, and once it is done the next one runs.
    with session_scope(world.engine) as session:
        assert session.get(GraphVersion, running_id).status == "running"
        versions.finish(session, running_id, status="completed", node_count=0, edge_count=0)
    done = _ingest(world, tree, slug)
    assert done["ok"] and done["result"]["version"] == 2, done


def test_a_graph_that_moved_under_an_ingest_is_a_conflict_not_an_internal_error() -> None:
    from rhumbline.runtime.failures import expected_failure
    from rhumbline.stores.graph.protocol import GraphConflict

    failure = expected_failure(GraphConflict("the graph of acme/shop is at version 3, not 2: nothing written"))
    assert failure is not None and failure.code == "conflict"
    assert "the graph of acme/shop is at version 3, not 2" in failure.message


def test_an_ingest_past_its_deadline_is_cancelled_and_its_build_failed(world, tree: Path) -> None:
    # Enough files that parsing alone takes several times the deadline on a fast machine; the
    # deadline is still long enough for the call to arrive before it on a loaded one.
    for i in range(8000):
        (tree / "shop" / f"generated_{i}.py").write_text(f"def f{i}():\n    return g{i}()\n")
    slug = _slug()
    from rhumbline.contract import INVOCATION_CONTRACT
    from rhumbline.runtime.handler import handle

    started = time.monotonic()
    outcome = handle("ingest", {
        "contract": INVOCATION_CONTRACT, "tool": "ingest", "arguments": {"path": str(tree), "project": slug},
        "caller": {"principal": "tester", "token_id": "tk_test", "projects": [slug], "scopes": ["admin"]},
        "request_id": "req-deadline", "deadline_ms": int((time.time() + 0.3) * 1000),
    }, world.stores)  # fmt: skip
    assert not outcome["ok"] and outcome["error"]["code"] == "deadline_exceeded", (time.monotonic() - started, outcome)
    assert "was cancelled before writing" in outcome["error"]["message"]
    assert time.monotonic() - started < 30
    with session_scope(world.engine) as session:
        [build] = versions.list_for(session, slug)
        assert build.status == "failed" and "DeadlineExceeded" in build.error
    assert world.graph.graph_version(slug) is None  # nothing was written
    listed = world.call("list_projects", {}, projects=(slug,))["result"]["projects"][0]
    assert listed["last_build"]["status"] == "failed" and listed["node_count"] == 0


def test_a_killed_ingest_shows_failed_once_its_lease_expires_and_frees_the_project(world, tree: Path) -> None:
    slug = _slug()
    assert _ingest(world, tree, slug)["ok"]
    with session_scope(world.engine) as session:
        killed = versions.start(session, slug, holder="a killed ingest")
        killed.lease_expires_at = utcnow() - timedelta(seconds=1)  # it stopped renewing
        killed_id = killed.id
    listed = world.call("list_projects", {}, projects=(slug,))["result"]["projects"][0]
    assert listed["last_build"]["status"] == "failed"
    assert listed["last_build"]["error"].startswith("abandoned: its ingest (a killed ingest) stopped renewing")
    assert listed["serving"]["version"] == 1
    again = _ingest(world, tree, slug)
    assert again["ok"] and again["result"]["version"] == 3, again
    with session_scope(world.engine) as session:
        assert session.get(GraphVersion, killed_id).status == "failed"


HOLD_THE_LEASE = """
import sys, time
from rhumbline.stores.relational import versions
from rhumbline.stores.relational.engine import create_engine_from_url
from rhumbline.stores.relational.session import session_scope

with session_scope(create_engine_from_url(sys.argv[2])) as session:
    versions.start(session, sys.argv[1], holder="a killed ingest", lease_seconds=600)
print("held", flush=True)
time.sleep(600)
"""


def test_a_lease_held_by_a_dead_process_on_this_machine_is_released_at_once(world, tree: Path) -> None:
    slug = _slug()
    assert _ingest(world, tree, slug)["ok"]
    child = subprocess.Popen(
        [sys.executable, "-c", HOLD_THE_LEASE, slug, world.database_url], stdout=subprocess.PIPE, text=True,
        # The environment's own PYTHONPATH first: under --clock-ahead it shifts the child's clock too.
        env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), *sys.path]))},
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == "held\n"
        # Alive, it holds the project for its whole lease.
        refused = _ingest(world, tree, slug)
        assert not refused["ok"] and refused["error"]["code"] == "conflict", refused
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(30)
    again = _ingest(world, tree, slug)
    assert again["ok"] and again["result"]["version"] == 3, again
    with session_scope(world.engine) as session:
        killed = versions.list_for(session, slug)[1]
        assert killed.status == "failed", killed.status
        assert killed.error.startswith("abandoned: its ingest (a killed ingest) ended on this machine without finishing")
