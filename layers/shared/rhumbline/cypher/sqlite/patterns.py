"""MATCH patterns as SQLite FROM items and conditions: nodes, fixed and variable-length
relationships (recursive CTEs), shortest paths, and the EXISTS/COUNT subqueries and pattern
comprehensions made of them. Every `nodes` row is filtered on the token's projects where it enters."""

from __future__ import annotations

import re

from rhumbline.cypher.sqlite import tables
from rhumbline.cypher import syntax as s
from rhumbline.cypher.parser import MAX_HOPS, CypherSyntaxError, NotInSubset
from rhumbline.cypher.sqlite.expressions import Expressions
from rhumbline.cypher.sqlite.statement import Statement
from rhumbline.cypher.sqlite.types import (
    BOOL,
    INT,
    NODE,
    PATH,
    REL,
    list_of,
    to_container,
)
from rhumbline.cypher.sqlite.values import (
    Language,
    Part,
    V,
    refers_to_variables,
    boolean,
    comparable,
)


class Patterns:
    def __init__(self, statement: Statement, expressions: Expressions, language: Language) -> None:
        self.statement = statement
        self.expressions = expressions
        self.language = language

    # -- patterns --------------------------------------------------------------------------------

    def match(self, part: Part, clause: s.Match) -> None:
        target = Part(part.env, parent=part) if clause.optional else part
        rels: list[tuple[str, V]] = []
        for pattern in clause.patterns:
            self.pattern(target, pattern, rels)
        self.distinct_relationships(target, rels)
        if clause.where is not None:
            target.wheres.append(boolean(self.language.expr(clause.where, target), "WHERE").sql)
        if not clause.optional:
            return
        if not target.items:
            raise NotInSubset("OPTIONAL MATCH that matches nothing new (no new node or relationship)")
        self.optional_joins(part, target)
        part.env.update(target.env)

    def optional_joins(self, part: Part, group: Part) -> None:
        """OPTIONAL MATCH as a chain of LEFT JOINs, all or nothing: each table joins only when the
        rest of the group can still match (an EXISTS over the tables after it), so a row has the
        whole match or none of it, and the joins follow the pattern from what is already bound
        (a parenthesized join group would be materialized whole: every edge of the type)."""
        aliases = {alias for _, alias, _ in group.items}
        mentions = {w: set(re.findall(r"\b([a-z]+\d+)\.", w)) for w in group.wheres}
        ordered: list[tuple[str, str, str | None]] = []
        placed: set[str] = set()
        remaining = list(group.items)
        while remaining:
            linked = next(
                (item for item in remaining
                 if any(item[1] in m and (m - aliases or m & placed) for m in mentions.values())),
                remaining[0],
            )  # fmt: skip
            ordered.append(linked)
            placed.add(linked[1])
            remaining.remove(linked)
        done: set[str] = set()
        for j, (table, alias, _) in enumerate(ordered):
            later = {a for _, a, _ in ordered[j + 1 :]}
            here = [w for w in group.wheres if w not in done and not mentions[w] & later]
            done.update(here)
            if later:
                rest = [w for w in group.wheres if mentions[w] & later]
                tables = " JOIN ".join(t for t, a, _ in ordered[j + 1 :])
                here.append(f"EXISTS (SELECT 1 FROM {tables}{' WHERE ' + ' AND '.join(f'({w})' for w in rest) if rest else ''})")
            part.items.append((table, alias, " AND ".join(f"({w})" for w in here) or "1"))

    def distinct_relationships(self, part: Part, rels: list[tuple[str, V]]) -> None:
        """Cypher never binds one relationship twice in one MATCH: add the conditions."""
        for i, (kind_i, rel_i) in enumerate(rels):
            for kind_j, rel_j in rels[i + 1 :]:
                if kind_i == "one" and kind_j == "one":
                    part.wheres.append(f"{rel_i.sql} <> {rel_j.sql}")
                elif kind_i == "one" or kind_j == "one":
                    one, walk = (rel_i, rel_j) if kind_i == "one" else (rel_j, rel_i)
                    part.wheres.append(f"instr({walk.alias}.keys, ',' || {_edge_key(one.alias)} || ',') = 0")
                else:
                    raise NotInSubset("two variable-length relationships in one MATCH")

    def pattern(self, part: Part, pattern: s.PathPattern, rels: list[tuple[str, V]]) -> None:
        if pattern.shortest is not None:
            self.shortest(part, pattern)
            return
        nodes = [self.node(part, node) for node in pattern.nodes]
        rel_pieces: list[str] = []  # each a relationship, or a walk's list of them
        for i, rel in enumerate(pattern.rels):
            if rel.hops is None:
                value = self.fixed_relationship(part, rel, nodes[i], nodes[i + 1])
                rels.append(("one", value))
                rel_pieces.append(f"json_object('~r', json({value.sql}))")
            else:
                value = self.walk(part, rel, nodes[i], nodes[i + 1])
                rels.append(("walk", value))
                rel_pieces.append(f"json({value.sql})")
        if pattern.var is not None:
            path = f"cy_path({nodes[0].sql}, json_array({', '.join(rel_pieces)}))"
            part.bind(pattern.var, V(path, PATH, owner=part))

    def node(self, part: Part, pattern: s.NodePattern) -> V:
        bound = part.lookup(pattern.var) if pattern.var is not None else None
        if bound is not None:
            if bound.type.kind != "node":
                raise CypherSyntaxError(f"`{pattern.var}` is a {bound.type}, not a node")
            value = bound
        else:
            alias = self.statement.fresh("n")
            part.add("nodes", alias)
            part.wheres.append(f"{alias}.project IN {tables.SCOPE}")
            value = V(f"{alias}.rid", NODE, alias=alias, owner=part, origin=pattern)
            if pattern.var is not None:
                part.bind(pattern.var, value)
        part.wheres.extend(self.node_conditions(pattern, value, part))
        return value

    def node_conditions(self, pattern: s.NodePattern, value: V, part: Part) -> list[str]:
        conditions = [
            self.expressions.has_label(value, label, part) for label in pattern.labels if label != tables.LABEL
        ]
        for key, expr in self.property_map(pattern.properties):
            prop = self.expressions.property(value, key, part)
            given = self.language.expr(expr, part)
            conditions.append(self.equal(prop, given) + (self.expressions.lowered(prop, given, "=") or ""))
        return conditions

    def property_map(self, properties: s.MapExpr | None) -> tuple[tuple[str, s.Expr], ...]:
        return properties.items if properties is not None else ()

    def equal(self, left: V, right: V) -> str:

        if not comparable(left.type, right.type):
            return "0"
        return f"({left.sql}) = ({right.sql})"

    def fixed_relationship(self, part: Part, rel: s.RelPattern, left: V, right: V) -> V:
        if rel.var is not None and part.lookup(rel.var) is not None:
            raise NotInSubset(f"a relationship variable (`{rel.var}`) matched again")
        alias = self.statement.fresh("e")
        part.add(_oriented(rel.direction), alias)
        part.wheres.extend([f"{alias}.near = {left.sql}", f"{alias}.far = {right.sql}"])
        # NULL when an OPTIONAL MATCH found no edge (json_array would give [null, null, null]).
        sql = f"CASE WHEN {alias}.source IS NULL THEN NULL ELSE json_array({alias}.source, {alias}.relation, {alias}.target) END"
        value = V(sql, REL, alias=alias, owner=part)
        part.wheres.extend(self.relationship_conditions(rel, alias, part))
        if rel.var is not None:
            part.bind(rel.var, value)
        return value

    def relationship_conditions(self, rel: s.RelPattern, alias: str, part: Part) -> list[str]:
        conditions = []
        if rel.types:
            conditions.append(f"{alias}.relation IN ({', '.join(self.statement.bind(t) for t in rel.types)})")
        if rel.properties is not None:
            value = V(f"json_array({alias}.source, {alias}.relation, {alias}.target)", REL, alias=alias)
            for key, expr in self.property_map(rel.properties):
                if refers_to_variables(expr):
                    raise NotInSubset("relationship pattern properties that refer to variables")
                conditions.append(self.equal(self.expressions.property(value, key, part), self.language.expr(expr, part)))
        return conditions

    def seed(self, pattern: s.NodePattern | None, alias: str) -> list[str]:
        """Conditions on a walk's first node from its own pattern (constants only)."""
        if pattern is None:
            return []
        if pattern.properties is not None and isinstance(pattern.properties, s.MapExpr):
            if any(refers_to_variables(e) for _, e in pattern.properties.items):
                return []
        scratch = Part()
        return self.node_conditions(pattern, V(f"{alias}.rid", NODE, alias=alias, owner=scratch), scratch)

    def walk(self, part: Part, rel: s.RelPattern, left: V, right: V) -> V:
        """A variable-length relationship: every trail of `low..high` relationships, as Cypher
        matches them (no relationship twice), from a seed of start nodes."""
        low, high = _bounds(rel)
        if rel.var is not None and part.lookup(rel.var) is not None:
            raise NotInSubset(f"a relationship variable (`{rel.var}`) matched again")
        # Seed from the end whose own pattern filters it; the walk then runs the other way.
        backwards = not self.seed(left.origin, "s") and bool(self.seed(right.origin, "s"))
        start, finish = (right, left) if backwards else (left, right)
        direction = {"out": "in", "in": "out", "both": "both"}[rel.direction] if backwards else rel.direction
        name = self.statement.fresh("walk")
        step = self.statement.fresh("e")
        seed = " AND ".join([f"s.project IN {tables.SCOPE}", *self.seed(start.origin, "s")])
        conditions = " AND ".join([f"w.depth < {high}", *self.relationship_conditions(rel, step, part)])
        key = _edge_key(step)
        new_rel = f"json_object('~r', json_array({step}.source, {step}.relation, {step}.target))"
        rels = f"cy_prepend(w.rels, {new_rel})" if backwards else f"json_insert(w.rels, '$[#]', {new_rel})"
        self.statement.ctes.append(
            f"{name}(start, node, depth, keys, rels) AS ("
            f"SELECT s.rid, s.rid, 0, ',', '[]' FROM nodes AS s WHERE {seed}"
            f" UNION ALL SELECT w.start, {step}.far, w.depth + 1, w.keys || {key} || ',', {rels}"
            f" FROM {name} AS w JOIN {_oriented(direction)} AS {step} ON {step}.near = w.node"
            f" JOIN nodes AS x ON x.rid = {step}.far AND x.project IN {tables.SCOPE}"
            f" WHERE {conditions} AND instr(w.keys, ',' || {key} || ',') = 0)"
        )
        alias = self.statement.fresh("w")
        part.add(f"(SELECT start, node, keys, rels FROM {name} WHERE depth >= {low})", alias)
        part.wheres.extend([f"{alias}.start = {start.sql}", f"{alias}.node = {finish.sql}"])
        value = V(f"{alias}.rels", list_of(REL), alias=alias, owner=part)
        if rel.var is not None:
            part.bind(rel.var, value)
        return value

    def shortest(self, part: Part, pattern: s.PathPattern) -> None:
        """shortestPath / allShortestPaths: a breadth-first search (one row per node and depth,
        not per path), then the shortest paths read back from each end through it."""
        rel = pattern.rels[0]
        low, high = _bounds(rel)
        if low > 1:
            raise NotInSubset("shortestPath with a minimum length above 1")
        left, right = (self.node(part, n) for n in pattern.nodes)
        if rel.var is not None and part.lookup(rel.var) is not None:
            raise NotInSubset(f"a relationship variable (`{rel.var}`) matched again")
        bfs, back, step = self.statement.fresh("bfs"), self.statement.fresh("back"), self.statement.fresh("e")
        seed = " AND ".join([f"s.project IN {tables.SCOPE}", *self.seed(left.origin, "s")])
        ends = " AND ".join(["1", *self.seed(right.origin, "t")])
        conditions = " AND ".join(self.relationship_conditions(rel, step, part)) or "1"
        oriented = _oriented(rel.direction)
        new_rel = f"json_object('~r', json_array({step}.source, {step}.relation, {step}.target))"
        self.statement.ctes.append(
            f"{bfs}(start, node, depth) AS (SELECT s.rid, s.rid, 0 FROM nodes AS s WHERE {seed}"
            f" UNION SELECT b.start, {step}.far, b.depth + 1 FROM {bfs} AS b"
            f" JOIN {oriented} AS {step} ON {step}.near = b.node"
            f" JOIN nodes AS x ON x.rid = {step}.far AND x.project IN {tables.SCOPE}"
            f" WHERE b.depth < {high} AND {conditions})"
        )
        self.statement.ctes.append(
            f"{back}(start, target, node, depth, rels) AS ("
            f"SELECT d.start, d.node, d.node, d.depth, '[]' FROM"
            f" (SELECT start, node, min(depth) AS depth FROM {bfs} GROUP BY start, node) AS d"
            f" JOIN nodes AS t ON t.rid = d.node WHERE d.depth >= {max(low, 1)} AND {ends}"
            f" UNION ALL SELECT k.start, k.target, {step}.near, k.depth - 1, cy_prepend(k.rels, {new_rel})"
            f" FROM {back} AS k JOIN {oriented} AS {step} ON {step}.far = k.node"
            f" JOIN {bfs} AS b ON b.start = k.start AND b.node = {step}.near AND b.depth = k.depth - 1"
            f" WHERE k.depth > 0 AND {conditions})"
        )
        chosen = f"SELECT * FROM {back} WHERE depth = 0"
        if pattern.shortest == "shortest":
            chosen = (
                f"SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY start, target ORDER BY rels) AS rn"
                f" FROM {back} WHERE depth = 0) WHERE rn = 1"
            )
        alias = self.statement.fresh("w")
        part.add(f"(SELECT start, target, rels FROM ({chosen}))", alias)
        part.wheres.extend([f"{alias}.start = {left.sql}", f"{alias}.target = {right.sql}"])
        if rel.var is not None:
            part.bind(rel.var, V(f"{alias}.rels", list_of(REL), owner=part))
        if pattern.var is not None:
            part.bind(pattern.var, V(f"cy_path({left.sql}, json_array(json({alias}.rels)))", PATH, owner=part))

    # -- subquery expressions ------------------------------------------------------------------

    def subquery(self, e: s.Subquery, part: Part) -> V:
        inner = part.child()
        rels: list[tuple[str, V]] = []
        for pattern in e.patterns:
            self.pattern(inner, pattern, rels)
        self.distinct_relationships(inner, rels)
        if e.where is not None:
            inner.wheres.append(boolean(self.language.expr(e.where, inner), "WHERE").sql)
        body = f"FROM {inner.from_sql()}{inner.where_sql()}"
        if e.kind == "count":
            return V(f"(SELECT count(*) {body})", INT)
        return V(f"EXISTS (SELECT 1 {body})", BOOL)

    def pattern_comprehension(self, e: s.PatternComp, part: Part) -> V:

        inner = part.child()
        rels: list[tuple[str, V]] = []
        self.pattern(inner, e.pattern, rels)
        self.distinct_relationships(inner, rels)
        if e.where is not None:
            inner.wheres.append(self.language.expr(e.where, inner).sql)
        value = self.language.expr(e.projection, inner)
        body = f"FROM {inner.from_sql()}{inner.where_sql()}"
        return V(f"(SELECT coalesce(cy_collect(json_quote({to_container(value.sql, value.type)})), '[]') {body})", list_of(value.type))


def _bounds(rel: s.RelPattern) -> tuple[int, int]:
    assert rel.hops is not None
    low, high = rel.hops
    if high is None:
        raise NotInSubset(f"a variable-length relationship without an upper bound (write *{low}..k, k <= {MAX_HOPS})")
    if high > MAX_HOPS:
        raise NotInSubset(f"a variable-length relationship longer than {MAX_HOPS}")
    if low > high:
        raise CypherSyntaxError(f"*{low}..{high} is an empty range")
    return low, high


def _oriented(direction: str) -> str:
    """Edges read from the pattern's side: `near` is the end the pattern comes from."""
    if direction == "both":
        return tables.EDGES_BOTH_WAYS
    near, far = ("source", "target") if direction == "out" else ("target", "source")
    return f"(SELECT {near} AS near, {far} AS far, {tables.EDGE_SELECT} FROM edges)"


def _edge_key(alias: str | None) -> str:
    return f"({alias}.source || ':' || {alias}.relation || ':' || {alias}.target)"
