"""A checkout's `rhumbline mcp` (the gateway's MCP server over stdio) and a minimal client for it:
newline-delimited JSON-RPC, notifications (progress) skipped while a call runs. No API Gateway
deadline applies there, so a long tool call (a full ingest on a loaded machine) is timed whole."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from harness.serve import PROTOCOLS, RHUMBLINE


class StdioServer:
    def __init__(self, process: subprocess.Popen) -> None:
        self.process = process
        self._next_id = 0

    @property
    def pid(self) -> int:
        return self.process.pid

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self._next_id += 1
        self._send({"jsonrpc": "2.0", "id": self._next_id, "method": method, **({"params": params} if params else {})})
        while True:
            line = self.process.stdout.readline()  # type: ignore[union-attr]
            if not line:
                raise SystemExit(f"rhumbline mcp exited ({self.process.poll()}) during {method}")
            message = json.loads(line)
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise SystemExit(f"{method} failed: {message['error']}")
                return message["result"]

    def notify(self, method: str) -> None:
        self._send({"jsonrpc": "2.0", "method": method})

    def _send(self, message: dict[str, Any]) -> None:
        self.process.stdin.write(json.dumps(message).encode() + b"\n")  # type: ignore[union-attr]
        self.process.stdin.flush()  # type: ignore[union-attr]

    def call(self, tool: str, arguments: dict[str, Any]) -> tuple[float, dict[str, Any]]:
        """One tool call: its wall seconds and result; a failed call stops the bench."""
        started = time.perf_counter()
        result = self.request("tools/call", {"name": tool, "arguments": arguments})
        elapsed = time.perf_counter() - started
        if result.get("isError"):
            raise SystemExit(f"{tool} {arguments} failed: {json.dumps(result)[:500]}")
        return elapsed, result


@contextmanager
def stdio_server(env: dict[str, str]) -> Iterator[StdioServer]:
    process = subprocess.Popen(
        [str(RHUMBLINE), "mcp"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    server = StdioServer(process)
    try:
        server.request("initialize", {
            "protocolVersion": PROTOCOLS["legacy"], "capabilities": {},
            "clientInfo": {"name": "rhumbline-bench", "version": "1"},
        })  # fmt: skip
        server.notify("notifications/initialized")
        yield server
    finally:
        process.stdin.close()  # type: ignore[union-attr]
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
