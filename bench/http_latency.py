"""Warm latency of the local HTTP endpoint: tools/list and tools/call through `rhumbline serve`.

    .venv/bin/python bench/http_latency.py [--calls 200] [--dispatch inprocess|invoke-api]

Starts a real `rhumbline serve` (embedded SQLite stores in a temporary RHUMBLINE_HOME, one small
ingested project, a read token), warms it up, then times each request from one keep-alive HTTP
client: the full local path of API Gateway stand-in -> authorizer (cached) -> gateway Lambda
handler -> tool. Reports p50/p99/max in milliseconds. Not part of the test suite.

The client (`--client`, also in code_context_latency and exploration_latency): `lean` (default) is
the standard library's `http.client` on one keep-alive connection, `httpx` the httpx client the
benches used before. httpx spends ~1 ms of its own per request (client CPU, on the same two cores
as the server), which a wall-clock figure measured from the client counts as server latency; an
agent's MCP client costs what it costs, so both figures are worth printing.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.client import HTTPConnection, HTTPException, RemoteDisconnected
from pathlib import Path
from typing import Any

import httpx

RHUMBLINE = Path(sys.executable).parent / "rhumbline"
SOURCE = '''class Cart:
    """A shopping cart."""

    def add_item(self, item):
        return total_price([item])


def total_price(items):
    return sum(item.price for item in items)
'''


def cli(env: dict[str, str], *arguments: str) -> str:
    done = subprocess.run([str(RHUMBLINE), *arguments], env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def rpc(method: str, params: dict | None, request_id: int) -> dict:
    message: dict = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


CLIENTS = ("lean", "httpx")


class LeanResponse:
    """The part of httpx.Response the benches read."""

    def __init__(self, status_code: int, content: bytes) -> None:
        self.status_code = status_code
        self.content = content

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")

    def json(self) -> Any:
        return json.loads(self.content)


class LeanClient:
    """`http.client` on one keep-alive connection, with httpx.Client's `post(path, json=...)`.

    It reconnects once when the server closed the idle connection; any other failure raises
    (OSError or HTTPException), as a bench wants.
    """

    def __init__(self, port: int, headers: dict[str, str], timeout: float) -> None:
        self.port = port
        self.timeout = timeout
        self.headers = {**headers, "Content-Type": "application/json", "Connection": "keep-alive"}
        self._connection: HTTPConnection | None = None

    def post(self, path: str, json: Any, headers: dict[str, str] | None = None) -> LeanResponse:  # noqa: A002
        body = _json_dumps(json)
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


def _json_dumps(value: Any) -> bytes:
    # Compact, like httpx's `json=`.
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


PROTOCOLS = {"legacy": "2025-06-18", "modern": "2026-07-28"}


class ModernClient:
    """Sends each request as a 2026-07-28 client does (what the mcp 2.3 SDK `Client` speaks):
    the per-request envelope in `params._meta` and the `Mcp-Method` / `Mcp-Name` routing headers.
    No handshake. 2025-06-18 clients (Claude Code, MCP Inspector) take the legacy path."""

    def __init__(self, http: Any) -> None:
        self.http = http

    def post(self, path: str, json: Any) -> Any:  # noqa: A002 - httpx's keyword
        meta = {
            "io.modelcontextprotocol/protocolVersion": PROTOCOLS["modern"],
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "rhumbline-bench", "version": "1"},
        }
        params = json.get("params") or {}
        body = {**json, "params": {**params, "_meta": meta}}
        headers = {"Mcp-Method": json["method"]}
        if json["method"] == "tools/call":
            headers["Mcp-Name"] = params["name"]
        return self.http.post(path, json=body, headers=headers)

    def close(self) -> None:
        self.http.close()


@contextmanager
def serving_client(
    port: int, token: str, *, timeout: float = 60.0, client: str = "lean", protocol: str = "legacy"
) -> Iterator[Any]:
    """An MCP HTTP client for the `rhumbline serve` on `port`, handed out once it answers tools/list.

    `client`: "lean" (http.client, see LeanClient) or "httpx". `protocol`: "legacy" (2025-06-18
    headers, the SDK's stateless streamable transport) or "modern" (2026-07-28, ModernClient)."""
    if protocol not in PROTOCOLS:
        raise SystemExit(f"--protocol must be one of {', '.join(PROTOCOLS)}, not {protocol!r}")
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": PROTOCOLS[protocol],
    }
    if client == "httpx":
        http: Any = httpx.Client(base_url=f"http://127.0.0.1:{port}", headers=headers, timeout=timeout)
        failures: tuple[type[BaseException], ...] = (httpx.TransportError,)
    elif client == "lean":
        http = LeanClient(port, headers, timeout)
        failures = (OSError, HTTPException)
    else:
        raise SystemExit(f"--client must be one of {', '.join(CLIENTS)}, not {client!r}")
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
            if time.monotonic() > deadline:
                raise SystemExit("rhumbline serve did not start")
            time.sleep(0.1)
        yield speaker
    finally:
        http.close()


def measure(http: Any, body: dict, calls: int) -> list[float]:
    timings = []
    for _ in range(calls):
        started = time.perf_counter()
        response = http.post("/mcp", json=body)
        timings.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, response.text
        assert "error" not in response.json(), response.text
        assert not response.json()["result"].get("isError"), response.text
    return timings


def start_serve(env: dict[str, str], *, dispatch: str = "inprocess") -> tuple[int, subprocess.Popen]:
    """A `rhumbline serve` on a free port with `env`, quiet; the caller stops it (SIGINT, wait)."""
    port = free_port()
    server = subprocess.Popen(
        [str(RHUMBLINE), "serve", "--port", str(port), "--dispatch", dispatch, "--log-level", "warning"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    return port, server


def machine_probe() -> float:
    """ms for a fixed pure-Python loop (2M additions): this shared machine's speed at that moment.
    It moves by ~1.7x within minutes (0.9-1.7 s for 10M on 2026-11-30) while the load stays under 1;
    a latency figure is only comparable with another taken at a similar probe."""
    started = time.perf_counter()
    total = 0
    for i in range(2_000_000):
        total += i
    return (time.perf_counter() - started) * 1000


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--dispatch", choices=["inprocess", "invoke-api"], default="inprocess")
    parser.add_argument("--client", choices=CLIENTS, default="lean", help="the benchmark's HTTP client (see above)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        env = {key: value for key, value in os.environ.items() if not key.startswith(("RHUMBLINE_", "AWS_"))}
        env["RHUMBLINE_HOME"] = str(root / "home")
        (root / "shop").mkdir()
        (root / "shop" / "cart.py").write_text(SOURCE)
        cli(env, "ingest", str(root / "shop"), "--project", "acme/shop")
        token = cli(env, "token", "create", "--principal", "bench", "--projects", "acme/shop", "--scopes", "read")
        port, server = start_serve(env, dispatch=args.dispatch)
        try:
            with serving_client(port, token, timeout=30, client=args.client) as http:
                cases = {
                    "tools/list": rpc("tools/list", None, 1),
                    "tools/call list_projects": rpc("tools/call", {"name": "list_projects", "arguments": {}}, 2),
                    "tools/call search": rpc(
                        "tools/call", {"name": "search", "arguments": {"query": "Cart", "project": "acme/shop"}}, 3
                    ),
                }
                for body in cases.values():
                    measure(http, body, 20)  # warm-up: first calls load modules and open stores
                print(f"dispatch={args.dispatch} calls={args.calls} (ms, one keep-alive {args.client} client)")
                print(f"{'request':<28}{'p50':>8}{'p99':>8}{'max':>8}{'mean':>8}{'client cpu':>12}")
                for name, body in cases.items():
                    # The client's own CPU per request (sending, reading, parsing the answer as the
                    # bench does): time a wall-clock figure counts although the server did not spend it.
                    before = time.process_time()
                    timings = measure(http, body, args.calls)
                    client_cpu = (time.process_time() - before) * 1000 / args.calls
                    print(
                        f"{name:<28}{percentile(timings, 0.5):>8.2f}{percentile(timings, 0.99):>8.2f}"
                        f"{max(timings):>8.2f}{statistics.fmean(timings):>8.2f}{client_cpu:>12.2f}"
                    )
                print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(10)


if __name__ == "__main__":
    main()
