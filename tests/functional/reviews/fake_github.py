"""A fake of GitHub's REST API for pull request files: a real HTTP server on a local port.

GET /repos/{owner}/{repo}/pulls/{number}/files?per_page=N&page=K answers the files set for that PR,
a page at a time with GitHub's `Link: <...>; rel="next"` header. Scripted answers (`fail`) come
first, one per request: an HTTP status with its headers (a 502, a rate limit). `delay` holds every
answer back (a stalled GitHub); `link_base` makes the `Link` header point elsewhere. Every request
is recorded (path and Authorization header).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

_FILES = re.compile(r"^/repos/([^/]+)/([^/]+)/pulls/(\d+)/files$")


@dataclass
class FakeGitHub:
    url: str = ""
    files: dict[tuple[str, int], list[str]] = field(default_factory=dict)
    scripted: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    requests: list[tuple[str, str | None]] = field(default_factory=list)
    delay: float = 0.0
    link_base: str | None = None

    def fail(self, status: int, **headers: str) -> None:
        self.scripted.append((status, headers))


@contextmanager
def serving() -> Iterator[FakeGitHub]:
    fake = FakeGitHub()
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # quiet
            pass

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            with lock:
                fake.requests.append((self.path, self.headers.get("Authorization")))
                scripted = fake.scripted.pop(0) if fake.scripted else None
            time.sleep(fake.delay)
            if scripted is not None:
                status, headers = scripted
                self._answer(status, {"message": "scripted"}, headers)
                return
            parsed = urlparse(self.path)
            found = _FILES.match(parsed.path)
            key = (f"{found.group(1)}/{found.group(2)}", int(found.group(3))) if found else None
            if key is None or key not in fake.files:
                self._answer(404, {"message": "Not Found"}, {})
                return
            query = parse_qs(parsed.query)
            per_page, page = int(query.get("per_page", ["30"])[0]), int(query.get("page", ["1"])[0])
            files = fake.files[key]
            chunk = files[(page - 1) * per_page : page * per_page]
            headers = {}
            if page * per_page < len(files):
                headers["Link"] = f'<{fake.link_base or fake.url}{parsed.path}?per_page={per_page}&page={page + 1}>; rel="next"'
            self._answer(200, [{"filename": name, "status": "modified"} for name in chunk], headers)

        def _answer(self, status: int, body: object, headers: dict[str, str]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
