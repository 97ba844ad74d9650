"""Request ids for the local stand-ins of API Gateway and Lambda: random (version 4) UUID strings.

`str(uuid.uuid4())` builds a `UUID` object in pure Python only to format it again (~10-18 µs on
the test machine); the stand-in mints two per tools/call (API Gateway's request id, Lambda's
invocation id). This formats the same 16 random bytes, with the version and variant bits set as
RFC 4122 requires, directly (~2-3 µs).
"""

from __future__ import annotations

import os


def new_request_id() -> str:
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40  # version 4
    raw[8] = (raw[8] & 0x3F) | 0x80  # RFC 4122 variant
    text = raw.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"
