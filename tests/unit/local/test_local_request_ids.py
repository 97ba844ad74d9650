"""The stand-ins' request ids: RFC 4122 version-4 UUID strings, as `str(uuid.uuid4())` gave."""

from __future__ import annotations

import re
import uuid

from rhumbline.local.request_ids import new_request_id

CANONICAL = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")


def test_ids_are_canonical_version_4_uuids() -> None:
    for _ in range(2000):
        text = new_request_id()
        assert CANONICAL.fullmatch(text), text
        parsed = uuid.UUID(text)
        assert (parsed.version, parsed.variant, str(parsed)) == (4, uuid.RFC_4122, text)


def test_ids_do_not_repeat() -> None:
    assert len({new_request_id() for _ in range(5000)}) == 5000
