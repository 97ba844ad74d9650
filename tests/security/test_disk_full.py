"""Issue 15, item 10: a full disk is a specific error at once, not `internal_error`.

Before, an ingest that ran out of disk answered `internal_error` and the reason showed only later,
in list_projects. The embedded stores are put on a 1.2 MB filesystem and the ingest tool is
called on a tree that cannot fit: it answers `storage_full`, its build is failed, and the
previous graph (none) is still what is served. The small filesystem is a tmpfs mounted in a
private mount namespace (`unshare`, no privileges needed where user namespaces are allowed);
where that is refused, the file size limit (RLIMIT_FSIZE) stands in for it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="Linux only")

CHILD = """
import json, os, resource, signal, sys, time
home, tree, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
from rhumbline.runtime import resources
from rhumbline.runtime.handler import handle
resources.relational_engine(), resources.graph_store()  # created and migrated while there is room
if limit:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails instead of killing
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
caller = {"principal": "t", "token_id": "tk_t", "projects": ["*"], "scopes": ["admin"]}
def call(tool, arguments):
    return handle(tool, {"contract": "rhumbline.tool-invocation/1", "tool": tool, "arguments": arguments,
                         "caller": caller, "request_id": "r", "deadline_ms": int((time.time() + 60) * 1000)})
ingest = call("ingest", {"path": tree, "project": "acme/full"})
time.sleep(1.2)  # a build the full disk kept from being marked failed is failed once its lease expires
print(json.dumps({"ingest": ingest, "listed": call("list_projects", {})}))
"""


def _tree(root: Path) -> Path:
    for i in range(400):
        path = root / "pkg" / f"m{i}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f'def function_{i}(argument):\n    """Docstring {i} with words."""\n    return helper_{i}(argument)\n')
    return root


def _run(command: list[str], home: Path, tree: Path) -> dict:
    env = {key: value for key, value in os.environ.items() if not key.startswith("RHUMBLINE_")}
    env.update(RHUMBLINE_HOME=str(home), RHUMBLINE_INGEST_ROOTS=str(tree), RHUMBLINE_MODE="local",
               POWERTOOLS_LOG_LEVEL="CRITICAL", RHUMBLINE_INGEST_LEASE_SECONDS="1", PYTHONPATH=os.pathsep.join(sys.path))  # fmt: skip
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _small_filesystem_ingest(tmp_path: Path) -> dict:
    home, tree = tmp_path / "home", _tree(tmp_path / "tree")
    home.mkdir()
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    unshare = shutil.which("unshare")
    if unshare:
        probe = subprocess.run([unshare, "-rm", "true"], capture_output=True, check=False)
        if probe.returncode == 0:
            mount = f"mount -t tmpfs -o size=1200k tmpfs {home} && exec {sys.executable} {script} {home} {tree} 0"
            return _run([unshare, "-rm", "sh", "-c", mount], home, tree)
    return _run([sys.executable, str(script), str(home), str(tree), "300000"], home, tree)


def test_an_ingest_that_fills_the_disk_answers_storage_full(tmp_path: Path) -> None:
    answers = _small_filesystem_ingest(tmp_path)
    ingest = answers["ingest"]
    assert not ingest["ok"] and ingest["error"]["code"] == "storage_full", ingest
    assert "nothing was changed" in ingest["error"]["message"]
    listed = answers["listed"]["result"]["projects"]
    if listed:  # the failed build is recorded when the relational store still had room for it
        assert listed[0]["serving"] is None and listed[0]["node_count"] == 0
        assert listed[0]["last_build"]["status"] == "failed"
