"""`rhumbline watch` end to end: a new function in the tree is in the graph after one re-ingest."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.e2e.conftest import RHUMBLINE, SHOP_SOURCE


def as_a_background_job() -> None:
    """A shell starts a background job with SIGINT ignored, and the child inherits that."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_watch_reingests_a_changed_tree(tmp_path: Path, stop_signal: signal.Signals) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("RHUMBLINE_", "AWS_"))}
    env.update(RHUMBLINE_HOME=str(tmp_path / "tree" / ".rhumbline"), PYTHONUNBUFFERED="1")
    (tmp_path / "tree" / "shop").mkdir(parents=True)
    (tmp_path / "tree" / "shop" / "cart.py").write_text(SHOP_SOURCE)
    log = tmp_path / "watch.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [str(RHUMBLINE), "watch", str(tmp_path / "tree"), "--project", "acme/shop", "--debounce-ms", "200"],
            env=env, stdout=output, stderr=subprocess.STDOUT, preexec_fn=as_a_background_job,
        )
        try:
            deadline = time.monotonic() + 60
            while "Watching " not in log.read_text():
                assert process.poll() is None and time.monotonic() < deadline, log.read_text()
                time.sleep(0.1)
            time.sleep(0.5)
            (tmp_path / "tree" / "shop" / "refund.py").write_text('def refund(order):\n    """Give the money back."""\n')
            while "re-ingested 2 files, 1 parsed" not in log.read_text():
                assert process.poll() is None and time.monotonic() < deadline, log.read_text()
                time.sleep(0.1)
        finally:
            process.send_signal(stop_signal)
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(20)
                pytest.fail(f"watch ignored {stop_signal.name}: " + log.read_text())
    assert process.returncode == 0, log.read_text()
    found = subprocess.run(
        [str(RHUMBLINE), "project", "delete", "acme/shop", "--reviews", "keep"], env=env, capture_output=True, text=True,
        timeout=60, check=False,
    )
    # The dry run counts the graph the watcher left: two versions (the first ingest and the re-ingest).
    assert "2 graph versions" in found.stderr, found.stderr
