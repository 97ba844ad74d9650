"""Source for agents end to end: after `rhumbline ingest`, an MCP client holding only the endpoint
and a token reads the body of `requests.sessions.merge_setting` through a real `rhumbline serve`,
on both shapes (embedded SQLite+SQLite; PostgreSQL+Neo4j)."""

from __future__ import annotations

import inspect
import os
import shutil
import signal
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.e2e.conftest import RHUMBLINE, LocalServer, free_port, run_cli, wait_until_serving
from tests.e2e.test_e2e_local_server import sdk_session


@pytest.fixture(scope="module", params=["embedded", "production"])
def requests_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    import requests

    root = tmp_path_factory.mktemp(f"read-{request.param}")
    slug = f"psf/requests{uuid.uuid4().hex[:8]}"
    env = {key: value for key, value in os.environ.items() if not key.startswith(("RHUMBLINE_", "AWS_"))}
    env.update(RHUMBLINE_HOME=str(root / "home"), PYTHONUNBUFFERED="1")
    drop = None
    if request.param == "production":
        from tests.pg_database import fresh_database_url

        neo4j = request.getfixturevalue("neo4j_server")
        url, drop = fresh_database_url(request.getfixturevalue("postgres_url"), f"rhumbline_e2e_{uuid.uuid4().hex[:8]}")
        env.update(
            RHUMBLINE_DATABASE_URL=url, RHUMBLINE_GRAPH_BACKEND="neo4j", RHUMBLINE_NEO4J_URI=neo4j["uri"],
            RHUMBLINE_NEO4J_USER=neo4j["user"], RHUMBLINE_NEO4J_PASSWORD=neo4j["password"],
        )  # fmt: skip
    tree = root / "requests-src"
    shutil.copytree(Path(requests.__file__).parent, tree / "requests", ignore=shutil.ignore_patterns("__pycache__"))
    ingested = run_cli(env, "ingest", str(tree), "--project", slug)
    assert ingested.returncode == 0, ingested.stderr
    created = run_cli(env, "token", "create", "--principal", "agent@example.com", "--projects", slug, "--scopes", "read")
    assert created.returncode == 0, created.stderr
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with (root / "serve.log").open("wb") as log:
        process = subprocess.Popen(
            [str(RHUMBLINE), "serve", "--port", str(port), "--dispatch", "inprocess"],
            env=env, cwd=root, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        wait_until_serving(process, base)
        yield LocalServer(
            url=f"{base}/mcp", base=base, home=root / "home", token=created.stdout.strip(), env=env,
            dispatch="inprocess", log=root / "serve.log",
        )  # fmt: skip
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
        deleted = run_cli(env, "project", "delete", slug, "--reviews", "drop", "--yes")  # the Neo4j graph too
        assert deleted.returncode == 0, deleted.stderr
        if drop is not None:
            drop()


async def reads(server: LocalServer) -> dict[str, Any]:
    async with sdk_session(server, "auto") as client:
        function = await client.call_tool(
            "function", {"name": "requests.sessions.merge_setting", "include_source": True}
        )
        read = await client.call_tool("read_file", {"path": "requests/sessions.py", "start_line": 1, "end_line": 3})
        secret = await client.call_tool("read_file", {"path": ".env"})
        return {"function": function, "read": read, "secret": secret}


def test_an_agent_reads_merge_setting_through_the_endpoint(requests_server: LocalServer) -> None:
    from requests import sessions

    seen = anyio.run(reads, requests_server)
    assert not seen["function"].is_error, seen["function"].content
    source = seen["function"].structured_content["source"]
    assert source["text"] == inspect.getsource(sessions.merge_setting)
    head = seen["read"].structured_content
    stored = Path(inspect.getsourcefile(sessions)).read_text()
    assert head["text"] == "".join(stored.splitlines(keepends=True)[:3]) and head["total_lines"] == stored.count("\n")
    assert seen["secret"].is_error and seen["secret"].content[0].text.startswith("not_found: no stored file '.env'")
