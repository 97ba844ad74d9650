"""Cypher expressions as SQLite expressions (value forms: sql_types.py). Used by sql.py's Compiler.

Functions SQLite lacks or computes differently from Cypher (Unicode case mapping, regular
expressions, float rounding, list helpers) are Python functions the runner registers on its
connection (sql_functions.py), all named `cy_*`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rhumbline.cypher import sql_schema as schema
from rhumbline.cypher import syntax as s
from rhumbline.cypher.parser import CypherSyntaxError, NotInSubset
from rhumbline.cypher.sql_types import (
    ANY,
    BOOL,
    FLOAT,
    INT,
    NODE,
    NULL,
    NUM,
    NUMBERS,
    REL,
    STR,
    T,
    extract,
    from_container,
    list_of,
    to_container,
    unify,
)

if TYPE_CHECKING:
    from rhumbline.cypher.sql import Compiler

_INDEXED_LOWER = re.compile(r"(n\d+)\.(name|qualified_name)")
AGGREGATES = frozenset({"count", "collect", "min", "max", "avg", "sum"})
_STRING_FUNCTIONS = {  # name -> (SQL function, arity)
    "tolower": ("cy_lower", 1), "toupper": ("cy_upper", 1), "trim": ("cy_trim", 1),
    "ltrim": ("cy_ltrim", 1), "rtrim": ("cy_rtrim", 1),
}  # fmt: skip
_MATH_FUNCTIONS = {"abs": NUM, "ceil": FLOAT, "floor": FLOAT, "round": FLOAT, "sign": INT, "sqrt": FLOAT}


@dataclass(eq=False)
class V:
    """A compiled value: SQL text and static type. Nodes and relationships matched in a part keep
    the alias of their `nodes`/`edges` row (property reads use it); `owner` is the part whose FROM
    can join that row when there is no alias yet (a value carried over by WITH)."""

    sql: str
    type: T
    alias: str | None = None
    owner: Any = None
    origin: s.NodePattern | None = field(default=None)  # the pattern that introduced a node


def contains_aggregate(expr: Any) -> bool:
    if isinstance(expr, s.Call) and expr.name in AGGREGATES:
        return True
    if isinstance(expr, (s.ListComp, s.PatternComp, s.Subquery)):
        return False  # their aggregates (if any) are their own
    return any(contains_aggregate(child) for child in _children(expr))


def _children(expr: Any) -> list[Any]:
    if isinstance(expr, tuple):
        return [c for item in expr for c in (_children(item) if isinstance(item, tuple) else [item])]
    if not hasattr(expr, "__dataclass_fields__"):
        return []
    found = []
    for name in expr.__dataclass_fields__:
        value = getattr(expr, name)
        if isinstance(value, tuple):
            found.extend(_children(value))
        elif hasattr(value, "__dataclass_fields__"):
            found.append(value)
    return found


class ExpressionCompiler:
    """Mixed into sql.Compiler: `expr(e, part)` compiles an expression in a part's scope."""

    def expr(self: Compiler, e: s.Expr, part: Any) -> V:  # noqa: C901 (one dispatch)
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
            return self.property(self.expr(e.subject, part), e.key, part)
        if isinstance(e, s.Index):
            return self.index(e, part)
        if isinstance(e, s.Slice):
            subject = self.expr(e.subject, part)
            if subject.type.kind not in ("list", "null"):
                raise NotInSubset(f"slicing a {subject.type}")
            start = self.expr(e.start, part).sql if e.start is not None else "NULL"
            end = self.expr(e.end, part).sql if e.end is not None else "NULL"
            return V(f"cy_slice({subject.sql}, {start}, {end}, {int(e.start is None)}, {int(e.end is None)})", subject.type)
        if isinstance(e, s.ListExpr):
            items = [self.expr(item, part) for item in e.items]
            inner = ", ".join(to_container(v.sql, v.type) for v in items)
            return V(f"json_array({inner})", list_of(unify([v.type for v in items]) if items else ANY))
        if isinstance(e, s.MapExpr):
            return self.map_literal(e.items, part)
        if isinstance(e, s.Op):
            return self.operator(e, part)
        if isinstance(e, s.HasLabels):
            subject = self.expr(e.subject, part)
            if subject.type.kind != "node":
                raise NotInSubset(f"a label test on a {subject.type}")
            holds = "1" if all(label == schema.LABEL for label in e.labels) else "0"
            return V(f"CASE WHEN ({subject.sql}) IS NULL THEN NULL ELSE {holds} END", BOOL)
        if isinstance(e, s.Call):
            return self.call(e, part)
        if isinstance(e, s.Case):
            return self.case(e, part)
        if isinstance(e, s.ListComp):
            return self.comprehension(e, part)
        if isinstance(e, s.PatternComp):
            return self.pattern_comprehension(e, part)
        if isinstance(e, s.MapProj):
            return self.map_projection(e, part)
        if isinstance(e, s.Subquery):
            return self.subquery(e, part)
        raise NotInSubset(type(e).__name__)

    # -- atoms -----------------------------------------------------------------------------------

    def literal(self: Compiler, value: Any) -> V:
        if value is None:
            return V("NULL", NULL)
        if isinstance(value, bool):
            return V("1" if value else "0", BOOL)
        if isinstance(value, int):
            if not -(2**63) <= value < 2**63:
                raise CypherSyntaxError(f"the integer {value} is too large (64-bit integers)")
            return V(str(value), INT)
        if isinstance(value, float):
            return V(self.bind(value), FLOAT)
        return V(self.bind(value), STR)

    def parameter(self: Compiler, name: str) -> V:
        if name not in self.params:
            raise CypherSyntaxError(f"parameter ${name} is not given (pass it in `params`)")
        value = self.params[name]
        if isinstance(value, (list, dict)):
            import json

            return V(self.bind(json.dumps(value)), _json_type(value))
        return self.literal(value)

    def map_literal(self: Compiler, items: tuple[tuple[str, s.Expr], ...], part: Any) -> V:
        values = [(key, self.expr(value, part)) for key, value in items]
        for key, _ in values:
            if key.startswith("~"):
                raise NotInSubset("map keys starting with '~'")
        pairs = ", ".join(f"{self.bind(key)}, {to_container(v.sql, v.type)}" for key, v in values)
        return V(f"json_object({pairs})", T("map", fields=tuple((k, v.type) for k, v in values)))

    # -- properties and subscripts ---------------------------------------------------------------

    def property(self: Compiler, subject: V, key: str, part: Any) -> V:
        kind = subject.type.kind
        if kind == "node":
            if key not in schema.NODE_COLUMNS:
                return V("NULL", NULL)
            return V(self.node_read(subject, "{a}." + key), schema.NODE_COLUMNS[key])
        if kind == "rel":
            if key == "project":
                return V(self.rel_read(subject, "(SELECT project FROM nodes WHERE rid = {a}.source)"), STR)
            if key in schema.EDGE_COLUMNS:
                return V(self.rel_read(subject, "{a}." + key), schema.EDGE_COLUMNS[key])
            return V(self.rel_read(subject, f"json_extract({{a}}.properties, {self.bind(_json_key(key))})"), ANY)
        if kind == "map":
            return V(extract(subject.sql, self.bind(_json_key(key)), subject.type.field(key)), subject.type.field(key))
        if kind == "null":
            return V("NULL", NULL)
        raise NotInSubset(f"a property of a {subject.type}")

    def index(self: Compiler, e: s.Index, part: Any) -> V:
        subject = self.expr(e.subject, part)
        if isinstance(e.index, s.Lit) and isinstance(e.index.value, str) and subject.type.kind in ("node", "rel", "map"):
            return self.property(subject, e.index.value, part)
        index = self.expr(e.index, part)
        if subject.type.kind == "list" and index.type.kind in ("int", "null"):
            elem = subject.type.elem or ANY
            path = f"CASE WHEN ({index.sql}) < 0 THEN '$[#' || ({index.sql}) || ']' ELSE '$[' || ({index.sql}) || ']' END"
            return V(extract(subject.sql, path, elem), elem)
        if subject.type.kind == "map" and index.type.kind == "str":
            return V(f"json_extract({subject.sql}, '$.\"' || replace({index.sql}, '\"', '\\\"') || '\"')", ANY)
        raise NotInSubset(f"indexing a {subject.type} with a {index.type}")

    # -- operators -------------------------------------------------------------------------------

    def operator(self: Compiler, e: s.Op, part: Any) -> V:  # noqa: C901
        op = e.op
        args = [self.expr(a, part) for a in e.args]
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
            _numeric(a, "-")
            return V(f"(-({a.sql}))", a.type)
        b = args[1]
        if op in ("=", "<>"):
            if not _comparable(a.type, b.type):
                return V(f"(CASE WHEN ({a.sql}) IS NULL OR ({b.sql}) IS NULL THEN NULL ELSE {int(op == '<>')} END)", BOOL)
            if a.type.kind in ("list", "map") or b.type.kind in ("list", "map"):
                return V(f"(cy_equal({a.sql}, {b.sql}) {'= 1' if op == '=' else '= 0'})", BOOL)
            hint = self.lowered(a, b, "=") if op == "=" else None
            return V(f"(({a.sql}) {op} ({b.sql}){hint or ''})", BOOL)
        if op in ("<", "<=", ">", ">="):
            if not _orderable(a.type, b.type):
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
            _numeric(a, op)
            _numeric(b, op)
            typ = INT if a.type.kind == b.type.kind == "int" else FLOAT if "float" in (a.type.kind, b.type.kind) else NUM
            if op == "/":
                return V(f"cy_divide({a.sql}, {b.sql})", typ)
            if op == "%":
                return V(f"cy_modulo({a.sql}, {b.sql})", typ)
            return V(f"(({a.sql}) {op} ({b.sql}))", typ)
        if op == "^":
            _numeric(a, op)
            _numeric(b, op)
            return V(f"cy_pow({a.sql}, {b.sql})", FLOAT)
        raise NotInSubset(f"the operator {op}")

    def lowered(self: Compiler, a: V, b: V, how: str) -> str | None:
        """`n.name = 'x'` / `n.name STARTS WITH 'x'` also as a condition on the indexed lower-case
        column (name_lower = name.lower(), as the store writes it): implied by the comparison,
        so adding it changes no answer, and a scan of the project becomes an index seek."""
        column = _INDEXED_LOWER.fullmatch(a.sql)
        value = self.sql_params.get(b.sql[1:]) if b.sql.startswith(":") else None
        if column is None or not isinstance(value, str):
            return None
        alias, key = column.groups()
        lower = self.bind(value.lower())
        lowered = f"{alias}.{'name_lower' if key == 'name' else 'qn_lower'}"
        if how == "=":
            return f" AND {lowered} = {lower}"
        return f" AND {lowered} >= {lower} AND {lowered} < {lower} || char(1114111)"

    def membership(self: Compiler, item: V, container: V, source: s.Expr) -> V:
        if container.type.kind == "null":
            return V("NULL", BOOL)
        if container.type.kind != "list":
            raise NotInSubset(f"IN over a {container.type}")
        elem = container.type.elem or ANY
        if elem.kind in ("list", "map", "mixed", "any", "bool") or not _comparable(item.type, elem):
            # Cypher's own equality, element by element, on the container forms.
            return V(f"cy_in(json_quote({to_container(item.sql, item.type)}), {container.sql})", BOOL)
        values = from_container("value", elem)
        return V(f"(({item.sql}) IN (SELECT {values} FROM json_each({container.sql})))", BOOL)

    def plus(self: Compiler, a: V, b: V) -> V:
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

    # -- functions -------------------------------------------------------------------------------

    def call(self: Compiler, e: s.Call, part: Any) -> V:  # noqa: C901
        name = e.name
        if name in AGGREGATES:
            return self.aggregate(e, part)
        if e.distinct:
            raise NotInSubset(f"DISTINCT in {name}()")
        args = [self.expr(a, part) for a in e.args]
        arity = {"substring": (2, 3), "range": (2, 3), "round": (1, 1), "coalesce": (1, 99), "replace": (3, 3),
                 "split": (2, 2), "left": (2, 2), "right": (2, 2)}.get(name, (1, 1))  # fmt: skip
        if not arity[0] <= len(args) <= arity[1]:
            raise CypherSyntaxError(f"{name}() takes {arity[0]}{'' if arity[0] == arity[1] else '..' + str(arity[1])} arguments, not {len(args)}")
        a = args[0]
        kind = a.type.kind
        if name in ("id", "elementid"):
            if kind == "node":
                return V(a.sql if name == "id" else f"('n:' || ({a.sql}))", INT if name == "id" else STR)
            if kind == "rel" and name == "elementid":
                return V(f"cy_rel_element_id({a.sql})", STR)
            raise NotInSubset(f"{name}() of a {a.type}")
        if name == "labels":
            _expect(a, "node", name)
            return V(f"CASE WHEN ({a.sql}) IS NULL THEN NULL ELSE json_array('{schema.LABEL}') END", list_of(STR))
        if name == "type":
            _expect(a, "rel", name)
            return V(f"json_extract({a.sql}, '$[1]')", STR)
        if name in ("startnode", "endnode"):
            _expect(a, "rel", name)
            return V(f"json_extract({a.sql}, '$[{0 if name == 'startnode' else 2}]')", NODE)
        if name == "properties":
            if kind == "node":
                props = self.node_read(a, schema.node_properties("{a}"))
                return V(f"CASE WHEN ({a.sql}) IS NULL THEN NULL ELSE {props} END", schema.NODE_MAP)
            if kind == "rel":
                props = self.rel_read(a, schema.edge_properties("{a}", "(SELECT project FROM nodes WHERE rid = {a}.source)"))
                return V(f"CASE WHEN ({a.sql}) IS NULL THEN NULL ELSE {props} END", schema.EDGE_MAP)
            if kind == "map":
                return a
            raise NotInSubset(f"properties() of a {a.type}")
        if name == "keys":
            if kind in ("node", "rel"):
                a = self.call(s.Call("properties", (e.args[0],)), part)
            elif kind != "map":
                raise NotInSubset(f"keys() of a {a.type}")
            return V(f"cy_keys({a.sql})", list_of(STR))
        if name in ("size", "length"):
            if kind == "str" and name == "size":
                return V(f"length({a.sql})", INT)
            if kind == "list" and name == "size":
                return V(f"json_array_length({a.sql})", INT)
            if kind == "path" and name == "length":
                return V(f"json_array_length({a.sql}, '$[1]')", INT)
            if kind == "null":
                return V("NULL", NULL)
            raise NotInSubset(f"{name}() of a {a.type}")
        if name in ("nodes", "relationships"):
            _expect(a, "path", name)
            return V(f"json_extract({a.sql}, '$[{0 if name == 'nodes' else 1}]')", list_of(NODE if name == "nodes" else REL))
        if name == "coalesce":
            typ = unify([v.type for v in args])
            if typ.kind == "mixed":
                raise NotInSubset("coalesce() of values of different types")
            joined = ", ".join(v.sql for v in args)
            return V(f"coalesce({joined}, NULL)", typ)
        if name in _STRING_FUNCTIONS:
            return V(f"{_STRING_FUNCTIONS[name][0]}({a.sql})", STR)
        if name == "tostring":
            if kind == "bool":
                return V(f"CASE WHEN ({a.sql}) IS NULL THEN NULL WHEN ({a.sql}) THEN 'true' ELSE 'false' END", STR)
            if kind not in ("str", "int", "float", "num", "null", "any"):
                raise NotInSubset(f"toString() of a {a.type}")
            return V(f"cy_to_string({a.sql})", STR)
        if name in ("tointeger", "tofloat"):
            if kind not in ("str", "int", "float", "num", "null", "bool", "any"):
                raise NotInSubset(f"{name}() of a {a.type}")
            return V(f"cy_{name}({a.sql}, {int(kind == 'bool')})", INT if name == "tointeger" else FLOAT)
        if name == "substring":
            length = f", {args[2].sql}" if len(args) == 3 else ""
            return V(f"cy_substring({a.sql}, {args[1].sql}{length})", STR)
        if name in ("left", "right", "replace", "split"):
            joined = ", ".join(v.sql for v in args)
            return V(f"cy_{name}({joined})", list_of(STR) if name == "split" else STR)
        if name == "reverse":
            if kind == "list":
                return V(f"cy_reverse_list({a.sql})", a.type)
            return V(f"cy_reverse({a.sql})", STR)
        if name in _MATH_FUNCTIONS:
            _numeric(a, name)
            typ = a.type if name == "abs" else _MATH_FUNCTIONS[name]
            return V(f"cy_{name}({a.sql})", typ)
        if name in ("head", "last"):
            _expect(a, "list", name)
            elem = a.type.elem or ANY
            return V(extract(a.sql, "'$[0]'" if name == "head" else "'$[#-1]'", elem), elem)
        if name == "tail":
            _expect(a, "list", name)
            return V(f"json_remove({a.sql}, '$[0]')", a.type)
        if name == "range":
            step = args[2].sql if len(args) == 3 else "1"
            return V(f"cy_range({a.sql}, {args[1].sql}, {step})", list_of(INT))
        if name == "isempty":
            if kind == "list":
                return V(f"(json_array_length({a.sql}) = 0)", BOOL)
            if kind == "str":
                return V(f"(length({a.sql}) = 0)", BOOL)
            raise NotInSubset(f"isEmpty() of a {a.type}")
        raise NotInSubset(f"the function {name}()")

    def aggregate(self: Compiler, e: s.Call, part: Any) -> V:
        name = e.name
        if e.star:
            return V("count(*)", INT)
        if len(e.args) != 1:
            raise CypherSyntaxError(f"{name}() takes one argument")
        if contains_aggregate(e.args[0]):
            raise CypherSyntaxError("an aggregate inside an aggregate")
        a = self.expr(e.args[0], part)
        distinct = "DISTINCT " if e.distinct else ""
        if name == "count":
            return V(f"count({distinct}{a.sql})", INT)
        if name == "collect":
            element = to_container(a.sql, a.type)
            return V(f"json_group_array({distinct}{element}) FILTER (WHERE ({a.sql}) IS NOT NULL)", list_of(a.type))
        if name in ("min", "max"):
            if a.type.kind not in ("int", "float", "num", "str", "null", "any"):
                raise NotInSubset(f"{name}() of a {a.type}")
            return V(f"{name}({distinct}{a.sql})", a.type)
        _numeric(a, name)
        if name == "avg":
            return V(f"avg({distinct}{a.sql})", FLOAT)
        return V(f"coalesce(sum({distinct}{a.sql}), 0)", a.type if a.type.kind != "null" else INT)

    # -- conditional and list expressions ---------------------------------------------------------

    def case(self: Compiler, e: s.Case, part: Any) -> V:
        subject = self.expr(e.subject, part) if e.subject is not None else None
        parts, types = [], []
        for condition, value in e.whens:
            if subject is not None:
                test = self.operator(s.Op("=", (e.subject, condition)), part)  # type: ignore[arg-type]
            else:
                test = self.expr(condition, part)
            result = self.expr(value, part)
            types.append(result.type)
            parts.append(f"WHEN {test.sql} THEN {result.sql}")
        default = self.expr(e.default, part) if e.default is not None else V("NULL", NULL)
        types.append(default.type)
        typ = unify(types)
        if typ.kind == "mixed":
            raise NotInSubset("CASE branches of different types")
        return V(f"(CASE {' '.join(parts)} ELSE {default.sql} END)", typ)

    def comprehension(self: Compiler, e: s.ListComp, part: Any) -> V:
        source = self.expr(e.source, part)
        if source.type.kind == "null":
            return V("NULL", NULL if e.quantifier is None else BOOL)
        if source.type.kind != "list":
            raise NotInSubset(f"a list comprehension over a {source.type}")
        elem = source.type.elem or ANY
        each = self.fresh("je")
        inner = part.child()
        inner.bind(e.var, V(from_container(f"{each}.value", elem), elem))
        where = self.expr(e.where, inner).sql if e.where is not None else "1"
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
        projected = self.expr(e.projection, inner) if e.projection is not None else inner.lookup(e.var)
        assert projected is not None
        values = to_container(projected.sql, projected.type)
        body = f"(SELECT json_group_array({values}) FROM {table} WHERE ({where}))"
        return V(f"(CASE WHEN ({source.sql}) IS NULL THEN NULL ELSE {body} END)", list_of(projected.type))

    def map_projection(self: Compiler, e: s.MapProj, part: Any) -> V:
        subject = self.expr(e.subject, part)
        if subject.type.kind not in ("node", "rel", "map"):
            raise NotInSubset(f"a map projection of a {subject.type}")
        base = None
        pairs: list[str] = []
        fields: list[tuple[str, T]] = []
        for item in e.items:
            if item[0] == "all":
                base = self.call(s.Call("properties", (e.subject,)), part)
                fields.extend(base.type.fields or ())
                continue
            if item[0] == "prop":
                key, value = item[1], self.property(subject, item[1], part)
            elif item[0] == "var":
                key, value = item[1], self.expr(s.Var(item[1]), part)
            else:
                key, value = item[1], self.expr(item[2], part)
            if key.startswith("~"):
                raise NotInSubset("map keys starting with '~'")
            pairs.append(f"{self.bind(key)}, {to_container(value.sql, value.type)}")
            fields.append((key, value.type))
        built = f"json_object({', '.join(pairs)})"
        if base is not None:
            built = f"cy_merge({base.sql}, {built})" if pairs else base.sql
        known = None if base is not None and base.type.fields is None else tuple(dict(fields).items())
        return V(f"CASE WHEN ({subject.sql}) IS NULL THEN NULL ELSE {built} END", T("map", fields=known))


def _json_key(key: str) -> str:
    return '$."' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _json_type(value: Any) -> T:
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
        return list_of(unify([_json_type(v) for v in value]) if value else ANY)
    if isinstance(value, dict):
        if any(str(k).startswith("~") for k in value):
            raise NotInSubset("parameter map keys starting with '~'")
        return T("map", fields=tuple((str(k), _json_type(v)) for k, v in value.items()))
    raise CypherSyntaxError(f"unsupported parameter value {type(value).__name__}")


def boolean(v: V, where: str) -> V:
    """Neo4j fails a query whose predicate is not a boolean (`NOT 'x'`, `WHERE n.name`)."""
    if v.type.kind not in ("bool", "null", "any"):
        raise CypherSyntaxError(f"{where} needs a boolean, not a {v.type}")
    return v


def _numeric(v: V, op: str) -> None:
    if v.type.kind not in NUMBERS | {"null", "any"}:
        raise NotInSubset(f"{op} on a {v.type}")


def _expect(v: V, kind: str, name: str) -> None:
    if v.type.kind not in (kind, "null"):
        raise NotInSubset(f"{name}() of a {v.type}")


def _comparable(a: T, b: T) -> bool:
    """Values of these types can be equal (else `=` is false and `<>` true, unless one is null)."""
    if "null" in (a.kind, b.kind) or "any" in (a.kind, b.kind) or "mixed" in (a.kind, b.kind):
        return True
    if a.kind in NUMBERS and b.kind in NUMBERS:
        return True
    return a.kind == b.kind


def _orderable(a: T, b: T) -> bool:
    if "null" in (a.kind, b.kind) or "any" in (a.kind, b.kind):
        return True
    if a.kind in NUMBERS and b.kind in NUMBERS:
        return True
    return a.kind == b.kind and a.kind in ("str", "bool")
