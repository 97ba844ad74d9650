"""How cached phase-1 facts are stored (`ingested_files.facts`), and read back safely.

A code file's call sites are most of its facts, and an incremental rebuild that re-resolves only
the changed files never reads the unchanged files' calls (partial.py). So facts with calls are
stored split: the facts without calls, then the calls, each a zlib-compressed pickle. Reading can
stop after the first part (`calls=False`); FactCache.complete() reads the rest when the whole
phase 2 needs it. Other facts (documents, files without calls) are one compressed pickle.

Both parts are read by an unpickler that only constructs NamedTuple-like classes of
`rhumbline.ingest.*` (tuples of plain values): a tampered row cannot run code.
"""

from __future__ import annotations

import io
import pickle
import zlib
from typing import Any

from rhumbline.ingest.facts import CodeFacts

# Facts are small and written once per change: fast compression is enough.
_COMPRESSION = 1
_PICKLE_PROTOCOL = 5
# A split blob starts with this; a whole one is a zlib stream, whose first byte is 0x78.
_SPLIT = b"\x00RF"
_LENGTH = 4


def encode_facts(code: Any) -> bytes:
    if isinstance(code, CodeFacts) and code.calls:
        head = _pack(code._replace(calls=()))
        return _SPLIT + len(head).to_bytes(_LENGTH, "big") + head + _pack(code.calls)
    return _pack(code)


def decode_facts(blob: bytes, *, calls: bool = True) -> Any:
    """The facts; with `calls=False` a split blob's calls are left out (an empty tuple)."""
    if blob[: len(_SPLIT)] != _SPLIT:
        return _unpack(blob)
    start = len(_SPLIT) + _LENGTH
    end = start + int.from_bytes(blob[len(_SPLIT) : start], "big")
    code = _unpack(memoryview(blob)[start:end])
    if not isinstance(code, CodeFacts):
        raise pickle.UnpicklingError("split facts that are not CodeFacts")
    return code._replace(calls=decode_calls(blob)) if calls else code


def decode_calls(blob: bytes) -> tuple[Any, ...]:
    """The calls of a split blob (empty for a whole one: they were decoded with the rest)."""
    if blob[: len(_SPLIT)] != _SPLIT:
        return ()
    start = len(_SPLIT) + _LENGTH
    end = start + int.from_bytes(blob[len(_SPLIT) : start], "big")
    found = _unpack(memoryview(blob)[end:])
    if not isinstance(found, tuple):
        raise pickle.UnpicklingError("split facts whose calls are not a tuple")
    return found


def is_split(blob: bytes) -> bool:
    return blob[: len(_SPLIT)] == _SPLIT


def _pack(value: Any) -> bytes:
    return zlib.compress(pickle.dumps(value, protocol=_PICKLE_PROTOCOL), _COMPRESSION)


def _unpack(data: bytes | memoryview) -> Any:
    return _FactsUnpickler(io.BytesIO(zlib.decompress(data))).load()


class _FactsUnpickler(pickle.Unpickler):
    """Only NamedTuple-like classes of the ingest package: never a function or another global."""

    def find_class(self, module: str, name: str) -> Any:
        if module.startswith("rhumbline.ingest.") and "." not in name:
            found = super().find_class(module, name)
            if isinstance(found, type) and issubclass(found, tuple):
                return found
        raise pickle.UnpicklingError(f"cached facts may not reference {module}.{name}")
