"""CloudFormation's side of a custom resource: a context with a deadline and the response URL.

A real HTTP server stands in for the pre-signed S3 URL CloudFormation waits on; `cloudformation`
(conftest.py) records each answer PUT to it.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeContext:
    log_stream_name = "2026/01/01/[$LATEST]abc"

    def __init__(self, remaining_ms: int = 600_000) -> None:
        self.deadline = time.monotonic() + remaining_ms / 1000

    def get_remaining_time_in_millis(self) -> int:
        return int((self.deadline - time.monotonic()) * 1000)


@contextmanager
def response_url() -> Iterator[dict[str, Any]]:
    """A response URL that records each PUT (method, headers, JSON body)."""
    received: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_PUT(self) -> None:  # noqa: N802 - http.server's naming
            body = self.rfile.read(int(self.headers["Content-Length"]))
            received.append({"path": self.path, "content_type": self.headers.get("Content-Type"), "body": json.loads(body)})
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield {"url": f"http://127.0.0.1:{server.server_port}/signed?X-Amz-Signature=x", "received": received}
    finally:
        server.shutdown()
        server.server_close()
