"""bench/harness/rivals.py (bench/ingest.py --compare): which tool a --compare value names, and what running it measures."""

from __future__ import annotations

import importlib.util
import shlex
import sys
from pathlib import Path

import pytest

_SPEC = importlib.util.spec_from_file_location("bench_rivals", Path(__file__).parents[3] / "bench" / "harness" / "rivals.py")
compare = importlib.util.module_from_spec(_SPEC)
sys.modules["bench_rivals"] = compare  # dataclasses look their module up
_SPEC.loader.exec_module(compare)

PYTHON = shlex.quote(sys.executable)


def test_a_known_name_a_template_and_bad_values():
    assert compare.commands("cgc") == [("cgc", "cgc index {path} --force")]
    assert compare.commands("mytool build {path} -q") == [("mytool", "mytool build {path} -q")]
    with pytest.raises(ValueError, match="not a known tool .* nor a template with \\{path\\}"):
        compare.commands("mytool build")
    with pytest.raises(ValueError, match="needs a tool name"):
        compare.commands("  ")


def test_a_tool_not_on_path_is_skipped_with_a_clear_status(tmp_path):
    found = compare.run("nope", "rhumbline-no-such-tool-xyz {path}", tmp_path)
    assert found.status == "not installed (`rhumbline-no-such-tool-xyz` is not on PATH): skipped"
    assert (found.seconds, found.peak_rss_mb) == (None, None)


def test_seconds_cpu_and_peak_rss_are_the_tools_own(tmp_path):
    # 80 MB held for 0.3 s, and the target path must arrive as the argument.
    code = "import sys, time, pathlib; assert pathlib.Path(sys.argv[1]).is_dir(); b = bytearray(80 << 20); time.sleep(0.3)"
    found = compare.run("fake", f"{PYTHON} -c {shlex.quote(code)} {{path}}", tmp_path)
    assert found.status == "ok", found
    assert 0.3 <= found.seconds < 10 and found.cpu_s is not None
    assert 80 <= found.peak_rss_mb < 400


def test_a_failing_and_a_hanging_tool(tmp_path):
    failed = compare.run("fails", f"{PYTHON} -c 'raise SystemExit(3)' {{path}}", tmp_path)
    assert failed.status == "failed: exit 3"
    hung = compare.run("hangs", f"{PYTHON} -c 'import time; time.sleep(30)' {{path}}", tmp_path, timeout_s=0.5)
    assert hung.status == "timed out after 0.5 s" and hung.seconds < 5
