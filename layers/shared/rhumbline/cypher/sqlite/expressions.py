"""Cypher expressions as SQLite expressions (value forms: types.py): literals, parameters,
properties, operators, CASE, list comprehensions and map projections. Function calls (calls.py)
and pattern subqueries (patterns.py) are compiled by the other parts, reached through the whole
compiler (values.Language, compiler.py)."""

from __future__ import annotations

import re
from typing import Any

from rhumbline.cypher.sqlite import tables
from rhumbline.cypher import syntax as s
from rhumbline.cypher.parser import CypherSyntaxError, NotInSubset
from rhumbline.cypher.sqlite.types import (
    ANY,
    BOOL,
    FLOAT,
    INT,
    NULL,
    NUM,
    NUMBERS,
    STR,
    T,
    extract,
    from_container,
    list_of,
    to_container,
    unify,
)
from rhumbline.cypher.sqlite.statement import Statement
from rhumbline.cypher.sqlite.values import (
    Language,
    Part,
    V,
    boolean,
    comparable,
    json_key,
    json_type,
    numeric,
    orderable,
)

_INDEXED_LOWER = re.compile(r"(n\d+)\.(name|qualified_name)")


class Expressions:
    """`expr(e, part)` compiles an expression in a part's scope (a SELECT being built, values.Part)."""

    def __init__(self, statement: Statement, language: Language) -> None:
        self.statement = statement
        self.language = language

    def expr(self, e: s.Expr, part: Part) -> V:  # noqa: C901 (one dispatch)
        if isinstance(e, s.Lit):
            return self.literal(e.value)
        if isinstance(e, s.Param):
            return self.parameter(e.name)
        if isinstance(e, s.Var):
            found = part.lookup(e.name)
            if found is None:
                raise CypherSyntaxError(f"variable `{e.name}` is not defined")
            return found
        if isinstance(e, s.Prop):
            return self.property(self.language.expr(e.subject, part), e.key, part)
        if isinstance(e, s.Index):
            return self.index(e, part)
        if isinstance(e, s.Slice):
            subject = self.language.expr(e.subject, part)
            if subject.type.kind not in ("list", "null"):
                raise NotInSubset(f"slicing a {subject.type}")
            start = self.language.expr(e.start, part).sql if e.start is not None else "NULL"
            end = self.language.expr(e.end, part).sql if e.end is not None else "NULL"
            return V(f"cy_slice({subject.sql}, {start}, {end}, {int(e.start is None)}, {int(e.end is None)})", subject.type)
        if isinstance(e, s.ListExpr):
            items = [self.language.expr(item, part) for item in e.items]
            inner = ", ".join(to_container(v.sql, v.type) for v in items)
            return V(f"json_array({inner})", list_of(unify([v.type for v in items]) if items else ANY))
        if isinstance(e, s.MapExpr):
            return self.map_literal(e.items, part)
        if isinstance(e, s.Op):
            return self.operator(e, part)
        if isinstance(e, s.HasLabels):
            subject = self.language.expr(e.subject, part)
            if subject.type.kind != "node":
                raise NotInSubset(f"a label test on a {subject.type}")
            holds = " AND ".join(self.has_label(subject, label, part) for label in e.labels) or "1"
            return V(f"CASE WHEN ({subject.sql}) IS NULL THEN NULL ELSE ({holds}) END", BOOL)
        if isinstance(e, s.Call):
            return self.language.call(e, part)
        if isinstance(e, s.Case):
            return self.case(e, part)
        if isinstance(e, s.ListComp):
            return self.comprehension(e, part)
        if isinstance(e, s.PatternComp):
            return self.language.pattern_comprehension(e, part)
        if isinstance(e, s.MapProj):
            return self.map_projection(e, part)
        if isinstance(e, s.Subquery):
            return self.language.subquery(e, part)
        raise NotInSubset(type(e).__name__)
    # -- atoms -----------------------------------------------------------------------------------

    def literal(self, value: Any) -> V:
        if value is None:
            return V("NULL", NULL)
        if isinstance(value, bool):
            return V("1" if value else "0", BOOL)
        if isinstance(value, int):
            if not -(2**63) <= value < 2**63:
                raise CypherSyntaxError(f"the integer {value} is too large (64-bit integers)")
            return V(str(value), INT)
        if isinstance(value, float):
            return V(self.statement.bind(value), FLOAT)
        return V(self.statement.bind(value), STR)

    def parameter(self, name: str) -> V:
        if name not in self.statement.params:
            raise CypherSyntaxError(f"parameter ${name} is not given (pass it in `params`)")
        value = self.statement.params[name]
        if isinstance(value, (list, dict)):
            import json

            return V(self.statement.bind(json.dumps(value)), json_type(value))
        return self.literal(value)

    def map_literal(self, items: tuple[tuple[str, s.Expr], ...], part: Part) -> V:
        values = [(key, self.language.expr(value, part)) for key, value in items]
        for key, _ in values:
            if key.startswith("~"):
                raise NotInSubset("map keys starting with '~'")
        pairs = ", ".join(f"{self.statement.bind(key)}, {to_container(v.sql, v.type)}" for key, v in values)
        return V(f"json_object({pairs})", T("map", fields=tuple((k, v.type) for k, v in values)))

    def has_label(self, node: V, label: str, part: Part) -> str:
        """SQL true when the node has `label`: every node is `:CodeNode`, a node of a kind of the
        fixed set is labelled by its kind (a stub has none), and no node has another label."""
        if label == tables.LABEL:
            return "1"
        if label not in tables.KIND_LABELS:
            return "0"
        return f"coalesce(({self.property(node, 'kind', part).sql}) = {self.statement.bind(label)}, 0)"

    # -- properties and subscripts ---------------------------------------------------------------

    def property(self, subject: V, key: str, part: Part) -> V:
        kind = subject.type.kind
        if kind == "node":
            if key not in tables.NODE_COLUMNS:
                return V("NULL", NULL)
            return V(self.node_read(subject, "{a}." + key), tables.NODE_COLUMNS[key])
        if kind == "rel":
            if key == "project":
                return V(self.rel_read(subject, "(SELECT project FROM nodes WHERE rid = {a}.source)"), STR)
            if key in tables.EDGE_COLUMNS:
                return V(self.rel_read(subject, "{a}." + key), tables.EDGE_COLUMNS[key])
            return V(self.rel_read(subject, f"json_extract({{a}}.properties, {self.statement.bind(json_key(key))})"), ANY)
        if kind == "map":
            return V(extract(subject.sql, self.statement.bind(json_key(key)), subject.type.field(key)), subject.type.field(key))
        if kind == "null":
            return V("NULL", NULL)
        raise NotInSubset(f"a property of a {subject.type}")

    def index(self, e: s.Index, part: Part) -> V:
        subject = self.language.expr(e.subject, part)
        if isinstance(e.index, s.Lit) and isinstance(e.index.value, str) and subject.type.kind in ("node", "rel", "map"):
            return self.property(subject, e.index.value, part)
        index = self.language.expr(e.index, part)
        if subject.type.kind == "list" and index.type.kind in ("int", "null"):
            elem = subject.type.elem or ANY
            path = f"CASE WHEN ({index.sql}) < 0 THEN '$[#' || ({index.sql}) || ']' ELSE '$[' || ({index.sql}) || ']' END"
            return V(extract(subject.sql, path, elem), elem)
        if subject.type.kind == "map" and index.type.kind == "str":
            return V(f"json_extract({subject.sql}, '$.\"' || replace({index.sql}, '\"', '\\\"') || '\"')", ANY)
        raise NotInSubset(f"indexing a {subject.type} with a {index.type}")

    # -- operators -------------------------------------------------------------------------------

    def operator(self, e: s.Op, part: Part) -> V:  # noqa: C901
        op = e.op
        args = [self.language.expr(a, part) for a in e.args]
        a = args[0]
        if op in ("and", "or", "xor", "not"):
            for arg in args:
                boolean(arg, op.upper())
        if op in ("and", "or"):
            return V(f"(({a.sql}) {op.upper()} ({args[1].sql}))", BOOL)
        if op == "not":
            return V(f"(NOT ({a.sql}))", BOOL)
        if op == "xor":
            b = args[1]
            return V(f"(CASE WHEN ({a.sql}) IS NULL OR ({b.sql}) IS NULL THEN NULL ELSE ({a.sql}) <> ({b.sql}) END)", BOOL)
        if op == "is_null":
            return V(f"(({a.sql}) IS NULL)", BOOL)
        if op == "is_not_null":
            return V(f"(({a.sql}) IS NOT NULL)", BOOL)
        if op == "neg":
            numeric(a, "-")
            return V(f"(-({a.sql}))", a.type)
        b = args[1]
        if op in ("=", "<>"):
            if not comparable(a.type, b.type):
                return V(f"(CASE WHEN ({a.sql}) IS NULL OR ({b.sql}) IS NULL THEN NULL ELSE {int(op == '<>')} END)", BOOL)
            if a.type.kind in ("list", "map") or b.type.kind in ("list", "map"):
                return V(f"(cy_equal({a.sql}, {b.sql}) {'= 1' if op == '=' else '= 0'})", BOOL)
            hint = self.lowered(a, b, "=") if op == "=" else None
            return V(f"(({a.sql}) {op} ({b.sql}){hint or ''})", BOOL)
        if op in ("<", "<=", ">", ">="):
            if not orderable(a.type, b.type):
                return V("NULL", BOOL)
            return V(f"(({a.sql}) {op} ({b.sql}))", BOOL)
        if op in ("starts", "ends", "contains"):
            if {a.type.kind, b.type.kind} - {"str", "null", "any"}:
                return V("NULL", BOOL)
            if a.type.kind == "any" or b.type.kind == "any":
                return V(f"cy_{op}({a.sql}, {b.sql})", BOOL)
            if op == "contains":
                return V(f"(instr({a.sql}, {b.sql}) > 0)", BOOL)
            if op == "ends":
                return V(f"(substr({a.sql}, -length({b.sql})) = ({b.sql}) OR length({b.sql}) = 0 AND ({a.sql}) IS NOT NULL)", BOOL)
            return V(f"(substr({a.sql}, 1, length({b.sql})) = ({b.sql}){self.lowered(a, b, 'starts') or ''})", BOOL)
        if op == "regex":
            return V(f"cy_regex({a.sql}, {b.sql})", BOOL)
        if op == "in":
            return self.membership(a, b, e.args[1])
        if op == "+":
            return self.plus(a, b)
        if op in ("-", "*", "/", "%"):
            numeric(a, op)
            numeric(b, op)
            typ = INT if a.type.kind == b.type.kind == "int" else FLOAT if "float" in (a.type.kind, b.type.kind) else NUM
            if op == "/":
                return V(f"cy_divide({a.sql}, {b.sql})", typ)
            if op == "%":
                return V(f"cy_modulo({a.sql}, {b.sql})", typ)
            return V(f"(({a.sql}) {op} ({b.sql}))", typ)
        if op == "^":
            numeric(a, op)
            numeric(b, op)
            return V(f"cy_pow({a.sql}, {b.sql})", FLOAT)
        raise NotInSubset(f"the operator {op}")

    def lowered(self, a: V, b: V, how: str) -> str | None:
        """`n.name = 'x'` / `n.name STARTS WITH 'x'` also as a condition on the indexed lower-case
        column (name_lower = name.lower(), as the store writes it): implied by the comparison,
        so adding it changes no answer, and a scan of the project becomes an index seek."""
        column = _INDEXED_LOWER.fullmatch(a.sql)
        value = self.statement.sql_params.get(b.sql[1:]) if b.sql.startswith(":") else None
        if column is None or not isinstance(value, str):
            return None
        alias, key = column.groups()
        lower = self.statement.bind(value.lower())
        lowered = f"{alias}.{'name_lower' if key == 'name' else 'qn_lower'}"
        if how == "=":
            return f" AND {lowered} = {lower}"
        return f" AND {lowered} >= {lower} AND {lowered} < {lower} || char(1114111)"

    def membership(self, item: V, container: V, source: s.Expr) -> V:
        if container.type.kind == "null":
            return V("NULL", BOOL)
        if container.type.kind != "list":
            raise NotInSubset(f"IN over a {container.type}")
        elem = container.type.elem or ANY
        if elem.kind in ("list", "map", "mixed", "any", "bool") or not comparable(item.type, elem):
            # Cypher's own equality, element by element, on the container forms.
            return V(f"cy_in(json_quote({to_container(item.sql, item.type)}), {container.sql})", BOOL)
        values = from_container("value", elem)
        return V(f"(({item.sql}) IN (SELECT {values} FROM json_each({container.sql})))", BOOL)

    def plus(self, a: V, b: V) -> V:
        kinds = {a.type.kind, b.type.kind}
        if kinds <= NUMBERS:
            typ = INT if kinds == {"int"} else FLOAT if "float" in kinds else NUM
            return V(f"(({a.sql}) + ({b.sql}))", typ)
        if "list" in kinds:
            left = a.sql if a.type.kind == "list" else f"json_array({to_container(a.sql, a.type)})"
            right = b.sql if b.type.kind == "list" else f"json_array({to_container(b.sql, b.type)})"
            elem = unify([t.elem or ANY if t.kind == "list" else t for t in (a.type, b.type)])
            return V(f"cy_concat({left}, {right})", list_of(elem))
        if kinds <= {"str", "int", "float", "num", "null"} and "str" in kinds:
            return V(f"cy_string_plus({a.sql}, {b.sql})", STR)
        if "null" in kinds:
            return V("NULL", NULL)
        raise NotInSubset(f"+ between a {a.type} and a {b.type}")

    # -- conditional and list expressions ---------------------------------------------------------

    def case(self, e: s.Case, part: Part) -> V:
        subject = self.language.expr(e.subject, part) if e.subject is not None else None
        parts, types = [], []
        for condition, value in e.whens:
            if subject is not None:
                test = self.operator(s.Op("=", (e.subject, condition)), part)  # type: ignore[arg-type]
            else:
                test = self.language.expr(condition, part)
            result = self.language.expr(value, part)
            types.append(result.type)
            parts.append(f"WHEN {test.sql} THEN {result.sql}")
        default = self.language.expr(e.default, part) if e.default is not None else V("NULL", NULL)
        types.append(default.type)
        typ = unify(types)
        if typ.kind == "mixed":
            raise NotInSubset("CASE branches of different types")
        return V(f"(CASE {' '.join(parts)} ELSE {default.sql} END)", typ)

    def comprehension(self, e: s.ListComp, part: Part) -> V:
        source = self.language.expr(e.source, part)
        if source.type.kind == "null":
            return V("NULL", NULL if e.quantifier is None else BOOL)
        if source.type.kind != "list":
            raise NotInSubset(f"a list comprehension over a {source.type}")
        elem = source.type.elem or ANY
        each = self.statement.fresh("je")
        inner = part.child()
        inner.bind(e.var, V(from_container(f"{each}.value", elem), elem))
        where = self.language.expr(e.where, inner).sql if e.where is not None else "1"
        table = f"json_each({source.sql}) AS {each}"
        if e.quantifier is not None:
            exists = f"EXISTS (SELECT 1 FROM {table} WHERE ({where}))"
            unknown = f"EXISTS (SELECT 1 FROM {table} WHERE ({where}) IS NULL)"
            if e.quantifier in ("any", "none"):
                sql = f"(CASE WHEN {exists} THEN 1 WHEN {unknown} THEN NULL ELSE 0 END)"
                return V(sql if e.quantifier == "any" else f"(NOT {sql})", BOOL)
            failing = f"EXISTS (SELECT 1 FROM {table} WHERE NOT ({where}))"
            if e.quantifier == "all":
                return V(f"(CASE WHEN {failing} THEN 0 WHEN {unknown} THEN NULL ELSE 1 END)", BOOL)
            count = f"(SELECT count(*) FROM {table} WHERE ({where}))"
            return V(f"(CASE WHEN {count} > 1 THEN 0 WHEN {unknown} THEN NULL ELSE {count} = 1 END)", BOOL)
        projected = self.language.expr(e.projection, inner) if e.projection is not None else inner.lookup(e.var)
        assert projected is not None
        values = to_container(projected.sql, projected.type)
        body = f"(SELECT coalesce(cy_collect(json_quote({values})), '[]') FROM {table} WHERE ({where}))"
        return V(f"(CASE WHEN ({source.sql}) IS NULL THEN NULL ELSE {body} END)", list_of(projected.type))

    def map_projection(self, e: s.MapProj, part: Part) -> V:
        subject = self.language.expr(e.subject, part)
        if subject.type.kind not in ("node", "rel", "map"):
            raise NotInSubset(f"a map projection of a {subject.type}")
        base = None
        pairs: list[str] = []
        fields: list[tuple[str, T]] = []
        for item in e.items:
            if item[0] == "all":
                base = self.language.call(s.Call("properties", (e.subject,)), part)
                fields.extend(base.type.fields or ())
                continue
            if item[0] == "prop":
                key, value = item[1], self.property(subject, item[1], part)
            elif item[0] == "var":
                key, value = item[1], self.language.expr(s.Var(item[1]), part)
            else:
                key, value = item[1], self.language.expr(item[2], part)
            if key.startswith("~"):
                raise NotInSubset("map keys starting with '~'")
            pairs.append(f"{self.statement.bind(key)}, {to_container(value.sql, value.type)}")
            fields.append((key, value.type))
        built = f"json_object({', '.join(pairs)})"
        if base is not None:
            built = f"cy_merge({base.sql}, {built})" if pairs else base.sql
        known = None if base is not None and base.type.fields is None else tuple(dict(fields).items())
        return V(f"CASE WHEN ({subject.sql}) IS NULL THEN NULL ELSE {built} END", T("map", fields=known))

    # -- rows of nodes and relationships carried over by WITH -----------------------------------

    def node_read(self, value: V, template: str) -> str:
        """`template` (SQL reading the node's row as `{a}`) for this node: through its row in the
        FROM clause, joined now if the node was carried over by WITH, or a lookup by row id for a
        node taken from a list or a path."""
        if value.alias is None and value.owner is not None:
            value.alias = self.statement.fresh("n")
            value.owner.left_join("nodes", value.alias, f"{value.alias}.rid = {value.sql}")
        if value.alias is not None:
            return template.replace("{a}", value.alias)
        row = self.statement.fresh("nq")
        return f"(SELECT {template.replace('{a}', row)} FROM nodes AS {row} WHERE {row}.rid = {value.sql} AND {row}.project IN {tables.SCOPE})"

    def rel_read(self, value: V, template: str) -> str:
        """`template` (SQL reading the relationship's `edges` row as `{a}`), as node_read."""
        if value.alias is None and value.owner is not None:
            value.alias = self.statement.fresh("e")
            value.owner.left_join("edges", value.alias, edge_row(value.alias, value.sql))
        if value.alias is not None:
            return template.replace("{a}", value.alias)
        row = self.statement.fresh("eq")
        return f"(SELECT {template.replace('{a}', row)} FROM edges AS {row} WHERE {edge_row(row, value.sql)})"


def edge_row(alias: str, rel_sql: str) -> str:
    return " AND ".join(
        f"{alias}.{column} = json_extract({rel_sql}, '$[{i}]')" for i, column in enumerate(("source", "relation", "target"))
    )
