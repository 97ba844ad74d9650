"""A checkout's `rhumbline` on a fresh home: its CLI, its `rhumbline serve`, and MCP clients for it.

A checkout is any tree with `layers/shared/rhumbline` (this one, or another revision's worktree):
its code runs from PYTHONPATH in this venv, and `rhumbline serve` reads that checkout's
template.yaml, so two revisions can be served side by side.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.client import HTTPConnection, HTTPException, RemoteDisconnected
from pathlib import Path
from typing import Any

import httpx

RHUMBLINE = Path(sys.executable).parent / "rhumbline"
THIS_CHECKOUT = Path(__file__).resolve().parents[2]
PROTOCOLS = {"legacy": "2025-06-18", "modern": "2026-07-28"}
CLIENTS = ("lean", "httpx")


@dataclass
class Checkout:
    """A code tree under a name; `env` runs its code against `home`."""

    name: str
    root: Path

    @property
    def pythonpath(self) -> str:
        return str(self.root / "layers" / "shared")

    def env(self, home: Path, **extra: str) -> dict[str, str]:
        env = {key: value for key, value in os.environ.items() if not key.startswith(("RHUMBLINE_", "AWS_"))}
        env.update(
            RHUMBLINE_HOME=str(home), POWERTOOLS_METRICS_DISABLED="true", PYTHONPATH=self.pythonpath,
            POWERTOOLS_LOG_LEVEL="WARNING", **extra,
        )  # fmt: skip
        return env


def cli(env: dict[str, str], *arguments: str, timeout: float = 1800) -> str:
    done = subprocess.run([str(RHUMBLINE), *arguments], env=env, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise SystemExit(f"rhumbline {' '.join(arguments)} failed:\n{done.stderr[-3000:]}")
    return done.stdout.strip()


def ingest(env: dict[str, str], tree: Path, project: str) -> dict[str, Any]:
    return json.loads(cli(env, "ingest", str(tree), "--project", project, "--json"))


def create_token(env: dict[str, str], project: str, scopes: str = "read") -> str:
    out = cli(env, "token", "create", "--principal", "bench", "--projects", project, "--scopes", scopes)
    return out.split()[0]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Served:
    """A running `rhumbline serve` and the token that reaches it."""

    name: str
    process: subprocess.Popen
    port: int
    token: str
    project: str
    env: dict[str, str] = field(repr=False)

    @property
    def pid(self) -> int:
        return self.process.pid


@contextmanager
def serve(name: str, env: dict[str, str], token: str, project: str, *, dispatch: str = "inprocess") -> Iterator[Served]:
    port = free_port()
    process = subprocess.Popen(
        [str(RHUMBLINE), "serve", "--port", str(port), "--dispatch", dispatch, "--log-level", "warning"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        yield Served(name, process, port, token, project, env)
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


def rpc(method: str, params: dict | None, request_id: int) -> dict:
    message: dict = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


class LeanResponse:
    def __init__(self, status_code: int, content: bytes) -> None:
        self.status_code = status_code
        self.content = content

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")

    def json(self) -> Any:
        return json.loads(self.content)


class LeanClient:
    """`http.client` on one keep-alive connection, with httpx.Client's `post(path, json=...)`: a
    client whose own CPU per request is small, since it shares the machine with the server.
    Reconnects once when the server closed the idle connection; any other failure raises."""

    def __init__(self, port: int, headers: dict[str, str], timeout: float) -> None:
        self.port = port
        self.timeout = timeout
        self.headers = {**headers, "Content-Type": "application/json", "Connection": "keep-alive"}
        self._connection: HTTPConnection | None = None

    def post(self, path: str, json: Any, headers: dict[str, str] | None = None) -> LeanResponse:  # noqa: A002
        body = _dumps(json)
        sent = self.headers if headers is None else {**self.headers, **headers}
        for attempt in (1, 2):
            if self._connection is None:
                self._connection = HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
            try:
                self._connection.request("POST", path, body=body, headers=sent)
                response = self._connection.getresponse()
                return LeanResponse(response.status, response.read())
            except (RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None


def _dumps(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


class ModernClient:
    """Requests as a 2026-07-28 client sends them (the mcp 2.3 SDK `Client`): the envelope in
    `params._meta`, `Mcp-Method` / `Mcp-Name` headers, no handshake."""

    def __init__(self, http: Any) -> None:
        self.http = http

    def post(self, path: str, json: Any) -> Any:  # noqa: A002
        meta = {
            "io.modelcontextprotocol/protocolVersion": PROTOCOLS["modern"],
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "rhumbline-bench", "version": "1"},
        }
        params = json.get("params") or {}
        headers = {"Mcp-Method": json["method"]}
        if json["method"] == "tools/call":
            headers["Mcp-Name"] = params["name"]
        return self.http.post(path, json={**json, "params": {**params, "_meta": meta}}, headers=headers)

    def close(self) -> None:
        self.http.close()


@contextmanager
def client(served: Served, *, kind: str = "lean", protocol: str = "legacy", timeout: float = 60.0) -> Iterator[Any]:
    """An MCP client of `served`, handed out once the server answers tools/list."""
    headers = {
        "Authorization": f"Bearer {served.token}",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": PROTOCOLS[protocol],
    }
    if kind == "httpx":
        http: Any = httpx.Client(base_url=f"http://127.0.0.1:{served.port}", headers=headers, timeout=timeout)
        failures: tuple[type[BaseException], ...] = (httpx.TransportError,)
    else:
        http = LeanClient(served.port, headers, timeout)
        failures = (OSError, HTTPException)
    speaker = ModernClient(http) if protocol == "modern" else http
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                if speaker.post("/mcp", json=rpc("tools/list", None, 0)).status_code == 200:
                    break
            except failures:
                if isinstance(http, LeanClient):
                    http.close()
            if served.process.poll() is not None:
                raise SystemExit(f"rhumbline serve ({served.name}) exited with {served.process.returncode}")
            if time.monotonic() > deadline:
                raise SystemExit(f"rhumbline serve ({served.name}) did not start")
            time.sleep(0.1)
        yield speaker
    finally:
        http.close()


def timed_call(http: Any, tool: str, arguments: dict | None, request_id: int) -> tuple[float, int]:
    """One request (`tools/list` and `ping` are those methods, anything else a tool), its wall ms
    and answer bytes; a failed call stops the bench."""
    if tool in ("tools/list", "ping"):
        body = rpc(tool, None, request_id)
    else:
        body = rpc("tools/call", {"name": tool, "arguments": arguments or {}}, request_id)
    started = time.perf_counter()
    response = http.post("/mcp", json=body)
    elapsed = (time.perf_counter() - started) * 1000
    if response.status_code != 200 or b'"isError":true' in response.content or b'"error":{' in response.content[:200]:
        raise SystemExit(f"{tool} {arguments} failed: {response.text[:500]}")
    return elapsed, len(response.content)
