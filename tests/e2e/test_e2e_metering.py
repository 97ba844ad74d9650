"""A team admin's day against a real `rhumbline serve`: a token with a rate limit, its calls
refused past the burst with when to retry, and the usage read back as CSV."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import httpx
import pytest
from tests.e2e.conftest import LocalServer, run_cli, start_server  # noqa: F401 - the fixture is used by name

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json", "MCP-Protocol-Version": "2025-06-18"}


@pytest.fixture(scope="module")
def server(start_server: Any) -> LocalServer:  # noqa: F811
    return start_server("inprocess")


def test_a_rate_limited_token_and_its_bill(server: LocalServer) -> None:
    created = run_cli(
        server.env, "token", "create", "--principal", "agent@example.com", "--projects", "acme/shop", "--scopes", "read",
        "--rate-limit", "6", "--burst", "2",
    )  # fmt: skip
    assert created.returncode == 0, created.stderr
    headers = {**HEADERS, "Authorization": f"Bearer {created.stdout.strip()}"}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "list_projects", "arguments": {}}}
    with httpx.Client(headers=headers, timeout=30) as http:
        results = [http.post(server.url, json=body).json()["result"] for _ in range(3)]
    assert [result["isError"] for result in results] == [False, False, True]
    first, _, details = results[2]["content"][0]["text"].partition("\n")
    assert first.startswith("rate_limited: this token is over its rate limit of 6 calls per minute (burst 2): retry in ")
    refusal = json.loads(details)
    assert 0 < refusal["retry_after_s"] <= 10 and refusal["limit"] == {"rate_per_minute": 6, "burst": 2}

    report = run_cli(server.env, "usage", "--by", "principal", "--principal", "agent@example.com", "--format", "csv")
    assert report.returncode == 0, report.stderr
    [row] = list(csv.DictReader(io.StringIO(report.stdout)))
    assert (row["principal"], row["calls"], row["billable"], row["denied"]) == ("agent@example.com", "3", "2", "1")
