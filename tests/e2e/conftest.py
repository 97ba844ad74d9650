"""A real `rhumbline serve` process on a free port, with its embedded stores in a temporary home."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

RHUMBLINE = Path(sys.executable).parent / "rhumbline"

SHOP_SOURCE = '''"""A shop."""


class Cart:
    """A shopping cart."""

    def add_item(self, item):
        """Add an item to the cart."""
        return total_price([item])


def total_price(items):
    """The sum of the items' prices."""
    return sum(item.price for item in items)
'''


@dataclass(frozen=True)
class LocalServer:
    url: str  # the MCP endpoint
    base: str
    home: Path
    token: str  # read scope on acme/shop only
    env: dict[str, str]
    dispatch: str
    log: Path  # the server's output, uvicorn's access log included

    def cli(self, *arguments: str) -> subprocess.CompletedProcess[str]:
        return run_cli(self.env, *arguments)


def run_cli(env: dict[str, str], *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(RHUMBLINE), *arguments], env=env, capture_output=True, text=True, timeout=120, check=False)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until_serving(process: subprocess.Popen[bytes], base: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"rhumbline serve exited with {process.returncode}")
        try:
            # API Gateway's answer to a missing token: proves routing and the server are up.
            if httpx.post(f"{base}/mcp", timeout=1).status_code == 401:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise RuntimeError("rhumbline serve did not start listening")


@pytest.fixture(scope="module")
def start_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], LocalServer]]:
    """Start `rhumbline serve --dispatch <dispatch>` over a store holding one ingested project."""
    processes: list[subprocess.Popen[bytes]] = []

    def start(dispatch: str) -> LocalServer:
        root = tmp_path_factory.mktemp(f"e2e-{dispatch}")
        env = {key: value for key, value in os.environ.items() if not key.startswith(("RHUMBLINE_", "AWS_"))}
        env.update(RHUMBLINE_HOME=str(root / "home"), PYTHONUNBUFFERED="1")
        source = root / "shop" / "pkg"
        source.mkdir(parents=True)
        (source / "shop.py").write_text(SHOP_SOURCE)
        ingested = run_cli(env, "ingest", str(root / "shop"), "--project", "acme/shop")
        assert ingested.returncode == 0, ingested.stderr
        created = run_cli(env, "token", "create", "--principal", "e2e@example.com", "--projects", "acme/shop", "--scopes", "read")
        assert created.returncode == 0, created.stderr
        port = free_port()
        log = (root / "serve.log").open("wb")
        process = subprocess.Popen(
            [str(RHUMBLINE), "serve", "--port", str(port), "--dispatch", dispatch, "--log-level", "info", "--access-log"],
            env=env, cwd=root, stdout=log, stderr=subprocess.STDOUT,
        )
        processes.append(process)
        base = f"http://127.0.0.1:{port}"
        wait_until_serving(process, base)
        return LocalServer(
            url=f"{base}/mcp", base=base, home=root / "home", token=created.stdout.strip(), env=env,
            dispatch=dispatch, log=root / "serve.log",
        )

    yield start
    for process in processes:
        process.send_signal(signal.SIGINT)
    for process in processes:
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
