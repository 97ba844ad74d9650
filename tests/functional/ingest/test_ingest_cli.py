"""`rhumbline ingest --json`: the summary a CI job or a person reads, full then incremental."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rhumbline import cli
from rhumbline.runtime import resources
from tests.functional.ingest.test_incremental import B_V2, write_app


def test_ingest_json_summary_reports_what_was_parsed_reused_and_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RHUMBLINE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RHUMBLINE_GRAPH_BACKEND", "sqlite")
    monkeypatch.delenv("RHUMBLINE_DATABASE_URL", raising=False)
    monkeypatch.delenv("RHUMBLINE_GRAPH_PATH", raising=False)
    resources.reset()  # connections an earlier test opened belong to another home
    root = write_app(tmp_path / "app")
    assert cli.main(["ingest", str(root), "--project", "acme/app", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    (root / "pkg" / "b.py").write_text(B_V2)

    assert cli.main(["ingest", str(root), "--project", "acme/app", "--json"]) == 0
    second = json.loads(capsys.readouterr().out)

    assert (first["version"], second["version"]) == (1, 2)
    assert first["changes"]["mode"] == "full"
    assert {k: second["changes"][k] for k in ("mode", "base_version", "files_parsed", "files_reused",
                                              "nodes_added", "nodes_removed")} == {
        "mode": "incremental", "base_version": 1, "files_parsed": 1, "files_reused": 4,
        "nodes_added": 1, "nodes_removed": 1,
    }  # fmt: skip
    for key in ("nodes_by_kind", "edges_by_relation", "unresolved_calls", "skipped", "duration_s"):
        assert key in second
    assert second["nodes_by_kind"]["Document"] == 1
    assert sum(second["edges_by_relation"].values()) == second["edge_count"]


def test_a_graph_store_failure_is_one_error_line_and_exit_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sqlite3

    home = tmp_path / "home"
    monkeypatch.setenv("RHUMBLINE_HOME", str(home))
    monkeypatch.setenv("RHUMBLINE_GRAPH_BACKEND", "sqlite")
    monkeypatch.delenv("RHUMBLINE_DATABASE_URL", raising=False)
    monkeypatch.delenv("RHUMBLINE_GRAPH_PATH", raising=False)
    resources.reset()
    root = write_app(tmp_path / "app")
    assert cli.main(["ingest", str(root), "--project", "acme/app"]) == 0
    (root / "pkg" / "b.py").write_text(B_V2)
    capsys.readouterr()
    # Another process holds the graph's write lock past the store's timeout: a real failure.
    monkeypatch.setenv("RHUMBLINE_GRAPH_TIMEOUT", "0.3")
    resources.reset()
    holder = sqlite3.connect(home / "graph.sqlite3", isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        assert cli.main(["ingest", str(root), "--project", "acme/app"]) == 1
    finally:
        holder.close()
        resources.reset()
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rhumbline: error: ") and "Traceback" not in lines[0]
    assert lines[0].endswith("(the previous graph version is still served)")
