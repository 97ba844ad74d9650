"""Expressions of the Cypher subset: operators by precedence, literals, function calls, list and
pattern comprehensions, EXISTS/COUNT subqueries, maps and CASE."""

from __future__ import annotations

from typing import Any

from rhumbline.cypher import syntax as s
from rhumbline.cypher.parser.stream import (
    CLAUSE_STARTS,
    FUNCTIONS,
    QUANTIFIERS,
    CypherSyntaxError,
    NotInSubset,
    TokenStream,
    number,
    param_name,
    unescape,
)


class ExpressionParser(TokenStream):
    # Patterns occur inside expressions (pattern predicates, comprehensions, EXISTS { }) and
    # expressions inside patterns (property maps): patterns.py's subclass parses them.
    def path_pattern(self, *, top: bool) -> s.PathPattern:
        raise NotImplementedError

    def labels(self) -> tuple[str, ...]:
        raise NotImplementedError

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
                    assert start is not None  # `[..` always takes the slice branch
                    expr = s.Index(expr, start)
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
            return s.Lit(number(token.text))
        if token.kind == "string":
            self.i += 1
            return s.Lit(unescape(token.text))
        if token.kind == "param":
            self.i += 1
            return s.Param(param_name(token))
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
        if token.kind == "word" and word in CLAUSE_STARTS | {"WHERE", "AS", "ORDER", "SKIP", "LIMIT"}:
            self.fail("expected an expression")
        var = s.Var(self.variable())
        if self.symbol("{"):
            return self.map_projection(var)
        return var

    def function_call(self) -> s.Expr | None:
        """`name(...)` or `ns.name(...)`; None (position kept) when the name is not followed by `(`."""
        start = self.i
        parts = [self.name()]
        while self.symbol(".") and self.kind(1) in ("word", "quoted"):
            self.i += 1
            parts.append(self.name())
        if not self.symbol("("):
            self.i = start
            return None
        name = ".".join(parts).lower()
        self.i += 1
        if len(parts) > 1:
            raise NotInSubset(f"the function '{'.'.join(parts)}'")
        if name in QUANTIFIERS:
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
        if self.keyword(1) in ("SHORTESTPATH",):
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
        elif self.keyword() in CLAUSE_STARTS | {"CALL"}:
            raise NotInSubset(f"{kind.upper()} {{ ... }} with clauses other than one MATCH")
        patterns = [self.path_pattern(top=True)]
        while self.accept_symbol(","):
            patterns.append(self.path_pattern(top=True))
        where = self.expr() if self.accept("WHERE") else None
        if not self.symbol("}"):
            if self.keyword() in CLAUSE_STARTS:
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
        items: list[tuple[Any, ...]] = []
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
