"""A recursive-descent parser for the read-only Cypher subset (syntax.py), over guard.py's tokens.

It accepts what both backends can answer identically and refuses everything else by name
(`NotInSubset`) before anything runs: a construct is either parsed into syntax.py's classes or
refused here, never passed through. docs/query.md lists the subset and why the parser is our own.
"""

from __future__ import annotations

import re

from rhumbline.cypher import syntax as s
from rhumbline.cypher.guard import CypherRejected, Token, tokenize

# Procedures the subset answers itself on both backends, and the column each yields.
PROCEDURES = {
    "db.labels": "label",
    "db.relationshiptypes": "relationshipType",
    "db.propertykeys": "propertyKey",
}
PROCEDURE_NAMES = {"db.labels": "db.labels", "db.relationshiptypes": "db.relationshipTypes",
                   "db.propertykeys": "db.propertyKeys"}  # fmt: skip
MAX_INTEGER = 2**63 - 1
MAX_HOPS = 10  # the longest variable-length relationship the subset expands
GENERATED = "rhumbline_"  # prefix of the variables the server adds to a query
_CLAUSE_STARTS = {"MATCH", "OPTIONAL", "WITH", "RETURN", "UNWIND", "CALL", "UNION"}
_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_QUANTIFIERS = ("any", "all", "none", "single")
# Functions the subset knows (compiled by sql_expr.py, written as they are for Neo4j).
FUNCTIONS = frozenset({
    "count", "collect", "min", "max", "avg", "sum", "id", "elementid", "labels", "type", "startnode", "endnode",
    "properties", "keys", "size", "length", "nodes", "relationships", "coalesce", "tolower", "toupper", "trim",
    "ltrim", "rtrim", "tostring", "tointeger", "tofloat", "substring", "left", "right", "replace", "split",
    "reverse", "abs", "ceil", "floor", "round", "sign", "sqrt", "head", "last", "tail", "range", "isempty",
})  # fmt: skip
_COMPARISONS = ("=", "<>", "<", "<=", ">", ">=")


class CypherSyntaxError(CypherRejected):
    """The text is not valid Cypher (as far as the subset reads it)."""


class NotInSubset(CypherRejected):
    """Valid Cypher, outside the subset; `construct` names what was refused."""

    def __init__(self, construct: str) -> None:
        super().__init__(f"{construct} is not in the read-only Cypher subset `query` runs here")
        self.construct = construct


def parse(text: str) -> s.Query:
    return _Parser(text).query()


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[Token] = tokenize(text)
        if self.tokens and self.tokens[-1].kind == "symbol" and self.tokens[-1].text == ";":
            self.tokens.pop()
        self.i = 0
        self.anonymous = 0

    # -- token helpers ---------------------------------------------------------------------------

    def peek(self, ahead: int = 0) -> Token | None:
        at = self.i + ahead
        return self.tokens[at] if at < len(self.tokens) else None

    def keyword(self, ahead: int = 0) -> str:
        token = self.peek(ahead)
        return token.text.upper() if token is not None and token.kind == "word" else ""

    def at(self, *words: str) -> bool:
        return all(self.keyword(k) == w for k, w in enumerate(words))

    def accept(self, *words: str) -> bool:
        if self.at(*words):
            self.i += len(words)
            return True
        return False

    def expect(self, *words: str) -> None:
        if not self.accept(*words):
            self.fail(f"expected {' '.join(words)}")

    def symbol(self, chars: str, ahead: int = 0) -> bool:
        """The next tokens spell `chars` with nothing between them (`<>`, `..`, `->`)."""
        previous = None
        for k, char in enumerate(chars):
            token = self.peek(ahead + k)
            if token is None or token.kind != "symbol" or token.text != char:
                return False
            if previous is not None and previous.end != token.offset:
                return False
            previous = token
        return True

    def accept_symbol(self, chars: str) -> bool:
        if self.symbol(chars):
            self.i += len(chars)
            return True
        return False

    def expect_symbol(self, chars: str) -> None:
        if not self.accept_symbol(chars):
            self.fail(f"expected '{chars}'")

    def fail(self, message: str) -> None:
        token = self.peek()
        where = f"at offset {token.offset} ('{token.text}')" if token else "at the end of the query"
        raise CypherSyntaxError(f"{message} {where}")

    def name(self) -> str:
        """An identifier: a word or a `backtick quoted` name."""
        token = self.peek()
        if token is None or token.kind not in ("word", "quoted"):
            self.fail("expected a name")
        assert token is not None
        self.i += 1
        return token.text

    def alias(self) -> str:
        """A name given with AS: any identifier, keywords included."""
        found = self.name()
        if found.lower().startswith(GENERATED):
            raise NotInSubset(f"variable names starting with '{GENERATED}' (the server names its own so)")
        return found

    def variable(self) -> str:
        token = self.peek()
        if token is not None and token.kind == "word" and token.text.upper() in _CLAUSE_STARTS | {"WHERE"}:
            self.fail("expected a variable")
        found = self.name()
        if found.lower().startswith(GENERATED):
            raise NotInSubset(f"variable names starting with '{GENERATED}' (the server names its own so)")
        return found

    # -- queries and clauses ---------------------------------------------------------------------

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
        end = self.tokens[self.i - 1]
        if self.accept("AS"):
            return s.Item(expr, self.alias(), True)
        if not final and not isinstance(expr, s.Var):
            raise CypherSyntaxError(f"expression in WITH must be aliased (use AS) at offset {start.offset}")  # type: ignore[union-attr]
        return s.Item(expr, self.text[start.offset : end.end], False)  # type: ignore[union-attr]

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

    # -- patterns --------------------------------------------------------------------------------

    def path_pattern(self, *, top: bool) -> s.PathPattern:
        var = None
        if top and self.peek(1) is not None and self.symbol("=", 1) and not self.symbol("=~", 1):
            var = self.variable()
            self.expect_symbol("=")
        shortest = None
        word = self.keyword()
        if word in ("SHORTESTPATH", "ALLSHORTESTPATHS") and self.symbol("(", 1):
            if not top:
                raise NotInSubset(f"{self.peek().text} outside MATCH")  # type: ignore[union-attr]
            self.i += 2
            shortest = "shortest" if word == "SHORTESTPATH" else "all"
        elif word in ("SHORTEST", "ANY", "ALL") and top:
            raise NotInSubset(f"{word} path selectors")
        nodes = [self.node_pattern()]
        rels: list[s.RelPattern] = []
        while self.symbol("-") or self.symbol("<"):
            rels.append(self.rel_pattern())
            nodes.append(self.node_pattern())
        if shortest is not None:
            self.expect_symbol(")")
            if len(rels) != 1 or rels[0].hops is None:
                raise CypherSyntaxError(f"{'shortestPath' if shortest == 'shortest' else 'allShortestPaths'} needs one variable-length relationship")
        return s.PathPattern(var, tuple(nodes), tuple(rels), shortest)

    def node_pattern(self) -> s.NodePattern:
        if not self.symbol("("):
            self.fail("expected '(' of a node pattern")
        self.i += 1
        if self.symbol("("):
            raise NotInSubset("quantified path patterns")
        var = None
        token = self.peek()
        if token is not None and token.kind in ("word", "quoted") and not self.symbol(":"):
            var = self.variable()
        labels = self.labels()
        properties = self.pattern_properties()
        if self.at("WHERE"):
            raise NotInSubset("WHERE inside a node pattern")
        self.expect_symbol(")")
        if self.symbol("{") or self.symbol("*") or self.symbol("+"):
            raise NotInSubset("quantified path patterns")
        return s.NodePattern(var, labels, properties)

    def labels(self) -> tuple[str, ...]:
        labels: list[str] = []
        while self.accept_symbol(":"):
            if self.symbol("!") or self.symbol("%") or self.symbol("("):
                raise NotInSubset("label expressions (!, %, grouping)")
            labels.append(self.name())
            if self.symbol("|") or self.symbol("&"):
                raise NotInSubset("label expressions (|, &)")
        return tuple(labels)

    def pattern_properties(self) -> s.MapExpr | None:
        if self.symbol("{"):
            return self.map_literal()
        token = self.peek()
        if token is not None and token.kind == "param":
            raise NotInSubset("a parameter map as pattern properties (Neo4j 5 refuses it in MATCH: write {key: $map.key})")
        return None

    def rel_pattern(self) -> s.RelPattern:
        incoming = self.accept_symbol("<")
        self.expect_symbol("-")
        var, types, properties, hops = None, [], None, None
        if self.accept_symbol("["):
            token = self.peek()
            if token is not None and token.kind in ("word", "quoted"):
                var = self.variable()
            if self.accept_symbol(":"):
                if self.symbol("!") or self.symbol("%") or self.symbol("("):
                    raise NotInSubset("relationship type expressions (!, %, grouping)")
                types.append(self.name())
                while self.accept_symbol("|"):
                    self.accept_symbol(":")
                    types.append(self.name())
                if self.symbol("&"):
                    raise NotInSubset("relationship type expressions (&)")
            if self.accept_symbol("*"):
                hops = self.hops()
            properties = self.pattern_properties()
            if self.at("WHERE"):
                raise NotInSubset("WHERE inside a relationship pattern")
            self.expect_symbol("]")
        self.expect_symbol("-")
        outgoing = self.accept_symbol(">")
        if incoming and outgoing:
            raise NotInSubset("relationships pointing both ways (<-->)")
        direction = "in" if incoming else "out" if outgoing else "both"
        if hops is not None and var is not None:
            pass  # a list of relationships; sql.py and scoping.py handle it
        return s.RelPattern(var, tuple(types), direction, properties, hops)

    def hops(self) -> tuple[int, int | None]:
        low = self.integer() if self.peek() is not None and self.peek().kind == "number" else None  # type: ignore[union-attr]
        if self.accept_symbol(".."):
            high = self.integer() if self.peek() is not None and self.peek().kind == "number" else None  # type: ignore[union-attr]
            return (1 if low is None else low, high)
        if low is None:
            return (1, None)
        return (low, low)

    def integer(self) -> int:
        token = self.peek()
        assert token is not None
        value = _number(token.text)
        if not isinstance(value, int) or value < 0:
            self.fail("expected a non-negative integer")
        self.i += 1
        return value  # type: ignore[return-value]

    # -- expressions -----------------------------------------------------------------------------

    def expr(self) -> s.Expr:
        return self.or_expr()

    def or_expr(self) -> s.Expr:
        left = self.xor_expr()
        while self.accept("OR"):
            left = s.Op("or", (left, self.xor_expr()))
        return left

    def xor_expr(self) -> s.Expr:
        left = self.and_expr()
        while self.accept("XOR"):
            left = s.Op("xor", (left, self.and_expr()))
        return left

    def and_expr(self) -> s.Expr:
        left = self.not_expr()
        while self.accept("AND"):
            left = s.Op("and", (left, self.not_expr()))
        return left

    def not_expr(self) -> s.Expr:
        if self.accept("NOT"):
            return s.Op("not", (self.not_expr(),))
        return self.comparison()

    def comparison(self) -> s.Expr:
        left = self.predicate()
        parts: list[s.Expr] = []
        while True:
            op = next((o for o in ("<>", "<=", ">=", "=", "<", ">") if self.symbol(o) and not self.symbol("=~")), None)
            if op is None:
                break
            self.i += len(op)
            right = self.predicate()
            parts.append(s.Op(op, (left, right)))
            left = right
        if not parts:
            return left
        # a < b < c means a < b AND b < c
        combined = parts[0]
        for part in parts[1:]:
            combined = s.Op("and", (combined, part))
        return combined

    def predicate(self) -> s.Expr:
        left = self.additive()
        while True:
            if self.accept_symbol("=~"):
                left = s.Op("regex", (left, self.additive()))
            elif self.accept("IN"):
                left = s.Op("in", (left, self.additive()))
            elif self.accept("STARTS", "WITH"):
                left = s.Op("starts", (left, self.additive()))
            elif self.accept("ENDS", "WITH"):
                left = s.Op("ends", (left, self.additive()))
            elif self.accept("CONTAINS"):
                left = s.Op("contains", (left, self.additive()))
            elif self.accept("IS", "NOT", "NULL"):
                left = s.Op("is_not_null", (left,))
            elif self.accept("IS", "NULL"):
                left = s.Op("is_null", (left,))
            elif self.at("IS"):
                raise NotInSubset("IS [NOT] <type> / IS NORMALIZED predicates")
            else:
                return left

    def additive(self) -> s.Expr:
        left = self.multiplicative()
        while True:
            if self.symbol("+") and not self.symbol("+="):
                self.i += 1
                left = s.Op("+", (left, self.multiplicative()))
            elif self.symbol("-") and not self.symbol("->"):
                self.i += 1
                left = s.Op("-", (left, self.multiplicative()))
            else:
                return left

    def multiplicative(self) -> s.Expr:
        left = self.power()
        while True:
            op = next((o for o in ("*", "/", "%") if self.symbol(o)), None)
            if op is None:
                return left
            self.i += 1
            left = s.Op(op, (left, self.power()))

    def power(self) -> s.Expr:
        left = self.unary()
        while self.accept_symbol("^"):
            left = s.Op("^", (left, self.unary()))
        return left

    def unary(self) -> s.Expr:
        if self.accept_symbol("-"):
            operand = self.unary()
            if isinstance(operand, s.Lit) and isinstance(operand.value, (int, float)) and not isinstance(operand.value, bool):
                return s.Lit(-operand.value)
            return s.Op("neg", (operand,))
        if self.accept_symbol("+"):
            return self.unary()
        return self.postfix()

    def postfix(self) -> s.Expr:
        expr = self.atom()
        while True:
            if self.symbol(".") and not self.symbol(".."):
                self.i += 1
                expr = s.Prop(expr, self.name())
            elif self.symbol("["):
                self.i += 1
                start = None if self.symbol("..") else self.expr()
                if self.accept_symbol(".."):
                    end = None if self.symbol("]") else self.expr()
                    self.expect_symbol("]")
                    expr = s.Slice(expr, start, end)
                else:
                    self.expect_symbol("]")
                    expr = s.Index(expr, start)  # type: ignore[arg-type]
            elif self.symbol(":") and isinstance(expr, s.Var):
                expr = s.HasLabels(expr, self.labels())
            else:
                return expr

    def atom(self) -> s.Expr:
        token = self.peek()
        if token is None:
            self.fail("expected an expression")
        assert token is not None
        if token.kind == "number":
            self.i += 1
            return s.Lit(_number(token.text))
        if token.kind == "string":
            self.i += 1
            return s.Lit(_unescape(token.text))
        if token.kind == "param":
            self.i += 1
            return s.Param(_param_name(token))
        if token.kind == "symbol":
            if token.text == "[":
                return self.list_atom()
            if token.text == "{":
                return self.map_literal()
            if token.text == "(":
                return self.parenthesized()
            self.fail("expected an expression")
        word = token.text.upper() if token.kind == "word" else ""
        if word in ("TRUE", "FALSE", "NULL"):
            self.i += 1
            return s.Lit({"TRUE": True, "FALSE": False, "NULL": None}[word])
        if word == "CASE":
            return self.case()
        if word in ("EXISTS", "COUNT", "COLLECT") and self.symbol("{", 1):
            if word == "COLLECT":
                raise NotInSubset("COLLECT { ... } subqueries")
            self.i += 2
            return self.subquery("exists" if word == "EXISTS" else "count")
        if word in ("SHORTESTPATH", "ALLSHORTESTPATHS"):
            raise NotInSubset(f"{token.text} outside MATCH")
        if word == "REDUCE" and self.symbol("(", 1):
            raise NotInSubset("reduce()")
        if token.kind in ("word", "quoted") and (self.symbol("(", 1) or self.symbol(".", 1)):
            called = self.function_call()
            if called is not None:
                return called
        if token.kind == "word" and word in _CLAUSE_STARTS | {"WHERE", "AS", "ORDER", "SKIP", "LIMIT"}:
            self.fail("expected an expression")
        var = s.Var(self.variable())
        if self.symbol("{"):
            return self.map_projection(var)
        return var

    def function_call(self) -> s.Expr | None:
        """`name(...)` or `ns.name(...)`; None (position kept) when the name is not followed by `(`."""
        start = self.i
        parts = [self.name()]
        while self.symbol(".") and self.peek(1) is not None and self.peek(1).kind in ("word", "quoted"):  # type: ignore[union-attr]
            self.i += 1
            parts.append(self.name())
        if not self.symbol("("):
            self.i = start
            return None
        name = ".".join(parts).lower()
        self.i += 1
        if len(parts) > 1:
            raise NotInSubset(f"the function '{'.'.join(parts)}'")
        if name in _QUANTIFIERS:
            var = self.variable()
            self.expect("IN")
            source = self.expr()
            where = self.expr() if self.accept("WHERE") else None
            self.expect_symbol(")")
            return s.ListComp(var, source, where, None, quantifier=name)
        if name == "exists":
            raise NotInSubset("exists(...) as a function (write EXISTS { pattern } or `n.prop IS NOT NULL`)")
        if name == "count" and self.accept_symbol("*"):
            self.expect_symbol(")")
            return s.Call("count", (), star=True)
        if name not in FUNCTIONS:
            raise NotInSubset(f"the function {name}()")
        distinct = self.accept("DISTINCT")
        args: list[s.Expr] = []
        if not self.accept_symbol(")"):
            args.append(self.expr())
            while self.accept_symbol(","):
                args.append(self.expr())
            self.expect_symbol(")")
        return s.Call(name, tuple(args), distinct)

    def list_atom(self) -> s.Expr:
        self.i += 1  # [
        token, after = self.peek(), self.peek(1)
        if token is not None and token.kind in ("word", "quoted") and after is not None and after.kind == "word" and after.text.upper() == "IN":
            var = self.variable()
            self.expect("IN")
            source = self.expr()
            where = self.expr() if self.accept("WHERE") else None
            projection = self.expr() if self.accept_symbol("|") else None
            self.expect_symbol("]")
            return s.ListComp(var, source, where, projection)
        if self.symbol("("):
            pattern = self.try_pattern()
            if pattern is not None:
                where = self.expr() if self.accept("WHERE") else None
                self.expect_symbol("|")
                projection = self.expr()
                self.expect_symbol("]")
                return s.PatternComp(pattern, where, projection)
        items: list[s.Expr] = []
        if not self.accept_symbol("]"):
            items.append(self.expr())
            while self.accept_symbol(","):
                items.append(self.expr())
            self.expect_symbol("]")
        return s.ListExpr(tuple(items))

    def try_pattern(self) -> s.PathPattern | None:
        """A relationship pattern starting here, or None with the position kept (an expression)."""
        start = self.i
        if self.peek(1) is not None and self.peek(1).kind == "word" and self.keyword(1) in ("SHORTESTPATH",):  # type: ignore[union-attr]
            return None
        try:
            pattern = self.path_pattern(top=False)
        except CypherSyntaxError:
            self.i = start
            return None
        if not pattern.rels:
            self.i = start
            return None
        return pattern

    def parenthesized(self) -> s.Expr:
        pattern = self.try_pattern()
        if pattern is not None:
            return s.Subquery("exists", (pattern,), None)
        self.i += 1
        expr = self.expr()
        self.expect_symbol(")")
        return expr

    def subquery(self, kind: str) -> s.Expr:
        if self.at("MATCH"):
            self.i += 1
        elif self.keyword() in _CLAUSE_STARTS | {"CALL"}:
            raise NotInSubset(f"{kind.upper()} {{ ... }} with clauses other than one MATCH")
        patterns = [self.path_pattern(top=True)]
        while self.accept_symbol(","):
            patterns.append(self.path_pattern(top=True))
        where = self.expr() if self.accept("WHERE") else None
        if not self.symbol("}"):
            if self.keyword() in _CLAUSE_STARTS:
                raise NotInSubset(f"{kind.upper()} {{ ... }} with clauses other than one MATCH")
            self.fail("expected '}'")
        self.i += 1
        if any(p.shortest for p in patterns):
            raise NotInSubset(f"shortestPath inside {kind.upper()} {{ ... }}")
        return s.Subquery(kind, tuple(patterns), where)

    def map_literal(self) -> s.MapExpr:
        self.expect_symbol("{")
        items: list[tuple[str, s.Expr]] = []
        if not self.accept_symbol("}"):
            while True:
                key = self.name()
                self.expect_symbol(":")
                items.append((key, self.expr()))
                if not self.accept_symbol(","):
                    break
            self.expect_symbol("}")
        keys = [k for k, _ in items]
        if len(set(keys)) != len(keys):
            raise CypherSyntaxError("a map literal names a key twice")
        return s.MapExpr(tuple(items))

    def map_projection(self, var: s.Var) -> s.MapProj:
        self.expect_symbol("{")
        items: list[tuple] = []
        if not self.accept_symbol("}"):
            while True:
                if self.accept_symbol("."):
                    items.append(("all",) if self.accept_symbol("*") else ("prop", self.name()))
                else:
                    key = self.name()
                    if self.accept_symbol(":"):
                        items.append(("entry", key, self.expr()))
                    else:
                        items.append(("var", key))
                if not self.accept_symbol(","):
                    break
            self.expect_symbol("}")
        return s.MapProj(var, tuple(items))

    def case(self) -> s.Case:
        self.expect("CASE")
        subject = None if self.at("WHEN") else self.expr()
        whens: list[tuple[s.Expr, s.Expr]] = []
        while self.accept("WHEN"):
            condition = self.expr()
            self.expect("THEN")
            whens.append((condition, self.expr()))
        if not whens:
            self.fail("expected WHEN")
        default = self.expr() if self.accept("ELSE") else None
        self.expect("END")
        return s.Case(subject, tuple(whens), default)


def _columns(query: s.Query) -> tuple[str, ...] | None:
    last = query.clauses[-1]
    if isinstance(last, s.Projection):
        return None if last.star else tuple(item.name for item in last.items)
    return None


def _param_name(token: Token) -> str:
    name = token.text[1:]
    if not name:
        raise NotInSubset("a `backtick`-quoted parameter name")
    return name


def _number(text: str) -> int | float:
    try:
        if text[:2].lower() == "0x":
            value: int | float = int(text[2:], 16)
        elif re.fullmatch(r"\d+", text):
            value = int(text)
        else:
            value = float(text)
    except ValueError:
        raise CypherSyntaxError(f"'{text}' is not a number") from None
    if isinstance(value, int) and value > MAX_INTEGER + 1:  # + 1: the literal may follow a minus
        raise CypherSyntaxError(f"the integer {text} is too large (64-bit integers)")
    return value


def _unescape(raw: str) -> str:
    body, out, i = raw[1:-1], [], 0
    while i < len(body):
        char = body[i]
        if char != "\\":
            out.append(char)
            i += 1
            continue
        nxt = body[i + 1] if i + 1 < len(body) else ""
        if nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        elif nxt in ("u", "U"):
            width = 4 if nxt == "u" else 8
            digits = body[i + 2 : i + 2 + width]
            if len(digits) != width or not re.fullmatch(r"[0-9a-fA-F]+", digits):
                raise CypherSyntaxError(f"bad \\{nxt} escape in string {raw[:40]}")
            out.append(chr(int(digits, 16)))
            i += 2 + width
        else:
            raise CypherSyntaxError(f"unknown escape '\\{nxt}' in string {raw[:40]}")
    return "".join(out)
