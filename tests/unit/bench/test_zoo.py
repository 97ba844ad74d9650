"""bench/harness/zoo.py (bench/zoo.py): the declared list, the selection, and the report whose
totals decide the exit status. No project is fetched."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).parents[3] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))  # the harness imports its siblings as `harness.*`

from harness import zoo  # noqa: E402


def _ok(key: str, language: str, **figures) -> zoo.Result:
    return zoo.Result(key, language, "ok", files=10, nodes=100, seconds=1.0, **figures)


def test_a_clean_run_exits_zero_and_totals_the_syntax_errors():
    results = [_ok("pypi:a@1", "python", syntax_errors={"python": 2}),
               _ok("go:b@v1", "go", syntax_errors={"python": 1, "go": 3})]  # fmt: skip
    assert zoo.exit_code(results) == 0
    found = zoo.totals(results)
    assert found == {"projects": 2, "failed": 0, "fetch_failed": 0, "files_lost": 0, "files": 20, "nodes": 200,
                     "syntax_errors": {"go": 3, "python": 3}, "languages": 2}  # fmt: skip
    assert zoo.render(results).splitlines()[-1].startswith("2 projects in 2 languages: 0 failed ingests")


@pytest.mark.parametrize(
    "bad",
    [
        zoo.Result("npm:c@1", "javascript", "failed", "RecursionError: maximum recursion depth exceeded"),
        _ok(
            "npm:c@1",
            "javascript",
            files_lost=1,
            failures=[{"file": "src/x.js", "stage": "resolve javascript", "reason": "KeyError: 'x'"}],
        ),
        zoo.Result("crates:d@1", "rust", "fetch-failed", "HTTPError: HTTP Error 404: Not Found"),
    ],
    ids=["a failed ingest", "a file lost to an exception", "a project not fetched"],
)
def test_any_failure_or_lost_file_exits_non_zero_and_is_shown(bad):
    results = [_ok("pypi:a@1", "python"), bad]
    assert zoo.exit_code(results) == 1
    text = zoo.render(results)
    assert bad.key in text
    assert (bad.error or bad.failures[0]["reason"]) in text
    assert zoo.totals(results)["failed"] + zoo.totals(results)["fetch_failed"] + zoo.totals(results)["files_lost"] == 1


def test_the_report_is_json_with_every_project():
    results = [_ok("pypi:a@1", "python"), zoo.Result("go:b@v1", "go", "failed", "ValueError: x")]
    report = json.loads(json.dumps(zoo.report(results)))
    assert [p["status"] for p in report["projects"]] == ["ok", "failed"]
    assert report["totals"]["failed"] == 1


def test_the_declared_zoo_is_big_enough_and_selectable():
    declared = zoo.entries()
    assert len(declared) >= 150
    assert len({e.language for e in declared}) >= 8
    assert len({e.key for e in declared}) == len(declared), "a project is declared twice"
    assert [e.name for e in zoo.select(declared, ["requests"], [], None)] == ["requests"]
    rust = zoo.select(declared, [], ["rust"], 3)
    assert len(rust) == 3 and {e.language for e in rust} == {"rust"}
    with pytest.raises(SystemExit, match="no declared project no-such-project"):
        zoo.select(declared, ["no-such-project"], [], None)


def test_an_unknown_registry_is_refused(tmp_path):
    path = tmp_path / "zoo.json"
    path.write_text(json.dumps({"projects": [{"registry": "cpan", "language": "perl", "name": "x", "version": "1"}]}))
    with pytest.raises(SystemExit, match="unknown registries \\['cpan'\\]"):
        zoo.entries(path)
