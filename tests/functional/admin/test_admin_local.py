"""A team admin's day on the embedded store, through `rhumbline` itself: tokens with limits, the
deployment's defaults, usage as a table, CSV a billing system imports and JSON, and pruning."""

from __future__ import annotations

import csv
import io
import json
import os
import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from rhumbline import cli
from rhumbline.cli.common import prepared_engine
from rhumbline.gateway.audit import CallRecord, write_call
from rhumbline.runtime import resources


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    for name in [n for n in os.environ if n.startswith("RHUMBLINE_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("RHUMBLINE_HOME", str(tmp_path / "home"))
    resources.reset()
    yield tmp_path / "home"
    resources.reset()


def rhumbline(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    code = cli.main(list(arguments))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def tokens(capsys: pytest.CaptureFixture[str]) -> dict[str, dict[str, Any]]:
    code, out, err = rhumbline(capsys, "token", "list", "--json")
    assert code == 0, err
    return {token["principal"]: token for token in json.loads(out)["tokens"]}


def calls(*entries: tuple[str, str, str | None, str, datetime]) -> None:
    """Audit rows (and their rollups) as the gateway writes them: (principal, tool, project, outcome, at)."""
    engine = prepared_engine()
    with engine.begin() as connection:
        for principal, tool, project, outcome, at in entries:
            write_call(
                connection,
                CallRecord(
                    request_id=uuid.uuid4().hex, principal=principal, token_id="tk_" + principal[:10], tool=tool,
                    project=project, arguments={}, outcome=outcome, error_code=None if outcome == "ok" else "x",  # type: ignore[arg-type]
                    latency_ms=2.5, result_bytes=1000 if outcome == "ok" else 0, at=at,
                ),
            )  # fmt: skip


def test_tokens_get_limits_at_creation_and_change_them(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = rhumbline(
        capsys, "token", "create", "--principal", "ana@example.com", "--projects", "*", "--scopes", "read",
        "--rate-limit", "120", "--burst", "20", "--monthly-quota", "50000",
    )  # fmt: skip
    assert code == 0, err
    assert out.startswith("rhl_") and "rate limit 120/min burst 20; quota 50000/month" in err
    ana = tokens(capsys)["ana@example.com"]
    assert (ana["rate_per_minute"], ana["rate_burst"], ana["monthly_quota"]) == (120, 20, 50000)

    code, out, _ = rhumbline(capsys, "token", "list")
    assert "120/min burst 20" in out and "50000/month" in out

    code, out, err = rhumbline(capsys, "token", "update", ana["id"], "--rate-limit", "none", "--monthly-quota", "100000")
    assert code == 0, err
    assert out.strip() == f"Updated {ana['id']}: rate limit -; quota 100000/month."
    ana = tokens(capsys)["ana@example.com"]
    assert (ana["rate_per_minute"], ana["rate_burst"], ana["monthly_quota"]) == (None, None, 100000)

    for arguments, message in [
        (["token", "update", ana["id"]], "nothing to change"),
        (["token", "update", ana["id"], "--burst", "5"], "rate_burst needs rate_per_minute"),
        (["token", "update", "tk_nosuchtokn", "--monthly-quota", "5"], "no token 'tk_nosuchtokn'"),
    ]:
        code, _, err = rhumbline(capsys, *arguments)
        assert code == 1 and message in err, err
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["token", "update", ana["id"], "--rate-limit", "0"])


def test_new_tokens_get_the_deployments_default_limits(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RHUMBLINE_DEFAULT_RATE_PER_MINUTE", "60")
    monkeypatch.setenv("RHUMBLINE_DEFAULT_RATE_BURST", "10")
    monkeypatch.setenv("RHUMBLINE_DEFAULT_MONTHLY_QUOTA", "1000")
    create = ["token", "create", "--projects", "*", "--scopes", "read"]
    assert rhumbline(capsys, *create, "--principal", "default@example.com")[0] == 0
    assert rhumbline(capsys, *create, "--principal", "own@example.com", "--rate-limit", "600")[0] == 0
    assert rhumbline(capsys, *create, "--principal", "free@example.com", "--rate-limit", "none", "--monthly-quota", "none")[0] == 0
    listed = tokens(capsys)
    limits = {name: (t["rate_per_minute"], t["rate_burst"], t["monthly_quota"]) for name, t in listed.items()}
    assert limits == {
        "default@example.com": (60, 10, 1000),
        # A rate given here is not sized by the deployment's burst.
        "own@example.com": (600, None, 1000),
        "free@example.com": (None, None, None),
    }


def test_usage_as_a_table_csv_and_json(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    day = datetime(2026, 11, 3, 9, tzinfo=timezone.utc)
    calls(
        ("ana@example.com", "search", "acme/shop", "ok", day),
        ("ana@example.com", "search", "acme/shop", "ok", day + timedelta(days=1)),
        ("ana@example.com", "get_node", None, "denied", day),
        ("bob@example.com", "search", "acme/shop", "error", day),
        ("bob@example.com", "search", "acme/shop", "ok", day - timedelta(days=40)),
    )
    window = ["--since", "2026-11-01", "--until", "2026-11-30"]
    code, out, err = rhumbline(capsys, "usage", *window, "--by", "principal", "--format", "csv")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == ["since", "until", "principal", "calls", "billable", "denied", "invalid", "errors",
                             "duration_ms", "result_bytes"]  # fmt: skip
    assert [(r["since"], r["until"], r["principal"], r["calls"], r["billable"], r["denied"], r["errors"]) for r in rows] == [
        ("2026-11-01", "2026-11-30", "ana@example.com", "3", "2", "1", "0"),
        ("2026-11-01", "2026-11-30", "bob@example.com", "1", "0", "0", "1"),
    ]
    assert (rows[0]["duration_ms"], rows[0]["result_bytes"]) == ("7.5", "2000")  # plain numbers, no separators
    assert out.count("\r\n") == 3  # RFC 4180 line ends

    code, out, _ = rhumbline(capsys, "usage", *window, "--by", "day,tool", "--principal", "ana@example.com")
    lines = out.splitlines()
    assert lines[0] == "Usage 2026-11-01 to 2026-11-30 (UTC days, inclusive); billable = outcome ok."
    assert lines[1].split() == ["DAY", "TOOL", "CALLS", "BILLABLE", "DENIED", "INVALID", "ERRORS", "DURATION_MS", "RESULT_BYTES"]
    assert [line.split()[:4] for line in lines[2:]] == [
        ["2026-11-03", "get_node", "1", "0"], ["2026-11-03", "search", "1", "1"], ["2026-11-04", "search", "1", "1"],
        ["TOTAL", "3", "2", "1"],
    ]  # fmt: skip

    code, out, _ = rhumbline(capsys, "usage", "--since", "2026-09-01", "--until", "2026-11-30", "--by", "project", "--format", "json")
    report = json.loads(out)
    assert [(row["project"], row["calls"]) for row in report["rows"]] == [("", 1), ("acme/shop", 4)]
    assert (report["total"], report["totals"]["calls"], report["totals"]["billable"]) == (2, 5, 3)

    for arguments, message in [
        (["usage", "--since", "2026-12-01", "--until", "2026-11-01"], "`since` (2026-12-01) is after `until` (2026-11-01)"),
        (["usage", "--by", "colour"], "by.0: Input should be 'day', 'token_id', 'principal', 'project' or 'tool'"),
        (["usage", "--project", "not-a-slug"], "project: String should match pattern"),
    ]:
        code, _, err = rhumbline(capsys, *arguments)
        assert code == 1 and message in err, err


def test_a_report_past_one_page_is_read_whole(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    start = datetime(2024, 1, 1, tzinfo=timezone.utc)
    calls(*((f"p{n}@example.com", "search", None, "ok", start) for n in range(1005)))
    code, out, _ = rhumbline(capsys, "usage", "--since", "2024-01-01", "--until", "2024-01-01", "--by", "principal", "--format", "csv")
    assert code == 0 and len(out.splitlines()) == 1 + 1005


def test_prune_keeps_recent_audit_rows_and_every_rollup(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    now = datetime.now(timezone.utc)
    calls(*(("ana@example.com", "search", "acme/shop", "ok", now - timedelta(days=age)) for age in (200, 100, 91, 89, 0)))
    code, out, err = rhumbline(capsys, "audit", "prune", "--older-than", "90d")
    assert code == 0, err
    cutoff = (now - timedelta(days=90)).date()
    assert out.startswith("Deleted 3 audit rows from before ") and cutoff.isoformat() in out
    code, out, _ = rhumbline(capsys, "usage", "--since", (now - timedelta(days=365)).date().isoformat(), "--by", "principal", "--format", "json")
    assert json.loads(out)["totals"]["calls"] == 5, "the rollups went with the audit rows"
    with prepared_engine().connect() as connection:
        remaining = connection.exec_driver_sql("SELECT count(*) FROM audit_log").scalar_one()
    assert remaining == 2
