"""The `cy_*` SQL functions follow Neo4j's results."""

from __future__ import annotations

import json
import math

import pytest

from rhumbline.cypher.sqlite import functions as f


def test_numbers_as_neo4j_computes_them() -> None:
    assert [f.divide(7, 2), f.divide(-7, 2), f.divide(7, -2), f.divide(7.0, 2)] == [3, -3, -3, 3.5]
    assert [f.modulo(7, 3), f.modulo(-7, 3), f.modulo(7, -3), f.modulo(-7.5, 2)] == [1, -1, 1, -1.5]
    assert math.isinf(f.divide(1.0, 0)) and math.isnan(f.divide(0.0, 0))
    with pytest.raises(f.CypherRuntimeError, match="/ by zero"):
        f.divide(1, 0)
    assert str(f.last_failure()) == "/ by zero" and f.last_failure() is None
    assert [f.round_half_up(2.5), f.round_half_up(-2.5), f.round_half_up(-2.6)] == [3.0, -2.0, -3.0]
    assert [f.to_integer("4.7", 0), f.to_integer("x", 0), f.to_integer(1, 1), f.to_integer(3.9, 0)] == [4, None, 1, 3]


def test_floats_print_as_java_does() -> None:
    assert [f.to_string(x) for x in (1.0, 0.1, 1e21, 1.5e-5, 123456789.0, -3e-7)] == [
        "1.0", "0.1", "1.0E21", "1.5E-5", "1.23456789E8", "-3.0E-7",
    ]  # fmt: skip
    assert f.string_plus("n", 1.5) == "n1.5"


def test_strings_and_lists() -> None:
    assert f.regex("abc", "a.c") == 1 and f.regex("abcd", "a.c") == 0 and f.regex(None, "x") is None
    with pytest.raises(f.CypherRuntimeError, match="invalid regular expression"):
        f.regex("a", "(")
    with pytest.raises(f.RegexUnsupported, match="RE2"):
        f.regex("abab", r"(ab)\1")
    assert f.regex("a" * 40 + "b", "(a+)+$") == 0  # linear on RE2, hours on a backtracking engine
    assert json.loads(f.split("a,b,,c", ",")) == ["a", "b", "", "c"]
    assert json.loads(f.number_range(5, 1, -2)) == [5, 3, 1]
    assert json.loads(f.list_slice("[1, 2, 3]", 1, None, 0, 1)) == [2, 3]
    assert f.list_slice("[1, 2, 3]", None, 2, 0, 0) is None


def test_equality_and_membership_with_nulls() -> None:
    assert f.json_equal("[1, 2]", "[1, 2.0]") == 1 and f.json_equal("[1, null]", "[1, 2]") is None
    assert f.json_equal("[true]", "[1]") == 0
    assert f.member("3", "[1, null]") is None and f.member("1", "[1, null]") == 1 and f.member("3", "[]") == 0


def test_paths_follow_their_relationships() -> None:
    rels = json.dumps([{"~r": [1, "CALLS", 2]}, [{"~r": [3, "CALLS", 2]}, {"~r": [3, "DEFINES", 4]}]])
    nodes, flat = json.loads(f.path(1, rels))
    assert [n["~n"] for n in nodes] == [1, 2, 3, 4] and len(flat) == 3
    assert f.path(1, json.dumps([{"~r": None}])) is None  # an OPTIONAL MATCH that matched nothing
