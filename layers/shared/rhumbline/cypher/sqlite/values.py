"""A compiled Cypher value (its SQL and static type), the SELECT it is compiled into (`Part`), the
checks the compiler makes on types, and what an expression needs compiled by the other parts of
the compiler (`Language`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from rhumbline.cypher import syntax as s
from rhumbline.cypher.parser import CypherSyntaxError, NotInSubset
from rhumbline.cypher.sqlite.types import (
    ANY,
    BOOL,
    FLOAT,
    INT,
    NULL,
    NUMBERS,
    STR,
    T,
    list_of,
    unify,
)

AGGREGATES = frozenset({"count", "collect", "min", "max", "avg", "sum"})


@dataclass(eq=False)
class V:
    """A compiled value: SQL text and static type. Nodes and relationships matched in a part keep
    the alias of their `nodes`/`edges` row (property reads use it); `owner` is the part whose FROM
    can join that row when there is no alias yet (a value carried over by WITH)."""

    sql: str
    type: T
    alias: str | None = None
    owner: Part | None = None
    origin: s.NodePattern | None = field(default=None)  # the pattern that introduced a node


class Part:
    """One SELECT being built: its FROM items, WHERE conditions and the variables in scope."""

    def __init__(self, env: dict[str, V] | None = None, parent: Part | None = None) -> None:
        # FROM items: (table or subquery, its alias, the ON of a LEFT JOIN or None for an inner one)
        self.items: list[tuple[str, str, str | None]] = []
        self.wheres: list[str] = []
        self.env: dict[str, V] = dict(env or {})
        self.parent = parent

    def lookup(self, name: str) -> V | None:
        return self.env.get(name)

    def bind(self, name: str, value: V) -> None:
        self.env[name] = value

    def child(self) -> Part:
        """A scope for a subquery expression: sees this part's variables, adds its own."""
        return Part(self.env, parent=self)

    def add(self, table: str, alias: str) -> None:
        self.items.append((f"{table} AS {alias}", alias, None))

    def left_join(self, table: str, alias: str, on: str) -> None:
        self.items.append((f"{table} AS {alias}", alias, on))

    def from_sql(self) -> str:
        if not self.items:
            return "(SELECT 1)"
        text = "" if self.items[0][2] is None else "(SELECT 1)"
        for i, (table, _, on) in enumerate(self.items):
            if on is not None:
                text += f" LEFT JOIN {table} ON {on}"
            else:
                text += (", " if i else "") + table
        return text

    def where_sql(self) -> str:
        return " WHERE " + " AND ".join(f"({w})" for w in self.wheres) if self.wheres else ""


class Language(Protocol):
    """The compiler as each of its parts sees the whole: any expression (sized as it is built), and
    the expressions that other parts compile (function calls, pattern subqueries)."""

    def expr(self, e: s.Expr, part: Part) -> V: ...

    def call(self, e: s.Call, part: Part) -> V: ...

    def subquery(self, e: s.Subquery, part: Part) -> V: ...

    def pattern_comprehension(self, e: s.PatternComp, part: Part) -> V: ...


def contains_aggregate(expr: Any) -> bool:
    if isinstance(expr, s.Call) and expr.name in AGGREGATES:
        return True
    if isinstance(expr, (s.ListComp, s.PatternComp, s.Subquery)):
        return False  # their aggregates (if any) are their own
    return any(contains_aggregate(child) for child in children(expr))


def children(expr: Any) -> list[Any]:
    if isinstance(expr, tuple):
        return [c for item in expr for c in (children(item) if isinstance(item, tuple) else [item])]
    if not hasattr(expr, "__dataclass_fields__"):
        return []
    found = []
    for name in expr.__dataclass_fields__:
        value = getattr(expr, name)
        if isinstance(value, tuple):
            found.extend(children(value))
        elif hasattr(value, "__dataclass_fields__"):
            found.append(value)
    return found


def refers_to_variables(expr: Any) -> bool:
    if isinstance(expr, s.Var):
        return True

    return any(refers_to_variables(child) for child in children(expr))


def json_key(key: str) -> str:
    return '$."' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'


def json_type(value: Any) -> T:
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        return INT
    if isinstance(value, float):
        return FLOAT
    if isinstance(value, str):
        return STR
    if value is None:
        return NULL
    if isinstance(value, list):
        return list_of(unify([json_type(v) for v in value]) if value else ANY)
    if isinstance(value, dict):
        if any(str(k).startswith("~") for k in value):
            raise NotInSubset("parameter map keys starting with '~'")
        return T("map", fields=tuple((str(k), json_type(v)) for k, v in value.items()))
    raise CypherSyntaxError(f"unsupported parameter value {type(value).__name__}")


def boolean(v: V, where: str) -> V:
    """Neo4j fails a query whose predicate is not a boolean (`NOT 'x'`, `WHERE n.name`)."""
    if v.type.kind not in ("bool", "null", "any"):
        raise CypherSyntaxError(f"{where} needs a boolean, not a {v.type}")
    return v


def numeric(v: V, op: str) -> None:
    if v.type.kind not in NUMBERS | {"null", "any"}:
        raise NotInSubset(f"{op} on a {v.type}")


def expect(v: V, kind: str, name: str) -> None:
    if v.type.kind not in (kind, "null"):
        raise NotInSubset(f"{name}() of a {v.type}")


def comparable(a: T, b: T) -> bool:
    """Values of these types can be equal (else `=` is false and `<>` true, unless one is null)."""
    if "null" in (a.kind, b.kind) or "any" in (a.kind, b.kind) or "mixed" in (a.kind, b.kind):
        return True
    if a.kind in NUMBERS and b.kind in NUMBERS:
        return True
    return a.kind == b.kind


def orderable(a: T, b: T) -> bool:
    if "null" in (a.kind, b.kind) or "any" in (a.kind, b.kind):
        return True
    if a.kind in NUMBERS and b.kind in NUMBERS:
        return True
    return a.kind == b.kind and a.kind in ("str", "bool")
