"""Node, relationship and path patterns of the Cypher subset (MATCH, EXISTS, comprehensions)."""

from __future__ import annotations

from rhumbline.cypher import syntax as s
from rhumbline.cypher.parser.expressions import ExpressionParser
from rhumbline.cypher.parser.stream import CypherSyntaxError, NotInSubset, number


class PatternParser(ExpressionParser):
    def path_pattern(self, *, top: bool) -> s.PathPattern:
        var = None
        if top and self.peek(1) is not None and self.symbol("=", 1) and not self.symbol("=~", 1):
            var = self.variable()
            self.expect_symbol("=")
        shortest = None
        word = self.keyword()
        if word in ("SHORTESTPATH", "ALLSHORTESTPATHS") and self.symbol("(", 1):
            if not top:
                raise NotInSubset(f"{self.tokens[self.i].text} outside MATCH")
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
            pass  # a list of relationships; sqlite/compiler.py and neo4j/scoping.py handle it
        return s.RelPattern(var, tuple(types), direction, properties, hops)

    def hops(self) -> tuple[int, int | None]:
        low = self.integer() if self.kind() == "number" else None
        if self.accept_symbol(".."):
            high = self.integer() if self.kind() == "number" else None
            return (1 if low is None else low, high)
        if low is None:
            return (1, None)
        return (low, low)

    def integer(self) -> int:
        token = self.peek()
        assert token is not None
        value = number(token.text)
        if not isinstance(value, int) or value < 0:
            self.fail("expected a non-negative integer")
        self.i += 1
        return value
