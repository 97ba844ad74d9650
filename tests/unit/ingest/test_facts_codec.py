"""Cached facts (facts_codec.py): calls stored apart, readable without them, refused if tampered."""

from __future__ import annotations

import pickle
import zlib

import pytest

from rhumbline.ingest.facts_codec import decode_calls, decode_facts, encode_facts, is_split
from rhumbline.ingest.languages.python.extract import extract_python

CODE = extract_python(b"import os\n\n\ndef f(x):\n    return os.path.join(x, g())\n\n\ndef g():\n    pass\n")


def test_facts_with_calls_are_split_and_readable_without_them():
    blob = encode_facts(CODE)
    assert is_split(blob) and CODE.calls
    assert decode_facts(blob) == CODE
    assert decode_facts(blob, calls=False) == CODE._replace(calls=())
    assert decode_calls(blob) == CODE.calls


def test_facts_without_calls_are_one_part():
    quiet = CODE._replace(calls=())
    blob = encode_facts(quiet)
    assert not is_split(blob)
    assert decode_facts(blob, calls=False) == quiet and decode_calls(blob) == ()


def test_a_tampered_part_is_refused():
    blob = encode_facts(CODE)
    head_size = int.from_bytes(blob[3:7], "big")
    evil = pickle.dumps(print)
    with pytest.raises(pickle.UnpicklingError):
        decode_calls(blob[: 7 + head_size] + evil)
    with pytest.raises(pickle.UnpicklingError):
        decode_facts(blob[:3] + len(evil).to_bytes(4, "big") + evil, calls=False)


def _split(head: object, calls: object) -> bytes:
    packed = pickle.dumps(head)
    return b"\x00RF" + len(packed).to_bytes(4, "big") + packed + pickle.dumps(calls)


def test_records_are_stored_as_plain_rows_and_rebuilt_as_records():
    blob = encode_facts(CODE)
    head_size = int.from_bytes(blob[3:7], "big")
    head = pickle.loads(blob[7 : 7 + head_size])
    calls = pickle.loads(blob[7 + head_size :])
    assert type(head) is tuple and type(head[1][0]) is tuple  # a definition as a plain row
    assert calls == tuple(zip(*CODE.calls))  # scopes, callees, lines
    decoded = decode_facts(blob)
    assert type(decoded.definitions[0]) is type(CODE.definitions[0])
    assert type(decoded.calls[0]) is type(CODE.calls[0])


def test_malformed_rows_are_refused():
    blob = encode_facts(CODE)
    head_size = int.from_bytes(blob[3:7], "big")
    head = pickle.loads(blob[7 : 7 + head_size])
    columns = tuple(zip(*CODE.calls))
    short_definition = (head[0], (head[1][0][:-1],), *head[2:])
    with pytest.raises(pickle.UnpicklingError, match="definitions"):
        decode_facts(_split(short_definition, columns), calls=False)
    with pytest.raises(pickle.UnpicklingError, match="uneven"):
        decode_calls(_split(head, (columns[0], columns[1], columns[2][:-1], columns[3])))
    with pytest.raises(pickle.UnpicklingError, match="4 columns"):
        decode_calls(_split(head, CODE.calls))  # the records themselves: not this format
    with pytest.raises(pickle.UnpicklingError, match="head"):
        decode_facts(_split(CODE._replace(calls=()), columns), calls=False)


def test_a_compressed_row_of_earlier_code_is_refused():
    """Rows are plain pickles now; a zlib-compressed one (earlier code, whose fingerprint differs
    anyway) is refused like a damaged one: the file is parsed again."""
    for part in (CODE, CODE._replace(calls=())):
        old = zlib.compress(pickle.dumps(part), 1)
        with pytest.raises(pickle.UnpicklingError):
            decode_facts(old)
    blob = encode_facts(CODE)
    head_size = int.from_bytes(blob[3:7], "big")
    with pytest.raises(pickle.UnpicklingError):
        decode_calls(blob[: 7 + head_size] + zlib.compress(blob[7 + head_size :], 1))
