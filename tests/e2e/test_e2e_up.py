"""`rhumbline up`: the README's first command, from an empty home to a served, ingested project."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
from pathlib import Path

import anyio
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.e2e.conftest import RHUMBLINE, SHOP_SOURCE, free_port, wait_until_serving


def run_up(env: dict[str, str], cwd: Path, *arguments: str) -> tuple[str, list[str], str]:
    """Start `rhumbline up`, wait until it serves, stop it; return what it printed, the projects
    it serves and its answer to ingesting `/etc`."""
    port = free_port()
    log = cwd / f"up-{port}.log"
    with log.open("wb") as output:
        process = subprocess.Popen([str(RHUMBLINE), "up", *arguments, "--port", str(port)], env=env, cwd=cwd,
                                   stdout=output, stderr=subprocess.STDOUT)
        try:
            wait_until_serving(process, f"http://127.0.0.1:{port}")
            token = (cwd / ".rhumbline" / "dev-token").read_text().strip()
            projects, etc = anyio.run(list_projects, f"http://127.0.0.1:{port}/mcp", token)
        finally:
            process.send_signal(signal.SIGINT)
            process.wait(10)
    return log.read_text(), projects, etc


async def list_projects(url: str, token: str) -> tuple[list[str], str]:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
    async with Client(streamable_http_client(url, http_client=http)) as client:
        result = await client.call_tool("list_projects", {})
        etc = await client.call_tool("ingest", {"path": "/etc"})
        return [project["slug"] for project in result.structured_content["projects"]], etc.content[0].text


def test_up_ingests_serves_and_prints_how_to_connect(tmp_path: Path) -> None:
    (tmp_path / "my shop" / "pkg").mkdir(parents=True)
    (tmp_path / "my shop" / "pkg" / "shop.py").write_text(SHOP_SOURCE)
    env = {key: value for key, value in os.environ.items() if not key.startswith(("RHUMBLINE_", "AWS_"))}

    printed, projects, etc = run_up(env, tmp_path, "my shop")
    token_file = tmp_path / ".rhumbline" / "dev-token"
    token = token_file.read_text().strip()
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    assert projects == ["local/my-shop"]
    # The dev token is admin, yet the server ingests only under the directory it was started for.
    assert etc.startswith("forbidden: '/etc' is outside the directories this server ingests from: ")
    assert str((tmp_path / "my shop").resolve()) in etc
    assert "Ingested 1 files: 7 nodes, 7 edges" in printed
    assert f"Data directory: {tmp_path / '.rhumbline'} (RHUMBLINE_HOME) - new and empty" in printed
    assert f"Token:         {token}" in printed
    assert (
        'claude mcp add rhumbline --transport http http://127.0.0.1:' in printed
        and f'/mcp --header "Authorization: Bearer {token}"' in printed
    )

    # Again, without ingesting: the same token is reused while it still verifies.
    printed_again, projects_again, _ = run_up(env, tmp_path, "--no-ingest")
    assert f"Token:         {token}" in printed_again
    assert "Ingested" not in printed_again
    assert projects_again == ["local/my-shop"]
