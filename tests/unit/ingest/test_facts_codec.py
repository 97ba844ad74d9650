"""Cached facts (facts_codec.py): calls stored apart, readable without them, refused if tampered."""

from __future__ import annotations

import pickle
import zlib

import pytest

from rhumbline.ingest.facts_codec import decode_calls, decode_facts, encode_facts, is_split
from rhumbline.ingest.python.extract import extract_python

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
    evil = zlib.compress(pickle.dumps(print))
    with pytest.raises(pickle.UnpicklingError):
        decode_calls(blob[: 7 + head_size] + evil)
    with pytest.raises(pickle.UnpicklingError):
        decode_facts(blob[:3] + len(evil).to_bytes(4, "big") + evil, calls=False)
