"""`rhumbline mcp` end to end: the SDK's stdio client starts the real command and talks to it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from tests.e2e.conftest import RHUMBLINE, SHOP_SOURCE

from rhumbline.runtime.spec import all_specs

TOOL_NAMES = sorted(spec.name for spec in all_specs())
REVIEW_READ_TOOLS = sorted(spec.name for spec in all_specs() if "review" in spec.families and spec.read_only)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("stdio")
    source = root / "shop" / "pkg"
    source.mkdir(parents=True)
    (source / "shop.py").write_text(SHOP_SOURCE)
    for index in range(5):
        (source / f"part{index}.py").write_text(f"def part{index}():\n    return {index}\n")
    return root


def stdio_server(workspace: Path, *arguments: str) -> Any:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("RHUMBLINE_", "AWS_"))}
    env["RHUMBLINE_HOME"] = str(workspace / "home")
    return stdio_client(StdioServerParameters(command=str(RHUMBLINE), args=["mcp", *arguments], env=env, cwd=str(workspace)))


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_an_sdk_stdio_client_lists_ingests_with_progress_and_calls(workspace: Path, mode: str) -> None:
    async def session() -> dict[str, Any]:
        progress: list[tuple[float, float | None]] = []

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            progress.append((done, total))

        async with Client(stdio_server(workspace), mode=mode) as client:
            tools = await client.list_tools()
            ingested = await client.call_tool(
                "ingest", {"path": str(workspace / "shop"), "project": "acme/shop"}, progress_callback=on_progress
            )
            search = await client.call_tool("search", {"query": "Cart", "project": "acme/shop", "limit": 1})
            bad = await client.call_tool("search", {"query": "Cart", "project": "not a slug"})
            return {
                "version": client.protocol_version,
                "tools": sorted(tool.name for tool in tools.tools),
                "ingested": ingested.structured_content,
                "progress": progress,
                "search": search.structured_content,
                "bad": (bad.is_error, bad.content[0].text),
            }

    seen = anyio.run(session)
    assert seen["version"] == ("2025-11-25" if mode == "legacy" else "2026-07-28")
    assert seen["tools"] == TOOL_NAMES
    assert seen["ingested"]["project"] == "acme/shop" and seen["ingested"]["files"] == 6
    # Files parsed of the total: the last notification says all of them.
    assert seen["progress"] and seen["progress"][-1] == (6.0, 6.0)
    assert [done for done, _ in seen["progress"]] == sorted(done for done, _ in seen["progress"])
    assert seen["search"]["hits"][0]["id"] == "class:pkg/shop.py:Cart"
    assert seen["bad"][0] is True and seen["bad"][1].startswith("invalid_arguments: ")


def test_a_stdio_client_offered_one_read_only_toolset_sees_and_calls_only_those(workspace: Path) -> None:
    async def session() -> dict[str, Any]:
        async with Client(stdio_server(workspace, "--toolsets", "review", "--read-only"), mode="legacy") as client:
            tools = await client.list_tools()
            outside = await client.call_tool("search", {"query": "Cart", "project": "acme/shop"})
            writer = await client.call_tool("record_review", {"repo": "acme/shop", "pr_number": 1})
            return {
                "tools": sorted(tool.name for tool in tools.tools),
                "outside": outside.content[0].text,
                "writer": writer.content[0].text,
            }

    seen = anyio.run(session)
    assert seen["tools"] == REVIEW_READ_TOOLS
    assert seen["outside"] == "not_selected: 'search' is in the code, exploration toolset, and this client chose review"
    assert seen["writer"] == "not_selected: 'record_review' writes, and this client asked for read-only tools"


def test_stdio_calls_are_audited_under_the_local_principal(workspace: Path) -> None:
    from sqlalchemy import create_engine, text

    async def session() -> None:
        async with Client(stdio_server(workspace), mode="legacy") as client:
            await client.call_tool("list_projects", {})

    anyio.run(session)
    engine = create_engine(f"sqlite:///{workspace / 'home' / 'rhumbline.sqlite3'}")
    with engine.connect() as connection:
        rows = connection.execute(text("SELECT principal, token_id, tool, outcome FROM audit_log WHERE tool = 'list_projects'")).all()
    engine.dispose()
    assert rows and all(row.principal.startswith("local:") and row.token_id == "local-stdio" for row in rows)
    assert {row.outcome for row in rows} == {"ok"}


def test_a_bad_toolset_option_is_a_clear_usage_error(workspace: Path) -> None:
    import subprocess

    done = subprocess.run([str(RHUMBLINE), "mcp", "--toolsets", "code,nope"], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1
    assert "unknown toolset nope" in done.stderr
