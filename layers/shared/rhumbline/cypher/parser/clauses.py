"""Queries and clauses of the Cypher subset: MATCH, WITH, UNWIND, RETURN, CALL of a known procedure,
UNION; every other clause is refused by name."""

from __future__ import annotations

from rhumbline.cypher import syntax as s
from rhumbline.cypher.parser.patterns import PatternParser
from rhumbline.cypher.parser.stream import PROCEDURE_NAMES, PROCEDURES, CypherSyntaxError, NotInSubset


def parse(text: str) -> s.Query:
    return ClauseParser(text).query()


class ClauseParser(PatternParser):
    def query(self) -> s.Query:
        if not self.tokens:
            raise CypherSyntaxError("the query is empty")
        first = self.single()
        unions: list[tuple[bool, s.Query]] = []
        while self.accept("UNION"):
            unions.append((self.accept("ALL"), self.single()))
        if self.peek() is not None:
            self._refuse_clause()
            self.fail("unexpected text")
        query = s.Query(first.clauses, tuple(unions))
        columns = _columns(first)
        for _, other in unions:
            if _columns(other) != columns:
                raise CypherSyntaxError("all queries in a UNION must return the same column names")
        return query

    def single(self) -> s.Query:
        clauses: list[s.Clause] = []
        while self.peek() is not None and not self.at("UNION"):
            clause = self.clause()
            clauses.append(clause)
            if isinstance(clause, s.Projection) and clause.final:
                break
        if not clauses:
            self.fail("expected a clause")
        last = clauses[-1]
        if not (isinstance(last, s.Projection) and last.final) and not (
            isinstance(last, s.Procedure) and len(clauses) == 1
        ):
            raise CypherSyntaxError("a query must end with RETURN (or be a lone CALL of a procedure)")
        return s.Query(tuple(clauses))

    def clause(self) -> s.Clause:
        if self.accept("OPTIONAL", "MATCH"):
            return self.match(optional=True)
        if self.accept("MATCH"):
            return self.match(optional=False)
        if self.accept("UNWIND"):
            expr = self.expr()
            self.expect("AS")
            return s.Unwind(expr, self.variable())
        if self.accept("WITH"):
            return self.projection(final=False)
        if self.accept("RETURN"):
            return self.projection(final=True)
        if self.accept("CALL"):
            return self.procedure()
        self._refuse_clause()
        self.fail("expected MATCH, OPTIONAL MATCH, WITH, UNWIND, CALL or RETURN")
        raise AssertionError

    def _refuse_clause(self) -> None:
        word = self.keyword()
        named = {
            "FOREACH": "FOREACH", "LOAD": "LOAD CSV", "USE": "USE", "SHOW": "SHOW", "FINISH": "FINISH",
            "FILTER": "FILTER", "LET": "LET", "ORDER": "ORDER BY outside WITH/RETURN", "WHERE": "a misplaced WHERE",
            "CREATE": "CREATE", "MERGE": "MERGE", "SET": "SET", "DELETE": "DELETE", "DETACH": "DETACH DELETE",
            "REMOVE": "REMOVE", "INSERT": "INSERT", "NEXT": "NEXT", "FOR": "FOR", "TERMINATE": "TERMINATE",
        }  # fmt: skip
        if word in named:
            raise NotInSubset(f"the {named[word]} clause")

    def match(self, *, optional: bool) -> s.Match:
        patterns = [self.path_pattern(top=True)]
        while self.accept_symbol(","):
            patterns.append(self.path_pattern(top=True))
        if self.at("USING"):
            raise NotInSubset("USING hints")
        where = self.expr() if self.accept("WHERE") else None
        return s.Match(optional, tuple(patterns), where)

    def projection(self, *, final: bool) -> s.Projection:
        distinct = self.accept("DISTINCT")
        star = self.accept_symbol("*")
        items: list[s.Item] = []
        if not star or self.accept_symbol(","):
            items.append(self.item(final))
            while self.accept_symbol(","):
                items.append(self.item(final))
        names = [item.name for item in items]
        duplicate = next((n for n in names if names.count(n) > 1), None)
        if duplicate is not None:
            raise CypherSyntaxError(f"the column name '{duplicate}' is used twice: give one an alias (AS)")
        order: list[s.Order] = []
        if self.accept("ORDER", "BY"):
            while True:
                expr = self.expr()
                descending = False
                if self.accept("DESC") or self.accept("DESCENDING"):
                    descending = True
                else:
                    self.accept("ASC") or self.accept("ASCENDING")
                order.append(s.Order(expr, descending))
                if not self.accept_symbol(","):
                    break
        skip = self.expr() if (self.accept("SKIP") or self.accept("OFFSET")) else None
        limit = self.expr() if self.accept("LIMIT") else None
        where = None
        if not final and self.accept("WHERE"):
            where = self.expr()
        return s.Projection(final, tuple(items), star, distinct, tuple(order), skip, limit, where)

    def item(self, final: bool) -> s.Item:
        start = self.peek()
        expr = self.expr()
        assert start is not None  # an expression was read from it
        end = self.tokens[self.i - 1]
        if self.accept("AS"):
            return s.Item(expr, self.alias(), True)
        if not final and not isinstance(expr, s.Var):
            raise CypherSyntaxError(f"expression in WITH must be aliased (use AS) at offset {start.offset}")
        return s.Item(expr, self.text[start.offset : end.end], False)

    def procedure(self) -> s.Procedure:
        if self.symbol("{") or self.symbol("("):
            raise NotInSubset("a CALL { ... } subquery")
        parts = [self.name()]
        while self.accept_symbol("."):
            parts.append(self.name())
        name = ".".join(parts)
        key = name.lower()
        if key not in PROCEDURES:
            raise NotInSubset(f"the procedure '{name}' (the subset answers db.labels, db.relationshipTypes, db.propertyKeys)")
        if self.accept_symbol("("):
            self.expect_symbol(")")
        yields: list[tuple[str, str]] | None = None
        where = None
        if self.accept("YIELD"):
            if self.symbol("*"):
                raise NotInSubset("YIELD *")
            yields = []
            while True:
                column = self.name()
                if column != PROCEDURES[key]:
                    raise CypherSyntaxError(f"{PROCEDURE_NAMES[key]} yields '{PROCEDURES[key]}', not '{column}'")
                yields.append((column, self.alias() if self.accept("AS") else column))
                if not self.accept_symbol(","):
                    break
            if self.accept("WHERE"):
                where = self.expr()
        return s.Procedure(PROCEDURE_NAMES[key], tuple(yields) if yields is not None else None, where)


def _columns(query: s.Query) -> tuple[str, ...] | None:
    last = query.clauses[-1]
    if isinstance(last, s.Projection):
        return None if last.star else tuple(item.name for item in last.items)
    return None
