"""Pagination cursors: opaque, tamper-evident, bound to the caller, the query and the graph.

Where a cap cuts a list, a tool returns `next_cursor`; called again with the same arguments plus
`cursor`, it continues. A cursor is an itsdangerous URL-safe timed token: its payload holds the
position, the graph version it was issued against, and digests of the caller's token id and of the
query (tool name + every argument but `cursor`), signed (HMAC-SHA256) and timestamped with a server
secret. Changing one byte breaks the signature; a cursor replayed by another token, for other
arguments, after it expired, or after the graph changed (offsets would shift) is refused with a
specific `invalid_arguments` error saying which.

The secret: RHUMBLINE_CURSOR_SECRET (hosted: the template fills it from a generated Secrets
Manager secret); locally, when unset, one generated on first use and kept in
RHUMBLINE_HOME/cursor-secret with mode 0600, so cursors survive a server restart.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import os
import re
import secrets
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rhumbline.errors import InvalidArguments, Unavailable

if TYPE_CHECKING:
    from itsdangerous import URLSafeTimedSerializer

    from rhumbline.runtime.context import ToolContext

TTL_SECONDS = 3600
MAX_CURSOR = 2000  # characters; tools cap their `cursor` input at this
SECRET_VARIABLE = "RHUMBLINE_CURSOR_SECRET"
SECRET_FILE = "cursor-secret"
MIN_SECRET = 32
SALT = "rhumbline.cursor"
# What itsdangerous writes: [.]payload.timestamp.signature (the dot first when zlib-compressed).
_SHAPE = re.compile(r"\.?[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+")
_lock = threading.Lock()
_cache: dict[str, bytes] = {}


class InvalidCursor(InvalidArguments):
    """A cursor this server will not honour; `details.reason` says why."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message, details={"reason": reason})


def issue(
    context: ToolContext,
    tool: str,
    query: dict[str, Any],
    position: dict[str, Any],
    *,
    graph_version: int | None = None,
) -> str:
    body = {"p": position, "g": graph_version, "c": _digest(context.caller.token_id), "q": _digest(_canonical(tool, query))}
    return _serializer().dumps(body)


def read(
    context: ToolContext,
    tool: str,
    query: dict[str, Any],
    cursor: str,
    *,
    graph_version: int | None = None,
) -> dict[str, Any]:
    """The position a cursor holds, after every check; InvalidCursor otherwise."""
    from itsdangerous import BadPayload, BadSignature, SignatureExpired

    if not _SHAPE.fullmatch(cursor):
        raise InvalidCursor("malformed", "`cursor` is not a cursor this server issued: pass `next_cursor` unchanged")
    try:
        body = _serializer().loads(cursor, max_age=TTL_SECONDS)
    except SignatureExpired:
        raise InvalidCursor("expired", f"`cursor` expired (cursors last {TTL_SECONDS // 60} minutes): start again without it") from None
    except BadPayload:
        raise InvalidCursor("malformed", "`cursor` is not a cursor this server issued: pass `next_cursor` unchanged") from None
    except BadSignature:
        raise InvalidCursor("tampered", "`cursor` failed its integrity check (altered or not issued here)") from None
    if body["c"] != _digest(context.caller.token_id):
        raise InvalidCursor("foreign_caller", "`cursor` was issued to another token")
    if body["q"] != _digest(_canonical(tool, query)):
        raise InvalidCursor(
            "other_query", f"`cursor` belongs to another query: call '{tool}' with the same arguments it came from"
        )
    if body["g"] != graph_version:
        raise InvalidCursor("graph_changed", "the graph changed since `cursor` was issued: start again without it")
    position = body["p"]
    if not isinstance(position, dict):
        raise InvalidCursor("malformed", "`cursor` holds no position")
    return position


def offset(position: dict[str, Any], key: str) -> int:
    value = position.get(key, 0)
    if not isinstance(value, int) or value < 0:
        raise InvalidCursor("malformed", f"`cursor` holds a bad position for {key}")
    return value


def secret() -> bytes:
    configured = os.environ.get(SECRET_VARIABLE, "").strip()
    if configured:
        if len(configured) < MIN_SECRET:
            raise Unavailable(f"{SECRET_VARIABLE} must be at least {MIN_SECRET} characters")
        return configured.encode()
    from rhumbline.config import settings

    current = settings()
    if current.mode != "local":
        raise Unavailable(f"{SECRET_VARIABLE} is not set: this deployment cannot issue cursors")
    return _local_secret(current.home / SECRET_FILE)


def _local_secret(path: Path) -> bytes:
    # Looked up by the path as given first: resolving it touches the file system on every call.
    found = _cache.get(str(path))
    if found is not None:
        return found
    key = str(path.resolve())
    with _lock:
        if key in _cache:
            _cache[str(path)] = _cache[key]
            return _cache[key]
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            # O_EXCL: of two processes starting at once, one creates the file, the other reads it.
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            value = b""
            for _ in range(50):  # the creator may not have written it yet
                value = path.read_bytes().strip()
                if value:
                    break
                time.sleep(0.01)
            if len(value) < MIN_SECRET:
                raise Unavailable(f"{path} holds no usable cursor secret: delete it to make a new one") from None
        else:
            value = secrets.token_hex(32).encode()
            with os.fdopen(fd, "wb") as handle:
                handle.write(value)
        _cache[key] = _cache[str(path)] = value
        return value


def _serializer() -> URLSafeTimedSerializer:
    return _serializer_for(secret())


@functools.lru_cache(maxsize=4)
def _serializer_for(key: bytes) -> URLSafeTimedSerializer:
    """One serializer per secret: building it is a good part of a cursor's cost, and a paging
    tool makes one on every call. Keyed by the secret, so a changed secret gets its own."""
    # Imported when a cursor is made or read: the modules declaring `cursor` inputs load this one.
    from itsdangerous import URLSafeTimedSerializer

    return URLSafeTimedSerializer(key, salt=SALT, signer_kwargs={"digest_method": hashlib.sha256})


def _canonical(tool: str, query: dict[str, Any]) -> str:
    return json.dumps({"tool": tool, "arguments": query}, sort_keys=True, default=str, separators=(",", ":"))


def _digest(text: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()[:12]).decode()
