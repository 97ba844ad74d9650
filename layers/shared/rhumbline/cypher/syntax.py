"""The parsed form of a query in the read-only Cypher subset (parser/ builds it; neo4j/scoping.py
re-emits it as Cypher for Neo4j, sqlite/compiler.py compiles it to SQL for the embedded store).

Only what the subset accepts has a class here: a construct outside it is refused by the parser,
so every consumer handles every node type below and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# -- expressions --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Lit:
    value: None | bool | int | float | str


@dataclass(frozen=True)
class Param:
    name: str


@dataclass(frozen=True)
class Var:
    name: str


@dataclass(frozen=True)
class Prop:
    subject: Expr
    key: str


@dataclass(frozen=True)
class Index:
    """`list[i]` or `map[key]` (also a node's `n['name']`)."""

    subject: Expr
    index: Expr


@dataclass(frozen=True)
class Slice:
    subject: Expr
    start: Expr | None
    end: Expr | None


@dataclass(frozen=True)
class ListExpr:
    items: tuple[Expr, ...]


@dataclass(frozen=True)
class MapExpr:
    items: tuple[tuple[str, Expr], ...]


@dataclass(frozen=True)
class Op:
    """An operator: 'or', 'xor', 'and', 'not', 'neg', '=', '<>', '<', '<=', '>', '>=', '+', '-',
    '*', '/', '%', '^', 'in', 'starts', 'ends', 'contains', 'regex', 'is_null', 'is_not_null'."""

    op: str
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class HasLabels:
    """`n:Label` (or `n:A:B`) used as a predicate."""

    subject: Expr
    labels: tuple[str, ...]


@dataclass(frozen=True)
class Call:
    """A function call; `count(*)` has `star`. Names are lower-cased (Cypher's are case-insensitive)."""

    name: str
    args: tuple[Expr, ...]
    distinct: bool = False
    star: bool = False


@dataclass(frozen=True)
class Case:
    subject: Expr | None  # CASE x WHEN v THEN ... (simple form) or None (generic form)
    whens: tuple[tuple[Expr, Expr], ...]
    default: Expr | None


@dataclass(frozen=True)
class ListComp:
    """`[x IN list WHERE cond | expr]`; also any/all/none/single(x IN list WHERE cond) as `quantifier`."""

    var: str
    source: Expr
    where: Expr | None
    projection: Expr | None
    quantifier: str | None = None


@dataclass(frozen=True)
class PatternComp:
    """`[(a)-->(b) WHERE cond | expr]`."""

    pattern: PathPattern
    where: Expr | None
    projection: Expr


@dataclass(frozen=True)
class MapProj:
    """`n {.name, .*, key: expr, other}`: items are ('prop', key), ('all',), ('var', name) or
    ('entry', key, expr)."""

    subject: Var
    items: tuple[tuple[Any, ...], ...]


@dataclass(frozen=True)
class Subquery:
    """`EXISTS { pattern [WHERE ...] }`, `COUNT { ... }`, or a bare pattern used as a predicate."""

    kind: str  # "exists" or "count"
    patterns: tuple[PathPattern, ...]
    where: Expr | None


Expr = (
    Lit | Param | Var | Prop | Index | Slice | ListExpr | MapExpr | Op | HasLabels | Call | Case | ListComp
    | PatternComp | MapProj | Subquery
)

# -- patterns -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class NodePattern:
    var: str | None
    labels: tuple[str, ...] = ()
    properties: MapExpr | None = None


@dataclass(frozen=True)
class RelPattern:
    var: str | None
    types: tuple[str, ...] = ()
    direction: str = "out"  # "out" (-->), "in" (<--) or "both" (--)
    properties: MapExpr | None = None
    # Variable length: `*` gives (1, None); `*2` (2, 2); `*..3` (1, 3); None when fixed.
    hops: tuple[int, int | None] | None = None


@dataclass(frozen=True)
class PathPattern:
    var: str | None
    nodes: tuple[NodePattern, ...]
    rels: tuple[RelPattern, ...]
    shortest: str | None = None  # "shortest" or "all" (allShortestPaths)


# -- clauses ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    """A projection item: its expression and its column name (the alias, or the text as written)."""

    expr: Expr
    name: str
    aliased: bool


@dataclass(frozen=True)
class Order:
    expr: Expr
    descending: bool


@dataclass(frozen=True)
class Match:
    optional: bool
    patterns: tuple[PathPattern, ...]
    where: Expr | None


@dataclass(frozen=True)
class Unwind:
    expr: Expr
    var: str


@dataclass(frozen=True)
class Projection:
    """WITH (`final` False) or RETURN (`final` True)."""

    final: bool
    items: tuple[Item, ...]
    star: bool = False
    distinct: bool = False
    order: tuple[Order, ...] = ()
    skip: Expr | None = None
    limit: Expr | None = None
    where: Expr | None = None  # WITH ... WHERE


@dataclass(frozen=True)
class Procedure:
    """`CALL db.labels() [YIELD x [AS y], ... [WHERE ...]]`; `yields` None when there is no YIELD."""

    name: str
    yields: tuple[tuple[str, str], ...] | None
    where: Expr | None


Clause = Match | Unwind | Projection | Procedure


@dataclass(frozen=True)
class Query:
    clauses: tuple[Clause, ...]
    # Further queries joined by UNION (all=False) or UNION ALL (all=True).
    unions: tuple[tuple[bool, Query], ...] = field(default=())

