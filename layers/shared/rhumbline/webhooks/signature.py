"""GitHub's `X-Hub-Signature-256`: `sha256=` + hex HMAC-SHA256 of the exact body bytes."""

from __future__ import annotations

import hashlib
import hmac
import re

_HEADER = re.compile(r"^sha256=([0-9a-f]{64})$")


def sign(secret: str, body: bytes) -> str:
    """The header value GitHub would send for `body` (also what tests sign with)."""
    return "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


def well_formed(header: str | None) -> bool:
    return header is not None and _HEADER.match(header.strip().lower()) is not None


def verify(secret: str, body: bytes, header: str) -> bool:
    """Constant-time comparison of the presented signature with the expected one."""
    presented = header.strip().lower().encode("ascii", "replace")
    return hmac.compare_digest(sign(secret, body).encode("ascii"), presented)
