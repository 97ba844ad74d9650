"""The read-only Cypher subset compiled to one SQLite SELECT over the graph store's tables.

Tenancy by construction: every `nodes` row the statement reads is filtered on `project IN
(:scope)` where it enters the query (a pattern's node, each step of a variable-length walk), and
edges are reached only from such rows. Nothing else reads the tables.

Each part of the query between two WITHs is one SELECT (`Part`): MATCH adds its tables and
conditions to the part's FROM and WHERE (OPTIONAL MATCH as one LEFT JOIN group), WITH closes the
part into a subquery the next part reads from, RETURN closes the last. Variable-length
relationships and shortest paths are recursive CTEs. Value forms: types.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from rhumbline.cypher import syntax as s
from rhumbline.cypher.parser import GENERATED, PROCEDURES, CypherSyntaxError, NotInSubset
from rhumbline.cypher.sqlite.calls import Calls
from rhumbline.cypher.sqlite.expressions import Expressions
from rhumbline.cypher.sqlite.patterns import Patterns
from rhumbline.cypher.sqlite.statement import Statement
from rhumbline.cypher.sqlite.values import (
    Part,
    V,
    boolean,
    contains_aggregate,
)
from rhumbline.cypher.sqlite.types import (
    ANY,
    STR,
    T,
    from_container,
)
from rhumbline.errors import QueryTooLarge

# An expression's SQL, in characters: each compiled piece is checked as it is built, so a text
# that multiplies with nesting (a CASE's subject, repeated per WHEN) stops here.
MAX_EXPRESSION_CHARS = 200_000
# SQLite's flattener substitutes a subquery's column by its expression wherever it is used: a chain
# of WITHs each using the previous value several times would be compiled into a program, and run,
# exponential in the chain's length (before the deadline can interrupt anything). A WITH whose
# computed column is used more than once is kept whole (OFFSET 0): computed once a row.
# A value a WITH computes may hold at most this many copies of earlier computed values: a chain of
# WITHs each using the previous value twice grows it exponentially in the chain's length, and on
# Neo4j values built in expressions escape db.memory.transaction.max (its heap runs out).
MAX_COPIES = 1_000
_COLUMN = re.compile(r"\bw\d+\.c\d+\b")
_PLAIN = re.compile(r"\w+\.\w+|:\w+|NULL|-?\d+(\.\d+)?")
_BARRIER = "/*barrier {}*/"




@dataclass(frozen=True)
class Compiled:
    sql: str
    params: dict[str, Any]
    columns: list[str]
    types: list[T]


class Compiler:
    """The query and its clauses; expressions, function calls and patterns are compiled by the
    parts it is made of, each of which reaches the others through it (values.Language)."""

    def __init__(self, params: dict[str, Any]) -> None:
        self.statement = Statement(params)
        self.expressions = Expressions(self.statement, self)
        self.calls = Calls(self.expressions, self)
        self.patterns = Patterns(self.statement, self.expressions, self)
        # A WITH's alias -> its computed columns (`w3.c0`), and the clause that keeps it whole.
        self.computed: dict[str, tuple[list[str], str]] = {}
        self.copies: dict[str, int] = {}  # a WITH column -> copies of earlier computed values it holds

    def expr(self, e: s.Expr, part: Part) -> V:
        value = self.expressions.expr(e, part)
        if len(value.sql) > MAX_EXPRESSION_CHARS:
            raise QueryTooLarge(
                f"the query compiles to an expression of over {MAX_EXPRESSION_CHARS:,} characters of SQL "
                "(an expression nested in itself many times)",
                details={"limit": "expression_chars", "expression_chars": MAX_EXPRESSION_CHARS},
            )
        return value

    def call(self, e: s.Call, part: Part) -> V:
        return self.calls.call(e, part)

    def subquery(self, e: s.Subquery, part: Part) -> V:
        return self.patterns.subquery(e, part)

    def pattern_comprehension(self, e: s.PatternComp, part: Part) -> V:
        return self.patterns.pattern_comprehension(e, part)

    def copies_in(self, sql: str) -> int:
        copies = sum(self.copies.get(column, 1) for column in _COLUMN.findall(sql)) or 1
        if copies > MAX_COPIES:
            raise QueryTooLarge(
                f"a value of the query would hold {copies:,} copies of an earlier one (a chain of WITHs "
                f"using the previous value several times), over the limit of {MAX_COPIES:,}",
                details={"limit": "copies", "copies": MAX_COPIES},
            )
        return copies

    def barriers(self, sql: str) -> str:
        """Each WITH's subquery kept whole where one of its computed columns is used twice."""
        for alias, (columns, clause) in self.computed.items():
            used_twice = any(len(re.findall(rf"\b{re.escape(c)}\b", sql)) > 1 for c in columns)
            sql = sql.replace(_BARRIER.format(alias), clause if used_twice else "")
        return sql

    # -- the query -----------------------------------------------------------------------------

    def compile(self, query: s.Query) -> Compiled:
        sql, columns, types = self.single(query)
        if query.unions:
            # Each part's ORDER BY, SKIP and LIMIT apply to that part, as on Neo4j: a part is a
            # subquery (SQLite would read them as the compound's).
            sql = f"SELECT * FROM ({sql})"
        for union_all, other in query.unions:
            other_sql, other_columns, other_types = self.single(other)
            if [t.kind for t in other_types] != [t.kind for t in types]:
                raise NotInSubset("UNION of columns of different types")
            sql = f"{sql} UNION{' ALL' if union_all else ''} SELECT * FROM ({other_sql})"
        if query.unions:
            sql = f"SELECT * FROM ({sql})"
        if self.statement.ctes:
            sql = "WITH RECURSIVE " + ", ".join(self.statement.ctes) + " " + sql
        return Compiled(self.barriers(sql), self.statement.sql_params, columns, types)

    def single(self, query: s.Query) -> tuple[str, list[str], list[T]]:
        part = Part()
        for clause in query.clauses:
            if isinstance(clause, s.Match):
                self.patterns.match(part, clause)
            elif isinstance(clause, s.Unwind):
                self.unwind(part, clause)
            elif isinstance(clause, s.Procedure):
                part = self.procedure(part, clause, lone=len(query.clauses) == 1)
                if len(query.clauses) == 1:
                    column = clause.yields[0][1] if clause.yields else PROCEDURES[clause.name.lower()]
                    value = part.env[column]
                    return f"SELECT {value.sql} AS c0 FROM {part.from_sql()}{part.where_sql()}", [column], [STR]
            elif clause.final:
                return self.select(part, clause)
            else:
                part = self.with_(part, clause)
        raise CypherSyntaxError("a query must end with RETURN")

    # -- projections ---------------------------------------------------------------------------

    def items_of(self, part: Part, projection: s.Projection) -> list[s.Item]:
        items = list(projection.items)
        if projection.star:
            visible = sorted(n for n in part.env if not n.startswith(GENERATED))
            if not visible:
                raise CypherSyntaxError("RETURN * / WITH * with no variables in scope")
            items = [s.Item(s.Var(n), n, True) for n in visible] + items
        return items

    def projection_sql(self, part: Part, projection: s.Projection) -> tuple[str, list[s.Item], list[V], str]:
        """The SELECT, its items and values, and the clause that would keep it whole as a subquery."""
        items = self.items_of(part, projection)
        values = [self.expr(item.expr, part) for item in items]
        aggregating = any(contains_aggregate(item.expr) for item in items)
        terms = self.order_terms(part, projection, items, values, aggregating)
        select = ", ".join(f"{v.sql} AS c{i}" for i, v in enumerate(values))
        sql = f"SELECT {'DISTINCT ' if projection.distinct else ''}{select} FROM {part.from_sql()}{part.where_sql()}"
        if aggregating:
            keys = [v.sql for item, v in zip(items, values) if not contains_aggregate(item.expr)]
            if keys:
                sql += " GROUP BY " + ", ".join(keys)
        if terms:
            sql += " ORDER BY " + ", ".join(terms)
        if projection.limit is not None or projection.skip is not None:
            limit = self.count_of(projection.limit, "LIMIT") if projection.limit is not None else "-1"
            sql += f" LIMIT {limit}"
            if projection.skip is not None:
                sql += f" OFFSET {self.count_of(projection.skip, 'SKIP')}"
            whole = "" if projection.skip is not None else " OFFSET 0"
        elif terms and not projection.final:
            sql += " LIMIT 9223372036854775807"  # keeps the subquery's order for what follows
            whole = " OFFSET 0"
        else:
            whole = " LIMIT -1 OFFSET 0"
        return sql, items, values, whole

    def order_terms(
        self, part: Part, projection: s.Projection, items: list[s.Item], values: list[V], aggregating: bool
    ) -> list[str]:
        """ORDER BY sees the projected names first, then (without aggregation or DISTINCT) the
        variables before them."""
        if not projection.order:
            return []
        scope = Part(part.env if not (aggregating or projection.distinct) else {})
        for item, value in zip(items, values):
            scope.bind(item.name, value)
        terms = []
        for order in projection.order:
            value = self.expr(order.expr, scope)
            if value.type.kind not in ("int", "float", "num", "str", "bool", "null", "any"):
                raise NotInSubset(f"ORDER BY a {value.type} (order by one of its properties)")
            terms.append(f"{value.sql} {'DESC NULLS FIRST' if order.descending else 'ASC NULLS LAST'}")
        return terms

    def count_of(self, expr: s.Expr, clause: str) -> str:
        value = self.expr(expr, Part())
        if value.type.kind != "int":
            raise CypherSyntaxError(f"{clause} takes a non-negative integer")
        literal = self.statement.params.get(expr.name) if isinstance(expr, s.Param) else getattr(expr, "value", None)
        if isinstance(literal, int) and literal < 0:
            raise CypherSyntaxError(f"{clause} takes a non-negative integer, not {literal}")
        return value.sql

    def select(self, part: Part, projection: s.Projection) -> tuple[str, list[str], list[T]]:
        sql, items, values, _ = self.projection_sql(part, projection)
        for value in values:
            self.copies_in(value.sql)
            if value.type.kind == "mixed":
                raise NotInSubset("a column of values of different types")
        return sql, [item.name for item in items], [v.type for v in values]

    def with_(self, part: Part, projection: s.Projection) -> Part:
        sql, items, values, whole = self.projection_sql(part, projection)
        alias = self.statement.fresh("w")
        following = Part()
        following.add(f"({sql}{_BARRIER.format(alias)})", alias)
        for i, (item, value) in enumerate(zip(items, values)):
            following.bind(item.name, V(f"{alias}.c{i}", value.type, owner=following))
        computed = [f"{alias}.c{i}" for i, value in enumerate(values) if not _PLAIN.fullmatch(value.sql)]
        self.computed[alias] = (computed, whole)
        for i, value in enumerate(values):
            self.copies[f"{alias}.c{i}"] = self.copies_in(value.sql)
        if projection.where is not None:
            following.wheres.append(boolean(self.expr(projection.where, following), "WHERE").sql)
        return following

    def unwind(self, part: Part, clause: s.Unwind) -> None:
        source = self.expr(clause.expr, part)
        if source.type.kind == "null":
            part.wheres.append("0")
            part.bind(clause.var, V("NULL", source.type))
            return
        if source.type.kind != "list":
            raise NotInSubset(f"UNWIND of a {source.type}")
        alias = self.statement.fresh("u")
        part.add(f"json_each({source.sql})", alias)

        elem = source.type.elem or ANY
        if elem.kind in ("list", "map", "mixed"):
            elem = T(elem.kind) if elem.kind != "mixed" else ANY
        part.bind(clause.var, V(from_container(f"{alias}.value", elem), elem, owner=part))

    def procedure(self, part: Part, clause: s.Procedure, *, lone: bool) -> Part:
        from rhumbline.cypher.procedures import SQL

        alias = self.statement.fresh("proc")
        part.add(f"({SQL[clause.name]})", alias)
        column = PROCEDURES[clause.name.lower()]
        for _, name in clause.yields or ((column, column),):
            part.bind(name, V(f"{alias}.value", STR, owner=part))
        if clause.where is not None:
            part.wheres.append(boolean(self.expr(clause.where, part), "WHERE").sql)
        return part


def compile_query(query: s.Query, params: dict[str, Any]) -> Compiled:
    return Compiler(params).compile(query)
