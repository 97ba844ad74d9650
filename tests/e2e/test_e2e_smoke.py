"""scripts/smoke.py, the deploy workflow's smoke test, against a local `rhumbline serve`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import LocalServer

SMOKE = Path(__file__).resolve().parents[2] / "scripts" / "smoke.py"


@pytest.fixture(scope="module")
def server(start_server: Any) -> LocalServer:
    return start_server("inprocess")


def smoke(server: LocalServer, token: str, *arguments: str) -> subprocess.CompletedProcess[str]:
    env = {**server.env, "RHUMBLINE_SMOKE_TOKEN": token}
    return subprocess.run(
        [sys.executable, str(SMOKE), "--endpoint", server.url, *arguments],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def test_the_smoke_test_passes_on_a_working_endpoint(server: LocalServer) -> None:
    done = smoke(server, server.token, "--project", "acme/shop", "--query", "Cart")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[:2] for line in lines] == [["ok", mode] for mode in ("legacy",) * 4 + ("auto",) * 4]
    assert "protocol 2025-11-25" in lines[0] and "protocol 2026-07-28" in lines[4]
    assert any("list_projects: 1 projects" in line for line in lines)
    assert any("search 'Cart': " in line and " hits" in line for line in lines), lines


def test_the_smoke_test_fails_clearly(server: LocalServer) -> None:
    refused = smoke(server, "rhl_aaaaaaaaaa_" + "b" * 43, "--mode", "legacy")
    assert refused.returncode == 1
    assert refused.stdout.startswith(f"FAIL legacy {server.url}: ")
    assert "401" in refused.stdout

    unseen = smoke(server, server.token, "--project", "other/repo", "--mode", "auto")
    assert unseen.returncode == 1
    assert unseen.stdout.strip() == "FAIL auto   list_projects does not list other/repo (it lists ['acme/shop'], total 1)"

    nothing = smoke(server, server.token, "--project", "acme/shop", "--query", "zzzzqqq", "--mode", "auto")
    assert nothing.returncode == 1 and "search 'zzzzqqq' found nothing in acme/shop" in nothing.stdout

    missing = smoke(server, "")
    assert missing.returncode == 2 and "set RHUMBLINE_SMOKE_TOKEN" in missing.stderr
