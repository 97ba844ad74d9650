#!/usr/bin/env python3
"""Smoke-test a Rhumbline MCP endpoint as an agent would: initialize, list tools, call
`list_projects` and `search`, with both protocol generations of the mcp SDK client.

    .venv/bin/python scripts/smoke.py --endpoint URL [--project owner/repo] [--query TEXT]

The bearer token comes from RHUMBLINE_SMOKE_TOKEN (never the command line: it would show in
process lists and CI logs). CI runs it against a freshly deployed stack (deploy-branch.yml);
the test suite runs the same script against a local `rhumbline serve`. With --project the project
must be listed and `search` must find QUERY in it. Exit 0 when every step passed, 1 otherwise,
2 on a usage error; one line per step on stdout.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

# Per request; the whole run is bounded by STEPS x this.
REQUEST_TIMEOUT_SECONDS = 60.0
MODES = {"legacy": "initialize handshake (2025 protocol)", "auto": "server/discover (2026 protocol)"}


class SmokeFailure(Exception):
    pass


async def check(endpoint: str, token: str, mode: str, project: str | None, query: str) -> list[str]:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    lines: list[str] = []
    started = time.perf_counter()

    def passed(step: str) -> None:
        lines.append(f"ok   {mode:6} {step} ({(time.perf_counter() - started) * 1000:.0f} ms)")

    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=REQUEST_TIMEOUT_SECONDS)
    async with Client(streamable_http_client(endpoint, http_client=http), mode=mode) as client:
        passed(f"connected: protocol {client.protocol_version}, server {client.server_info.name if client.server_info else '?'}")
        tools = [tool.name for tool in (await client.list_tools()).tools]
        missing = {"list_projects", "search"} - set(tools)
        if missing:
            raise SmokeFailure(f"tools/list lacks {sorted(missing)} (listed: {tools})")
        passed(f"tools/list: {len(tools)} tools")

        listed = await client.call_tool("list_projects", {})
        content = answer(listed, "list_projects")
        slugs = [item["slug"] for item in content["projects"]]
        if project and project not in slugs:
            raise SmokeFailure(f"list_projects does not list {project} (it lists {slugs[:10]}, total {content['total']})")
        passed(f"list_projects: {content['total']} projects")

        arguments: dict[str, Any] = {"query": query, "limit": 5}
        if project:
            arguments["project"] = project
        found = answer(await client.call_tool("search", arguments), "search")
        if project and not found["hits"]:
            raise SmokeFailure(f"search {query!r} found nothing in {project}")
        passed(f"search {query!r}: {found['total']} hits")
    return lines


def answer(result: Any, tool: str) -> dict[str, Any]:
    if result.is_error:
        text = result.content[0].text if result.content else "(no message)"
        raise SmokeFailure(f"{tool} failed: {text}")
    if not isinstance(result.structured_content, dict):
        raise SmokeFailure(f"{tool} answered without structured content")
    return result.structured_content


def innermost(error: BaseException) -> BaseException:
    """The first real error inside the task groups the client runs in."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def http_status(endpoint: str, token: str) -> str:
    """What the endpoint answers a plain request: the SDK's errors often omit the HTTP status."""
    import json
    import urllib.error
    import urllib.request

    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    request = urllib.request.Request(endpoint, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return f" (a plain POST gets HTTP {response.status})"
    except urllib.error.HTTPError as error:
        return f" (a plain POST gets HTTP {error.code}: {error.read(300).decode(errors='replace').strip()})"
    except (OSError, ValueError) as error:
        return f" (a plain POST fails too: {error})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--endpoint", required=True, help="the MCP URL, e.g. https://.../mcp")
    parser.add_argument("--project", help="a project that must be listed and searchable (owner/repo)")
    parser.add_argument("--query", default="main", help="what to search for (default: main)")
    parser.add_argument("--mode", choices=sorted(MODES), action="append", help="protocol generation(s) (default: both)")
    args = parser.parse_args(argv)
    token = os.environ.get("RHUMBLINE_SMOKE_TOKEN", "").strip()
    if not token:
        parser.error("set RHUMBLINE_SMOKE_TOKEN to a token with the `read` scope")

    import anyio

    failed = False
    for mode in args.mode or list(MODES):
        try:
            lines = anyio.run(check, args.endpoint, token, mode, args.project, args.query)
        except Exception as error:  # noqa: BLE001 - every failure is one line
            failed = True
            cause = innermost(error)
            if isinstance(cause, SmokeFailure):
                print(f"FAIL {mode:6} {cause}", flush=True)
            else:
                why = f"{type(cause).__name__}: {cause}{http_status(args.endpoint, token)}"
                print(f"FAIL {mode:6} {args.endpoint}: {why}", flush=True)
            continue
        print("\n".join(lines), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
