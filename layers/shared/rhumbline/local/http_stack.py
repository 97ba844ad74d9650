"""Which HTTP parser and event loop `rhumbline serve` runs uvicorn with.

httptools (llhttp, in C) parses each request and uvloop (libuv) runs the server's event loop, instead
of uvicorn's pure-Python h11 and the stdlib asyncio loop: both are a fixed cost on every call, and
both come with the `local` extra.
On a platform without their wheels (uvloop has none for Windows) the server still runs on
h11/asyncio, answers the same bytes, and says once at start why it is slower.

Only the server's own loop changes: the gateway container runs a loop of its own
(`gateway/container.py`), a stdlib asyncio loop like the one it has in Lambda.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass


@dataclass(frozen=True)
class HttpStack:
    http: str  # uvicorn's `http` setting
    loop: str  # uvicorn's `loop` setting
    missing: tuple[str, ...]  # the fast packages that are not installed

    def fallback_note(self) -> str | None:
        if not self.missing:
            return None
        return (
            f"{' and '.join(self.missing)} not installed: serving with uvicorn's {self.http} parser and "
            f"the {self.loop} event loop (slower per call; `pip install 'rhumbline[local]'` brings them)"
        )


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def choose_http_stack() -> HttpStack:
    missing = tuple(module for module in ("httptools", "uvloop") if not _installed(module))
    return HttpStack(
        http="h11" if "httptools" in missing else "httptools",
        loop="asyncio" if "uvloop" in missing else "uvloop",
        missing=missing,
    )
