"""How cached phase-1 facts are stored (`ingested_files.facts`), and read back safely.

A code file's call sites are most of its facts, and an incremental rebuild that re-resolves only
the changed files never reads the unchanged files' calls (partial.py). So facts with calls are
stored split: the facts without calls, then the calls, each a pickle. Reading can stop after the
first part (`calls=False`); FactCache.complete() reads the rest when the whole phase 2 needs it.
Other facts (documents, files without calls) are one pickle.

Not compressed: a full ingest encodes every parsed file's facts in the pool workers and decodes
them in the parent (they are also what the workers send back), and zlib was most of that cost;
the rows take about twice the room. Rows written by earlier code are never decoded: the extractor
fingerprint changes with this file, so those files are parsed again.

The parts of a split blob hold plain tuples, not the NamedTuples themselves: pickling a
NamedTuple calls a Python method per object each way (`__getnewargs__`, the class's `__new__`),
which made this codec a visible part of phase 1 on both sides of the pool (encoding in the
workers, decoding in the parent). The head's records
are stored as rows and the calls as columns (scopes, callees, lines, arguments); decoding rebuilds the
NamedTuples with `tuple.__new__` in C after checking each row's width.

Every part is read by an unpickler that only constructs NamedTuple-like classes of
`rhumbline.ingest.*` (tuples of plain values): a tampered row cannot run code.
"""

from __future__ import annotations

import io
import pickle
from itertools import repeat
from typing import Any

from rhumbline.ingest.facts import CallSite, CodeFacts, Definition, ImportFact, TypeHint, Variable

_PICKLE_PROTOCOL = 5
# A split blob starts with this; a whole one is a pickle, whose first byte is 0x80.
_SPLIT = b"\x00RF"
_LENGTH = 4


def encode_facts(code: Any) -> bytes:
    if isinstance(code, CodeFacts) and code.calls:
        head = _pack(_head_rows(code))
        columns = tuple(zip(*code.calls))  # (scopes, callees, lines, arguments)
        return _SPLIT + len(head).to_bytes(_LENGTH, "big") + head + _pack(columns)
    return _pack(code)


def decode_facts(blob: bytes, *, calls: bool = True) -> Any:
    """The facts; with `calls=False` a split blob's calls are left out (an empty tuple)."""
    if blob[: len(_SPLIT)] != _SPLIT:
        return _unpack(blob)
    start = len(_SPLIT) + _LENGTH
    end = start + int.from_bytes(blob[len(_SPLIT) : start], "big")
    code = _code_facts(_unpack(memoryview(blob)[start:end]))
    return code._replace(calls=decode_calls(blob)) if calls else code


def decode_calls(blob: bytes) -> tuple[Any, ...]:
    """The calls of a split blob (empty for a whole one: they were decoded with the rest)."""
    if blob[: len(_SPLIT)] != _SPLIT:
        return ()
    start = len(_SPLIT) + _LENGTH
    end = start + int.from_bytes(blob[len(_SPLIT) : start], "big")
    columns = _unpack(memoryview(blob)[end:])
    width = len(CallSite._fields)
    if not (isinstance(columns, tuple) and len(columns) == width and all(type(c) is tuple for c in columns)):
        raise pickle.UnpicklingError(f"split facts whose calls are not {width} columns")
    try:
        return tuple(map(_new, repeat(CallSite), zip(*columns, strict=True)))
    except ValueError as error:  # columns of different lengths
        raise pickle.UnpicklingError(f"split facts with uneven call columns: {error}") from None


# CodeFacts fields that hold records, stored as rows of plain tuples; the record class of each.
_RECORD_FIELDS = {
    "definitions": Definition, "variables": Variable, "imports": ImportFact, "hints": TypeHint,
}  # fmt: skip
_new = tuple.__new__


def _head_rows(code: CodeFacts) -> tuple[Any, ...]:
    """The facts without calls, as a plain tuple whose record fields are tuples of rows."""
    head = code._replace(calls=())
    return tuple(tuple(map(tuple, value)) if name in _RECORD_FIELDS else value
                 for name, value in zip(CodeFacts._fields, head))  # fmt: skip


def _code_facts(head: Any) -> CodeFacts:
    if not (type(head) is tuple and len(head) == len(CodeFacts._fields)):
        raise pickle.UnpicklingError("split facts whose head is not CodeFacts rows")
    fields = dict(zip(CodeFacts._fields, head))
    for name, record in _RECORD_FIELDS.items():
        rows = fields[name]
        if type(rows) is not tuple or not (
            set(map(type, rows)) <= {tuple} and set(map(len, rows)) <= {len(record._fields)}
        ):
            raise pickle.UnpicklingError(f"split facts whose {name} are not {record.__name__} rows")
        fields[name] = tuple(map(_new, repeat(record), rows))
    return _new(CodeFacts, fields.values())


def is_split(blob: bytes) -> bool:
    return blob[: len(_SPLIT)] == _SPLIT


def _pack(value: Any) -> bytes:
    return pickle.dumps(value, protocol=_PICKLE_PROTOCOL)


def _unpack(data: bytes | memoryview) -> Any:
    return _FactsUnpickler(io.BytesIO(data)).load()


class _FactsUnpickler(pickle.Unpickler):
    """Only NamedTuple-like classes of the ingest package: never a function or another global."""

    def find_class(self, module: str, name: str) -> Any:
        if module.startswith("rhumbline.ingest.") and "." not in name:
            found = super().find_class(module, name)
            if isinstance(found, type) and issubclass(found, tuple):
                return found
        raise pickle.UnpicklingError(f"cached facts may not reference {module}.{name}")
