"""A plain `pip install rhumbline` (no extras) gives a working CLI: `ingest`, `serve` (its `ingest`
tool too) and `mcp`; a command that needs an extra says which one, never a traceback or an
`internal_error`.

The commands run in a child process whose only site directory holds this environment's packages
less those only an extra brings (read from the installed package's metadata, pyproject.toml's
optional-dependencies): the import world of a plain install, without building one from the
package index on every run.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import sysconfig
import time
from importlib import metadata
from pathlib import Path

import httpx
import pytest
from tests.e2e.conftest import SHOP_SOURCE, free_port, wait_until_serving

_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def _top_level(requirement: str) -> str:
    match = _NAME.match(requirement)
    assert match is not None, requirement
    return re.sub(r"[-.]+", "_", match.group(1)).lower()


def extra_only_modules() -> list[str]:
    """Top-level modules of the extras' requirements that no plain requirement brings along."""
    requirements = metadata.requires("rhumbline") or []
    plain = {_top_level(r) for r in requirements if "extra ==" not in r}
    # What the plain requirements pull in themselves (uvicorn comes with the mcp SDK, say).
    pending, installed = list(plain), set(plain)
    while pending:
        try:
            needs = metadata.requires(pending.pop()) or []
        except metadata.PackageNotFoundError:
            continue
        for requirement in needs:
            name = _top_level(requirement)
            if "extra ==" not in requirement and name not in installed:
                installed.add(name)
                pending.append(name)
    extras = {_top_level(r) for r in requirements if "extra ==" in r}
    return sorted(extras - installed)


PLAIN = "import sys; from rhumbline.cli import main; sys.exit(main(sys.argv[1:]))"


def plain_site_packages(into: Path) -> Path:
    """This environment's site-packages less what only an extra brings: links to every other entry."""
    blocked = set(extra_only_modules())
    assert {"watchfiles", "uvloop", "httptools"} <= blocked, blocked
    into.mkdir()
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        top = re.sub(r"[-.]+", "_", re.split(r"[.-]", entry.name, maxsplit=1)[0]).lower()
        if top not in blocked and not entry.name.endswith(".pth"):
            (into / entry.name).symlink_to(entry)
    return into


@pytest.fixture
def plain(tmp_path: Path) -> tuple[list[str], dict[str, str], Path]:
    """The command of a plain install (no site directory but the filtered one), its environment
    and a tree to ingest."""
    site = plain_site_packages(tmp_path / "site-packages")
    source = Path(__file__).resolve().parents[2] / "layers" / "shared"
    env = {key: value for key, value in os.environ.items() if not key.startswith(("RHUMBLINE_", "AWS_", "PYTHON"))}
    env.update(RHUMBLINE_HOME=str(tmp_path / "home"), PYTHONPATH=f"{source}{os.pathsep}{site}", PYTHONUNBUFFERED="1")
    tree = tmp_path / "shop"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "shop.py").write_text(SHOP_SOURCE)
    return [sys.executable, "-S", "-c", PLAIN], env, tree


def run(plain: tuple[list[str], dict[str, str], Path], *arguments: str) -> subprocess.CompletedProcess[str]:
    command, env, tree = plain
    return subprocess.run([*command, *arguments], env=env, cwd=tree, capture_output=True, text=True, timeout=120)


def test_a_plain_install_ingests(plain: tuple[list[str], dict[str, str], Path]) -> None:
    ingested = run(plain, "ingest", str(plain[2]), "--project", "acme/plain", "--json")
    assert ingested.returncode == 0, ingested.stderr
    assert json.loads(ingested.stdout)["node_count"] > 0


def test_a_plain_install_serves_and_its_ingest_tool_works(plain: tuple[list[str], dict[str, str], Path]) -> None:
    command, env, tree = plain
    created = run(plain, "token", "create", "--principal", "plain@example.com", "--projects", "acme/plain", "--scopes", "admin")
    assert created.returncode == 0, created.stderr
    port = free_port()
    server = subprocess.Popen([*command, "serve", "--port", str(port)], env=env, cwd=tree,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until_serving(server, base)  # type: ignore[arg-type]
        headers = {"Authorization": f"Bearer {created.stdout.strip()}", "Accept": "application/json, text/event-stream",
                   "MCP-Protocol-Version": "2025-06-18"}  # fmt: skip
        called = httpx.post(f"{base}/mcp", headers=headers, timeout=60, json={
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "ingest", "arguments": {"path": str(tree), "project": "acme/plain"}}})  # fmt: skip
        result = called.json()["result"]
        assert result["isError"] is False, result
        assert result["structuredContent"]["node_count"] > 0
    finally:
        server.terminate()
        server.wait(20)


def test_a_plain_install_serves_mcp_over_stdio(plain: tuple[list[str], dict[str, str], Path]) -> None:
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "plain", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "list_projects", "arguments": {}}},
    ]  # fmt: skip
    command, env, tree = plain
    process = subprocess.Popen([*command, "mcp"], env=env, cwd=tree, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert process.stdin is not None and process.stdout is not None
        answers = {}
        for message in messages:
            process.stdin.write(json.dumps(message) + "\n")
            process.stdin.flush()
            if "id" in message:
                answer = json.loads(process.stdout.readline())
                answers[answer["id"]] = answer
        assert answers[1]["result"]["serverInfo"]["name"]
        assert answers[2]["result"]["isError"] is False, answers[2]
    finally:
        process.terminate()
        process.wait(20)


def test_a_command_that_needs_an_extra_names_it(plain: tuple[list[str], dict[str, str], Path]) -> None:
    started = time.monotonic()
    watched = run(plain, "watch", str(plain[2]), "--project", "acme/plain", "--no-ingest")
    assert watched.returncode == 1 and time.monotonic() - started < 60
    assert watched.stderr.strip() == (
        "rhumbline: error: the module 'watchfiles' is not installed: it comes with the 'local' extra "
        "(pip install 'rhumbline[local]')"
    ), watched.stderr


def test_a_tool_that_needs_an_extra_names_it() -> None:
    from rhumbline.errors import Unsupported
    from rhumbline.runtime.failures import expected_failure

    failure = expected_failure(ModuleNotFoundError("No module named 'wordllama'", name="wordllama"))
    assert isinstance(failure, Unsupported)
    assert "the 'semantic' extra (pip install 'rhumbline[semantic]')" in failure.message
    assert expected_failure(ModuleNotFoundError("No module named 'nosuchthing'", name="nosuchthing")) is None
