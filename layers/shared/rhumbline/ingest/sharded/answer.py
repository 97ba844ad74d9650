"""A shard's answer: its files' rows and their facts, as one object.

    4 bytes    the header's length, big-endian
    header     JSON {"outcomes": [row, ...], "facts": [each row's facts length, or null]}
    facts      the rows' facts blobs (facts_codec.py), concatenated in row order

One object a shard, not one a file: a hosted worker writes it once and the finish step reads it
once, whatever the shard's file count, and a local pool hands it back as one `bytes`. Reading
checks that the lengths cover the object exactly; the blobs are read later by the facts codec's
restricted unpickler, so a tampered answer can run no code (executors.outcome_of).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

Row = list[Any]
_LENGTH = 4


def encode_answer(parsed: Sequence[tuple[Row, bytes | None]]) -> bytes:
    blobs = [blob for _, blob in parsed if blob is not None]
    header = json.dumps({
        "outcomes": [row for row, _ in parsed], "facts": [None if blob is None else len(blob) for _, blob in parsed],
    }, separators=(",", ":")).encode()  # fmt: skip
    return b"".join([len(header).to_bytes(_LENGTH, "big"), header, *blobs])


def decode_answer(body: bytes) -> list[tuple[Row, bytes | None]]:
    """Each row with its facts blob (None: the file has none), in the shard's order."""
    end = _LENGTH + int.from_bytes(body[:_LENGTH], "big")
    try:
        header = json.loads(body[_LENGTH:end])
        rows, lengths = header["outcomes"], header["facts"]
    except (ValueError, TypeError, KeyError) as error:
        raise ValueError(f"not a shard answer: its header does not read ({error})") from None
    if not (isinstance(rows, list) and isinstance(lengths, list) and len(rows) == len(lengths)):
        raise ValueError("not a shard answer: its rows and facts lengths do not pair up")
    if not all(isinstance(row, list) and row for row in rows):
        raise ValueError("not a shard answer: a row is not a list")
    if not all(length is None or (type(length) is int and length >= 0) for length in lengths):
        raise ValueError("not a shard answer: a facts length is not a size")
    if end + sum(length or 0 for length in lengths) != len(body):
        raise ValueError(f"not a shard answer: its facts lengths do not add up to its {len(body)} bytes")
    parsed: list[tuple[Row, bytes | None]] = []
    view = memoryview(body)
    for row, length in zip(rows, lengths, strict=True):
        if length is None:
            parsed.append((row, None))
            continue
        parsed.append((row, bytes(view[end : end + length])))
        end += length
    return parsed
