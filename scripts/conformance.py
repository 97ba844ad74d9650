"""Run the official MCP conformance suite's server scenarios against a real `rhumbline serve`.

    scripts/conformance.sh            installs the suite (npm) and runs this
    python scripts/conformance.py --suite-bin PATH [--scenario NAME ...]

The suite cannot send an Authorization header, so it talks to a loopback proxy that adds a
read-scope bearer token and forwards everything else untouched (Host and Origin included, so the
DNS-rebinding scenario still reaches the server's own check). Scenarios that need a server's own
test fixtures (its `test_*` tools, prompts, resources, sampling, elicitation, completions) do not
apply to a tools-only server and are not run.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx

# The server scenarios a tools-only server with its own tools can pass.
SCENARIOS = ("server-initialize", "ping", "tools-list", "dns-rebinding-protection")
RHUMBLINE = Path(sys.executable).parent / "rhumbline"
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection", "te", "trailer"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def proxy(target: str, token: str) -> ThreadingHTTPServer:
    """Forward every request to `target` with `Authorization: Bearer <token>` added."""
    client = httpx.Client(timeout=30)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib's name
            pass

        def forward(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            headers = [(name, value) for name, value in self.headers.items() if name.lower() not in HOP_BY_HOP]
            headers.append(("Authorization", f"Bearer {token}"))
            answer = client.request(self.command, f"{target}{self.path}", content=body, headers=headers)
            self.send_response(answer.status_code)
            for name, value in answer.headers.multi_items():
                if name.lower() not in HOP_BY_HOP | {"content-length", "content-encoding"}:
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(answer.content)))
            self.end_headers()
            self.wfile.write(answer.content)

        do_GET = do_POST = do_DELETE = forward  # noqa: N815 - the stdlib's names

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def wait_for(url: str, process: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"rhumbline serve exited with {process.returncode}")
        try:
            if httpx.post(url, timeout=1).status_code == 401:
                return
        except httpx.TransportError:
            time.sleep(0.2)
    raise SystemExit("rhumbline serve did not start")


def run(suite_bin: str, scenarios: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="rhumbline-conformance-") as scratch:
        env = {key: value for key, value in os.environ.items() if not key.startswith(("RHUMBLINE_", "AWS_"))}
        env["RHUMBLINE_HOME"] = str(Path(scratch) / "home")
        created = subprocess.run(
            [str(RHUMBLINE), "token", "create", "--principal", "conformance", "--projects", "*", "--scopes", "read"],
            env=env, capture_output=True, text=True, check=True, timeout=120,
        )
        port = free_port()
        server = subprocess.Popen(
            [str(RHUMBLINE), "serve", "--port", str(port), "--log-level", "warning"], env=env, cwd=scratch
        )
        try:
            wait_for(f"http://127.0.0.1:{port}/mcp", server)
            forwarder = proxy(f"http://127.0.0.1:{port}", created.stdout.strip())
            url = f"http://127.0.0.1:{forwarder.server_address[1]}/mcp"
            failed = []
            for scenario in scenarios:
                output = Path(scratch) / "results" / scenario
                done = subprocess.run(
                    [suite_bin, "server", "--url", url, "--scenario", scenario, "-o", str(output)],
                    capture_output=True, text=True, timeout=300, check=False,
                )
                checks = [check for path in output.rglob("checks.json") for check in json.loads(path.read_text())]
                bad = [check for check in checks if check.get("status") not in ("SUCCESS", "INFO", "SKIPPED")]
                ok = done.returncode == 0 and checks and not bad
                print(f"{'PASS' if ok else 'FAIL'} {scenario} ({len(checks)} checks)")
                if not ok:
                    failed.append(scenario)
                    for check in bad or checks:
                        print(f"    {check.get('status')}: {check.get('id')}: {check.get('errorMessage') or ''}")
                    if not checks:
                        print(done.stdout[-2000:], done.stderr[-2000:], sep="\n")
            forwarder.shutdown()
        finally:
            server.send_signal(signal.SIGINT)
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
        print(f"{len(scenarios) - len(failed)} of {len(scenarios)} scenarios passed")
        return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite-bin", required=True, help="the conformance suite's executable (node_modules/.bin/conformance)")
    parser.add_argument("--scenario", action="append", help=f"a scenario to run (default: {', '.join(SCENARIOS)})")
    arguments = parser.parse_args()
    return run(arguments.suite_bin, arguments.scenario or list(SCENARIOS))


if __name__ == "__main__":
    sys.exit(main())
