"""The mcp 1.x SDK client (2025-06-18 `initialize` handshake) against a real `rhumbline serve`."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from rhumbline.runtime.spec import all_specs, load_spec

TOOL_NAMES = [spec.name for spec in all_specs()]

CLIENT = Path(__file__).with_name("mcp1_client.py")


@pytest.fixture(scope="module")
def mcp1_python() -> str:
    python = os.environ.get("RHUMBLINE_TEST_MCP1_PYTHON", "")
    if python:
        return python
    if os.environ.get("CI"):
        pytest.fail("RHUMBLINE_TEST_MCP1_PYTHON is not set: scripts/test installs the mcp 1.x client")
    pytest.skip("no mcp 1.x client virtualenv (run scripts/test)")


def test_mcp_1x_client_handshakes_lists_and_calls(start_server, mcp1_python: str) -> None:
    server = start_server("inprocess")
    completed = subprocess.run(
        [mcp1_python, str(CLIENT), server.url, server.token, "acme/shop"],
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    report = json.loads(completed.stdout.strip().splitlines()[-1])
    assert report["protocol_version"] == "2025-06-18"
    assert report["server"] == "rhumbline"
    # The e2e token is read-only: the tools needing `write` or `cypher` are not listed to it.
    assert report["tools"] == sorted(name for name in TOOL_NAMES if load_spec(name).scope == "read")
    assert report["output_schemas"] == report["tools"]
    assert report["search_is_error"] is False
    hits = report["search"]["hits"]
    assert hits[0]["qualified_name"] == "shop.Cart"  # pkg/ has no __init__.py: a source root
    assert hits[0]["match"] == "exact"
    assert report["denied_is_error"] is True
    assert report["denied_text"] == "forbidden: this token has no access to project 'other/team'"
