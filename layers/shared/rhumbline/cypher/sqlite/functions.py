"""Cypher functions and operators SQLite lacks or computes differently, registered as `cy_*` SQL
functions on the query connection (runner.py). Each follows Neo4j's result for the same
input: null in, null out; integer division and modulo truncate toward zero; round() rounds half
up; strings change case by Unicode rules; regular expressions match the whole string.

Lists and maps arrive and leave as JSON text in container form (types.py).

Bounded by construction: a function runs inside one step of the statement, where the deadline
cannot interrupt it, so none builds a value past VALUE_BYTES (the size is known before the value is
built: a range, a concatenation, a replace) and `collect` stops there too; regular expressions run
on RE2, whose matching is linear in the text (no backtracking). The connection refuses any other
value past the same size (runner.py sets SQLITE_LIMIT_LENGTH).
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
import threading
import time
from decimal import Decimal
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import re2

from rhumbline.cypher.budget import VALUE_BYTES  # the largest value a query may build, in characters
_failure = threading.local()  # the last function error on this thread, for the tool's message
_clock = threading.local()  # the deadline of the statement this thread runs


class CypherRuntimeError(ValueError):
    """Neo4j would fail the query with this error (division by zero, a bad regular expression)."""


class ValueTooLarge(CypherRuntimeError):
    """The query would build a value past VALUE_BYTES."""


class DeadlinePassed(CypherRuntimeError):
    """The statement's deadline passed before a function call."""


class RegexUnsupported(CypherRuntimeError):
    """A pattern RE2 does not accept (a backreference, a lookaround)."""


def last_failure() -> CypherRuntimeError | None:
    failure = getattr(_failure, "error", None)
    _failure.error = None
    return failure


def _fails(message: str, kind: type[CypherRuntimeError] = CypherRuntimeError) -> CypherRuntimeError:
    error = kind(message)
    _failure.error = error
    return error


def set_deadline(at: float) -> None:
    """The monotonic time past which this thread's statement stops (runner.py)."""
    _clock.deadline = at


def past_deadline() -> bool:
    return time.monotonic() > getattr(_clock, "deadline", math.inf)


def _on_time(function: Callable[..., Any]) -> Callable[..., Any]:
    """SQLite checks the deadline every so many instructions; a function call is one instruction,
    and a row may make many: each call checks it too."""

    def call(*args: Any) -> Any:
        if past_deadline():
            raise _fails("the deadline passed", DeadlinePassed)
        return function(*args)

    return call


def _within(size: int, what: str) -> None:
    """Refuses, before building it, a value of `size` characters past the budget."""
    if size > VALUE_BYTES:
        raise _fails(f"{what} would be {size:,} characters, over the {VALUE_BYTES:,}-character limit on a value", ValueTooLarge)


def _nulls(function: Callable[..., Any]) -> Callable[..., Any]:
    def wrapped(*args: Any) -> Any:
        if any(a is None for a in args):
            return None
        return function(*args)

    return wrapped


def _java_double(value: float) -> str:
    """A float as Neo4j prints it (Java's Double.toString)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0 or 1e-3 <= abs(value) < 1e7:
        text = repr(value)
        return text if "." in text or "e" in text else text + ".0"
    sign, digits, exponent = Decimal(repr(value)).normalize().as_tuple()
    shown = "".join(map(str, digits))
    return f"{'-' if sign else ''}{shown[0]}.{shown[1:] or '0'}E{len(digits) - 1 + int(exponent)}"


def _string_of(value: Any) -> str:
    if isinstance(value, float):
        return _java_double(value)
    return str(value)


def to_string(value: Any) -> str | None:
    return None if value is None else _string_of(value)


def to_integer(value: Any, is_bool: int) -> int | None:
    if value is None:
        return None
    if is_bool:
        return int(bool(value))
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else int(value)
    try:
        return int(value)
    except ValueError:
        try:
            number = float(value)
        except ValueError:
            return None
        return None if math.isnan(number) or math.isinf(number) else int(number)


def to_float(value: Any, is_bool: int) -> float | None:
    if value is None:
        return None
    if is_bool:
        raise _fails("toFloat() of a boolean is an error in Neo4j")
    try:
        return float(value)
    except ValueError:
        return None


def divide(a: Any, b: Any) -> Any:
    if a is None or b is None:
        return None
    if isinstance(a, int) and isinstance(b, int):
        if b == 0:
            raise _fails("/ by zero")
        quotient = abs(a) // abs(b)
        return quotient if (a >= 0) == (b > 0) else -quotient
    if b == 0:
        return math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a) * math.copysign(1, b)
    return a / b


def modulo(a: Any, b: Any) -> Any:
    if a is None or b is None:
        return None
    if isinstance(a, int) and isinstance(b, int):
        if b == 0:
            raise _fails("/ by zero")
        rest = abs(a) % abs(b)
        return rest if a >= 0 else -rest
    return math.fmod(a, b) if b != 0 else math.nan


def power(a: Any, b: Any) -> float | None:
    if a is None or b is None:
        return None
    try:
        result = float(a) ** float(b)
    except OverflowError:
        return math.inf
    except ZeroDivisionError:
        return math.inf
    return math.nan if isinstance(result, complex) else result


def round_half_up(value: Any) -> float | None:
    return None if value is None else float(math.floor(value + 0.5))


_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # a refused pattern is the caller's error, not the server's log


@lru_cache(maxsize=128)
def _regex(pattern: str) -> Any:
    try:
        return re2.compile(pattern, options=_RE2_OPTIONS)
    except re2.error as error:
        reason = error.args[0].decode() if error.args and isinstance(error.args[0], bytes) else str(error)
    try:
        re.compile(pattern)  # parsed only: a backtracking dialect's syntax, not RE2's
    except re.error:
        raise _fails(f"invalid regular expression '{pattern}': {reason}") from None
    raise _fails(
        f"the regular expression '{pattern}' is not accepted by RE2, the embedded store's engine ({reason}); "
        "RE2 has no backreferences, lookaround, possessive quantifiers or atomic groups (docs/query.md)",
        RegexUnsupported,
    )


def regex(value: Any, pattern: Any) -> int | None:
    if value is None or pattern is None:
        return None
    if not isinstance(value, str) or not isinstance(pattern, str):
        return None
    return int(_regex(pattern).fullmatch(value) is not None)


def substring(value: str | None, start: int | None, length: int | None = -1) -> str | None:
    if value is None or start is None or length is None:
        return None
    if start < 0 or (length != -1 and length < 0):
        raise _fails("substring() takes a non-negative start and length")
    return value[start:] if length == -1 else value[start : start + length]


def split(value: Any, delimiter: Any) -> str | None:
    if value is None or delimiter is None:
        return None
    if delimiter == "":
        _within(len(value) * 6, "split()")  # '"c", ' per character, at most
    parts = list(value) if delimiter == "" else value.split(delimiter)
    return json.dumps(parts, ensure_ascii=False)


def number_range(start: Any, end: Any, step: Any) -> str | None:
    if start is None or end is None or step is None:
        return None
    if step == 0:
        raise _fails("range() step must not be zero")
    _within(range_chars(start, end, step), f"range({start}, {end}, {step})")
    return json.dumps(list(range(start, end + (1 if step > 0 else -1), step)), separators=(",", ":"))


def range_chars(start: int, end: int, step: int) -> int:
    """The characters of range()'s list as JSON, at most: known before it is built."""
    count = len(range(start, end + (1 if step > 0 else -1), step))
    return count * (len(str(max(abs(start), abs(end)))) + 2)


def list_slice(items: Any, start: Any, end: Any, start_missing: int, end_missing: int) -> str | None:
    if items is None or (start is None and not start_missing) or (end is None and not end_missing):
        return None
    values = json.loads(items)
    return json.dumps(values[None if start_missing else start : None if end_missing else end], ensure_ascii=False)


def concat(a: str | None, b: str | None) -> str | None:
    if a is None or b is None:
        return None
    _within(len(a) + len(b), "a list concatenation")
    # Two JSON arrays (the compiler wraps an operand that is not a list) joined as text: decoding
    # them would cost a hundred times more.
    left, right = a.strip(), b.strip()
    if not left[1:-1].strip():
        return right
    if not right[1:-1].strip():
        return left
    return f"{left[:-1]},{right[1:]}"


def string_plus(a: Any, b: Any) -> str | None:
    if a is None or b is None:
        return None
    left, right = _string_of(a), _string_of(b)
    _within(len(left) + len(right), "a string concatenation")
    return left + right


def equal(a: Any, b: Any) -> bool | None:
    """Cypher equality of two values in container form (decoded JSON)."""
    if a is None or b is None:
        return None
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return False
        return _all(equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return False
        return _all(equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _all(results: Any) -> bool | None:
    unknown = False
    for result in results:
        if result is False:
            return False
        if result is None:
            unknown = True
    return None if unknown else True


def json_equal(a: Any, b: Any) -> int | None:
    if a is None or b is None:
        return None
    result = equal(json.loads(a), json.loads(b))
    return None if result is None else int(result)


def member(item: Any, items: Any) -> int | None:
    if items is None:
        return None
    values = json.loads(items)
    value = json.loads(item) if item is not None else None
    unknown = False
    for candidate in values:
        result = equal(value, candidate)
        if result:
            return 1
        unknown = unknown or result is None
    return None if unknown else 0


def keys(value: Any) -> str | None:
    return None if value is None else json.dumps(sorted(json.loads(value)), ensure_ascii=False)


def merge(base: Any, extra: Any) -> str | None:
    if base is None:
        return None
    _within(len(base) + len(extra), "a map")
    return json.dumps({**json.loads(base), **json.loads(extra)}, ensure_ascii=False)


def prepend(items: Any, item: Any) -> str:
    _within(len(items) + len(item), "a list")
    return json.dumps([json.loads(item), *json.loads(items)], ensure_ascii=False)


def path(start: Any, pieces: Any) -> str | None:
    """A path from its first node and its relationships (or lists of them): the nodes follow."""
    if start is None or pieces is None:
        return None
    rels: list[Any] = []
    for piece in json.loads(pieces):
        if piece is None or (isinstance(piece, dict) and piece.get("~r") is None):
            return None  # an OPTIONAL MATCH that matched nothing
        rels.extend(piece if isinstance(piece, list) else [piece])
    nodes, current = [{"~n": start}], start
    for rel in rels:
        source, _, target = rel["~r"]
        current = target if source == current else source
        nodes.append({"~n": current})
    return json.dumps([nodes, rels])


def rel_element_id(rel: Any) -> str | None:
    if rel is None:
        return None
    source, relation, target = json.loads(rel)
    return f"r:{source}:{relation}:{target}"


def _text(function: Callable[[str], Any]) -> Callable[[Any], Any]:
    def wrapped(value: Any) -> Any:
        if value is None:
            return None
        if not isinstance(value, str):
            raise _fails(f"expected a string, got {value!r}")
        return function(value)

    return wrapped


def replace(value: str | None, old: str | None, new: str | None) -> str | None:
    if value is None or old is None or new is None:
        return None
    count = value.count(old) if old else len(value) + 1
    _within(len(value) + count * (len(new) - len(old)), "replace()")
    return value.replace(old, new)


class Collect:
    """collect() and list building as an SQLite aggregate over JSON texts (json_quote of each
    value): json_group_array's buffer grows without a bound until the statement ends. Over no
    row it is NULL (the module makes no instance), so the compiler writes coalesce(..., '[]')."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 2

    def step(self, value: Any) -> None:
        if past_deadline():
            raise _fails("the deadline passed", DeadlinePassed)
        self.size += len(value) + 1
        _within(self.size, "a collected list")
        self.parts.append(value)

    def finalize(self) -> str:
        return "[" + ",".join(self.parts) + "]"


def _sign(value: float) -> int:
    return (value > 0) - (value < 0)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "cy_lower": _text(str.lower), "cy_upper": _text(str.upper), "cy_trim": _text(str.strip),
    "cy_ltrim": _text(str.lstrip), "cy_rtrim": _text(str.rstrip), "cy_reverse": _text(lambda v: v[::-1]),
    "cy_to_string": to_string, "cy_tointeger": to_integer, "cy_tofloat": to_float,
    "cy_substring": substring, "cy_split": split, "cy_range": number_range, "cy_slice": list_slice,
    "cy_left": _nulls(lambda v, n: v[:n]), "cy_right": _nulls(lambda v, n: v[-n:] if n else ""),
    "cy_replace": replace,
    "cy_reverse_list": _nulls(lambda v: json.dumps(json.loads(v)[::-1], ensure_ascii=False)),
    "cy_abs": _nulls(abs), "cy_ceil": _nulls(lambda v: float(math.ceil(v))),
    "cy_floor": _nulls(lambda v: float(math.floor(v))), "cy_round": round_half_up, "cy_sign": _nulls(_sign),
    "cy_sqrt": _nulls(lambda v: math.sqrt(v) if v >= 0 else math.nan),
    "cy_divide": divide, "cy_modulo": modulo, "cy_pow": power, "cy_regex": regex,
    "cy_starts": _nulls(lambda a, b: int(a.startswith(b))), "cy_ends": _nulls(lambda a, b: int(a.endswith(b))),
    "cy_contains": _nulls(lambda a, b: int(b in a)), "cy_concat": concat, "cy_string_plus": string_plus,
    "cy_equal": json_equal, "cy_in": member, "cy_keys": keys, "cy_merge": merge, "cy_prepend": prepend,
    "cy_path": path, "cy_rel_element_id": rel_element_id,
}  # fmt: skip


def register(connection: sqlite3.Connection) -> None:
    for name, function in FUNCTIONS.items():
        connection.create_function(name, -1, _on_time(function), deterministic=True)
    # typeshed's aggregate protocol has finalize() return an int; SQLite takes any SQL value.
    connection.create_aggregate("cy_collect", 1, Collect)  # type: ignore[arg-type]
