"""A Lambda function's answer is parsed as json.loads would parse it, faster (gateway/dispatch.py)."""

from __future__ import annotations

import json
import math

import pytest

from rhumbline.gateway.dispatch import parse_payload

ANSWERS = [
    {"contract": "rhumbline.tool-outcome/1", "ok": True, "result": {"items": [{"name": "Größe", "line": None}]}},
    {"big": 12345678901234567890123, "small": -7, "float": 0.1, "exp": 1e-300, "huge": 1e308, "nested": [[{}], []]},
    {"text": "tab\tquote\" backslash\\ emoji 🚢 nul \u0000", "dup": 1},
    {"surrogate": "\ud800 alone"},  # a lone surrogate: only json.loads takes it
    ["a list", 1, True, False, None],
    "a string",
]


@pytest.mark.parametrize("answer", ANSWERS)
def test_it_reads_what_json_loads_reads(answer: object) -> None:
    body = json.dumps(answer).encode()
    parsed = parse_payload(body)
    assert parsed == json.loads(body)
    assert json.dumps(parsed) == json.dumps(answer)  # key order and types too


def test_non_finite_numbers_as_python_writes_them() -> None:
    parsed = parse_payload(b'{"a": NaN, "b": Infinity, "c": -Infinity, "d": 1e400}')
    assert math.isnan(parsed["a"]) and parsed["b"] == parsed["d"] == math.inf and parsed["c"] == -math.inf


def test_duplicate_keys_keep_the_last_as_json_loads_does() -> None:
    assert parse_payload(b'{"a": 1, "a": 2}') == {"a": 2}


@pytest.mark.parametrize("body", [b"", b"not json", b"\xff\xfe", b'{"a": 1', b'{"a": 1} trailing'])
def test_what_is_not_json_is_none(body: bytes) -> None:
    assert parse_payload(body) is None
