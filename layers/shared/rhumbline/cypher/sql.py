"""The read-only Cypher subset compiled to one SQLite SELECT over the graph store's tables.

Tenancy by construction: every `nodes` row the statement reads is filtered on `project IN
(:scope)` where it enters the query (a pattern's node, each step of a variable-length walk), and
edges are reached only from such rows. Nothing else reads the tables.

Each part of the query between two WITHs is one SELECT (`Part`): MATCH adds its tables and
conditions to the part's FROM and WHERE (OPTIONAL MATCH as one LEFT JOIN group), WITH closes the
part into a subquery the next part reads from, RETURN closes the last. Variable-length
relationships and shortest paths are recursive CTEs. Value forms: sql_types.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from rhumbline.cypher import sql_schema as schema
from rhumbline.cypher import syntax as s
from rhumbline.cypher.parser import GENERATED, MAX_HOPS, PROCEDURES, CypherSyntaxError, NotInSubset
from rhumbline.cypher.sql_expr import ExpressionCompiler, V, boolean, contains_aggregate
from rhumbline.cypher.sql_types import BOOL, INT, NODE, PATH, REL, STR, T, list_of

SCOPE = "(SELECT value FROM json_each(:scope))"


@dataclass(frozen=True)
class Compiled:
    sql: str
    params: dict[str, Any]
    columns: list[str]
    types: list[T]


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


class Compiler(ExpressionCompiler):
    def __init__(self, params: dict[str, Any]) -> None:
        self.params = params
        self.sql_params: dict[str, Any] = {}
        self.ctes: list[str] = []
        self.counter = 0

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def bind(self, value: Any) -> str:
        name = self.fresh("p")
        self.sql_params[name] = value
        return f":{name}"

    # -- the query -----------------------------------------------------------------------------

    def compile(self, query: s.Query) -> Compiled:
        sql, columns, types = self.single(query)
        for union_all, other in query.unions:
            other_sql, other_columns, other_types = self.single(other)
            if [t.kind for t in other_types] != [t.kind for t in types]:
                raise NotInSubset("UNION of columns of different types")
            sql = f"{sql} UNION{' ALL' if union_all else ''} {other_sql}"
        if query.unions:
            sql = f"SELECT * FROM ({sql})"
        if self.ctes:
            sql = "WITH RECURSIVE " + ", ".join(self.ctes) + " " + sql
        return Compiled(sql, self.sql_params, columns, types)

    def single(self, query: s.Query) -> tuple[str, list[str], list[T]]:
        part = Part()
        for clause in query.clauses:
            if isinstance(clause, s.Match):
                self.match(part, clause)
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

    def projection_sql(self, part: Part, projection: s.Projection) -> tuple[str, list[s.Item], list[V]]:
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
        elif terms and not projection.final:
            sql += " LIMIT 9223372036854775807"  # keeps the subquery's order for what follows
        return sql, items, values

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
        literal = self.params.get(expr.name) if isinstance(expr, s.Param) else getattr(expr, "value", None)
        if isinstance(literal, int) and literal < 0:
            raise CypherSyntaxError(f"{clause} takes a non-negative integer, not {literal}")
        return value.sql

    def select(self, part: Part, projection: s.Projection) -> tuple[str, list[str], list[T]]:
        sql, items, values = self.projection_sql(part, projection)
        for value in values:
            if value.type.kind == "mixed":
                raise NotInSubset("a column of values of different types")
        return sql, [item.name for item in items], [v.type for v in values]

    def with_(self, part: Part, projection: s.Projection) -> Part:
        sql, items, values = self.projection_sql(part, projection)
        alias = self.fresh("w")
        following = Part()
        following.add(f"({sql})", alias)
        for i, (item, value) in enumerate(zip(items, values)):
            following.bind(item.name, V(f"{alias}.c{i}", value.type, owner=following))
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
        alias = self.fresh("u")
        part.add(f"json_each({source.sql})", alias)
        from rhumbline.cypher.sql_types import ANY, from_container

        elem = source.type.elem or ANY
        if elem.kind in ("list", "map", "mixed"):
            elem = T(elem.kind) if elem.kind != "mixed" else ANY
        part.bind(clause.var, V(from_container(f"{alias}.value", elem), elem, owner=part))

    def procedure(self, part: Part, clause: s.Procedure, *, lone: bool) -> Part:
        from rhumbline.cypher.procedures import SQL

        alias = self.fresh("proc")
        part.add(f"({SQL[clause.name]})", alias)
        column = PROCEDURES[clause.name.lower()]
        for _, name in clause.yields or ((column, column),):
            part.bind(name, V(f"{alias}.value", STR, owner=part))
        if clause.where is not None:
            part.wheres.append(boolean(self.expr(clause.where, part), "WHERE").sql)
        return part

    # -- patterns --------------------------------------------------------------------------------

    def match(self, part: Part, clause: s.Match) -> None:
        target = Part(part.env, parent=part) if clause.optional else part
        rels: list[tuple[str, V]] = []
        for pattern in clause.patterns:
            self.pattern(target, pattern, rels)
        self.distinct_relationships(target, rels)
        if clause.where is not None:
            target.wheres.append(boolean(self.expr(clause.where, target), "WHERE").sql)
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
            alias = self.fresh("n")
            part.add("nodes", alias)
            part.wheres.append(f"{alias}.project IN {SCOPE}")
            value = V(f"{alias}.rid", NODE, alias=alias, owner=part, origin=pattern)
            if pattern.var is not None:
                part.bind(pattern.var, value)
        part.wheres.extend(self.node_conditions(pattern, value, part))
        return value

    def node_conditions(self, pattern: s.NodePattern, value: V, part: Part) -> list[str]:
        conditions = []
        if any(label != schema.LABEL for label in pattern.labels):
            conditions.append("0")
        for key, expr in self.property_map(pattern.properties):
            prop = self.property(value, key, part)
            given = self.expr(expr, part)
            conditions.append(self.equal(prop, given) + (self.lowered(prop, given, "=") or ""))
        return conditions

    def property_map(self, properties: s.MapExpr | None) -> tuple[tuple[str, s.Expr], ...]:
        return properties.items if properties is not None else ()

    def equal(self, left: V, right: V) -> str:
        from rhumbline.cypher.sql_expr import _comparable

        if not _comparable(left.type, right.type):
            return "0"
        return f"({left.sql}) = ({right.sql})"

    def fixed_relationship(self, part: Part, rel: s.RelPattern, left: V, right: V) -> V:
        if rel.var is not None and part.lookup(rel.var) is not None:
            raise NotInSubset(f"a relationship variable (`{rel.var}`) matched again")
        alias = self.fresh("e")
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
            conditions.append(f"{alias}.relation IN ({', '.join(self.bind(t) for t in rel.types)})")
        if rel.properties is not None:
            value = V(f"json_array({alias}.source, {alias}.relation, {alias}.target)", REL, alias=alias)
            for key, expr in self.property_map(rel.properties):
                if _refers_to_variables(expr):
                    raise NotInSubset("relationship pattern properties that refer to variables")
                conditions.append(self.equal(self.property(value, key, part), self.expr(expr, part)))
        return conditions

    def seed(self, pattern: s.NodePattern | None, alias: str) -> list[str]:
        """Conditions on a walk's first node from its own pattern (constants only)."""
        if pattern is None:
            return []
        if pattern.properties is not None and isinstance(pattern.properties, s.MapExpr):
            if any(_refers_to_variables(e) for _, e in pattern.properties.items):
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
        name = self.fresh("walk")
        step = self.fresh("e")
        seed = " AND ".join([f"s.project IN {SCOPE}", *self.seed(start.origin, "s")])
        conditions = " AND ".join([f"w.depth < {high}", *self.relationship_conditions(rel, step, part)])
        key = _edge_key(step)
        new_rel = f"json_object('~r', json_array({step}.source, {step}.relation, {step}.target))"
        rels = f"cy_prepend(w.rels, {new_rel})" if backwards else f"json_insert(w.rels, '$[#]', {new_rel})"
        self.ctes.append(
            f"{name}(start, node, depth, keys, rels) AS ("
            f"SELECT s.rid, s.rid, 0, ',', '[]' FROM nodes AS s WHERE {seed}"
            f" UNION ALL SELECT w.start, {step}.far, w.depth + 1, w.keys || {key} || ',', {rels}"
            f" FROM {name} AS w JOIN {_oriented(direction)} AS {step} ON {step}.near = w.node"
            f" JOIN nodes AS x ON x.rid = {step}.far AND x.project IN {SCOPE}"
            f" WHERE {conditions} AND instr(w.keys, ',' || {key} || ',') = 0)"
        )
        alias = self.fresh("w")
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
        bfs, back, step = self.fresh("bfs"), self.fresh("back"), self.fresh("e")
        seed = " AND ".join([f"s.project IN {SCOPE}", *self.seed(left.origin, "s")])
        ends = " AND ".join(["1", *self.seed(right.origin, "t")])
        conditions = " AND ".join(self.relationship_conditions(rel, step, part)) or "1"
        oriented = _oriented(rel.direction)
        new_rel = f"json_object('~r', json_array({step}.source, {step}.relation, {step}.target))"
        self.ctes.append(
            f"{bfs}(start, node, depth) AS (SELECT s.rid, s.rid, 0 FROM nodes AS s WHERE {seed}"
            f" UNION SELECT b.start, {step}.far, b.depth + 1 FROM {bfs} AS b"
            f" JOIN {oriented} AS {step} ON {step}.near = b.node"
            f" JOIN nodes AS x ON x.rid = {step}.far AND x.project IN {SCOPE}"
            f" WHERE b.depth < {high} AND {conditions})"
        )
        self.ctes.append(
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
        alias = self.fresh("w")
        part.add(f"(SELECT start, target, rels FROM ({chosen}))", alias)
        part.wheres.extend([f"{alias}.start = {left.sql}", f"{alias}.target = {right.sql}"])
        if rel.var is not None:
            part.bind(rel.var, V(f"{alias}.rels", list_of(REL), owner=part))
        if pattern.var is not None:
            part.bind(pattern.var, V(f"cy_path({left.sql}, json_array(json({alias}.rels)))", PATH, owner=part))

    # -- rows of nodes and relationships carried over by WITH -----------------------------------

    def node_read(self, value: V, template: str) -> str:
        """`template` (SQL reading the node's row as `{a}`) for this node: through its row in the
        FROM clause, joined now if the node was carried over by WITH, or a lookup by row id for a
        node taken from a list or a path."""
        if value.alias is None and value.owner is not None:
            value.alias = self.fresh("n")
            value.owner.left_join("nodes", value.alias, f"{value.alias}.rid = {value.sql}")
        if value.alias is not None:
            return template.replace("{a}", value.alias)
        row = self.fresh("nq")
        return f"(SELECT {template.replace('{a}', row)} FROM nodes AS {row} WHERE {row}.rid = {value.sql} AND {row}.project IN {SCOPE})"

    def rel_read(self, value: V, template: str) -> str:
        """`template` (SQL reading the relationship's `edges` row as `{a}`), as node_read."""
        if value.alias is None and value.owner is not None:
            value.alias = self.fresh("e")
            value.owner.left_join("edges", value.alias, _edge_row(value.alias, value.sql))
        if value.alias is not None:
            return template.replace("{a}", value.alias)
        row = self.fresh("eq")
        return f"(SELECT {template.replace('{a}', row)} FROM edges AS {row} WHERE {_edge_row(row, value.sql)})"

    # -- subquery expressions ------------------------------------------------------------------

    def subquery(self, e: s.Subquery, part: Part) -> V:
        inner = part.child()
        rels: list[tuple[str, V]] = []
        for pattern in e.patterns:
            self.pattern(inner, pattern, rels)
        self.distinct_relationships(inner, rels)
        if e.where is not None:
            inner.wheres.append(boolean(self.expr(e.where, inner), "WHERE").sql)
        body = f"FROM {inner.from_sql()}{inner.where_sql()}"
        if e.kind == "count":
            return V(f"(SELECT count(*) {body})", INT)
        return V(f"EXISTS (SELECT 1 {body})", BOOL)

    def pattern_comprehension(self, e: s.PatternComp, part: Part) -> V:
        from rhumbline.cypher.sql_types import to_container

        inner = part.child()
        rels: list[tuple[str, V]] = []
        self.pattern(inner, e.pattern, rels)
        self.distinct_relationships(inner, rels)
        if e.where is not None:
            inner.wheres.append(self.expr(e.where, inner).sql)
        value = self.expr(e.projection, inner)
        body = f"FROM {inner.from_sql()}{inner.where_sql()}"
        return V(f"(SELECT json_group_array({to_container(value.sql, value.type)}) {body})", list_of(value.type))


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
        return schema.EDGES_BOTH_WAYS
    near, far = ("source", "target") if direction == "out" else ("target", "source")
    return f"(SELECT {near} AS near, {far} AS far, {schema.EDGE_SELECT} FROM edges)"


def _edge_row(alias: str, rel_sql: str) -> str:
    return " AND ".join(
        f"{alias}.{column} = json_extract({rel_sql}, '$[{i}]')" for i, column in enumerate(("source", "relation", "target"))
    )


def _edge_key(alias: str | None) -> str:
    return f"({alias}.source || ':' || {alias}.relation || ':' || {alias}.target)"


def _refers_to_variables(expr: Any) -> bool:
    if isinstance(expr, s.Var):
        return True
    from rhumbline.cypher.sql_expr import _children

    return any(_refers_to_variables(child) for child in _children(expr))


def compile_query(query: s.Query, params: dict[str, Any]) -> Compiled:
    return Compiler(params).compile(query)


