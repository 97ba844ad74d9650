"""Cypher function calls and aggregates as SQLite expressions.

Functions SQLite lacks or computes differently from Cypher (Unicode case mapping, regular
expressions, float rounding, list helpers) are Python functions the runner registers on its
connection (functions.py), all named `cy_*`.
"""

from __future__ import annotations

import re

from rhumbline.cypher.sqlite import tables
from rhumbline.cypher import syntax as s
from rhumbline.cypher.parser import CypherSyntaxError, NotInSubset
from rhumbline.cypher.sqlite.expressions import Expressions
from rhumbline.cypher.sqlite.types import (
    ANY,
    BOOL,
    FLOAT,
    INT,
    NODE,
    NULL,
    NUM,
    REL,
    STR,
    extract,
    list_of,
    to_container,
    unify,
)
from rhumbline.cypher.sqlite.values import (
    Language,
    Part,
    AGGREGATES,
    V,
    contains_aggregate,
    expect,
    numeric,
)

STRING_FUNCTIONS = {  # name -> (SQL function, arity)
    "tolower": ("cy_lower", 1), "toupper": ("cy_upper", 1), "trim": ("cy_trim", 1),
    "ltrim": ("cy_ltrim", 1), "rtrim": ("cy_rtrim", 1),
}  # fmt: skip
MATH_FUNCTIONS = {"abs": NUM, "ceil": FLOAT, "floor": FLOAT, "round": FLOAT, "sign": INT, "sqrt": FLOAT}


class Calls:
    def __init__(self, expressions: Expressions, language: Language) -> None:
        self.expressions = expressions
        self.language = language

    def call(self, e: s.Call, part: Part) -> V:  # noqa: C901
        name = e.name
        if name in AGGREGATES:
            return self.aggregate(e, part)
        if e.distinct:
            raise NotInSubset(f"DISTINCT in {name}()")
        args = [self.language.expr(a, part) for a in e.args]
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
            expect(a, "node", name)
            kind = self.expressions.node_read(a, "{a}.kind")
            labels = (
                f"CASE WHEN ({kind}) IN {tables.KINDS_SQL} THEN json_array('{tables.LABEL}', {kind})"
                f" ELSE json_array('{tables.LABEL}') END"
            )
            return V(f"CASE WHEN ({a.sql}) IS NULL THEN NULL ELSE {labels} END", list_of(STR))
        if name == "type":
            expect(a, "rel", name)
            return V(f"json_extract({a.sql}, '$[1]')", STR)
        if name in ("startnode", "endnode"):
            expect(a, "rel", name)
            return V(f"json_extract({a.sql}, '$[{0 if name == 'startnode' else 2}]')", NODE)
        if name == "properties":
            if kind == "node":
                props = self.expressions.node_read(a, tables.node_properties("{a}"))
                return V(f"CASE WHEN ({a.sql}) IS NULL THEN NULL ELSE {props} END", tables.NODE_MAP)
            if kind == "rel":
                props = self.expressions.rel_read(a, tables.edge_properties("{a}", "(SELECT project FROM nodes WHERE rid = {a}.source)"))
                return V(f"CASE WHEN ({a.sql}) IS NULL THEN NULL ELSE {props} END", tables.EDGE_MAP)
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
            expect(a, "path", name)
            return V(f"json_extract({a.sql}, '$[{0 if name == 'nodes' else 1}]')", list_of(NODE if name == "nodes" else REL))
        if name == "coalesce":
            typ = unify([v.type for v in args])
            if typ.kind == "mixed":
                raise NotInSubset("coalesce() of values of different types")
            joined = ", ".join(v.sql for v in args)
            return V(f"coalesce({joined}, NULL)", typ)
        if name in STRING_FUNCTIONS:
            return V(f"{STRING_FUNCTIONS[name][0]}({a.sql})", STR)
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
        if name in MATH_FUNCTIONS:
            numeric(a, name)
            typ = a.type if name == "abs" else MATH_FUNCTIONS[name]
            return V(f"cy_{name}({a.sql})", typ)
        if name in ("head", "last"):
            expect(a, "list", name)
            elem = a.type.elem or ANY
            return V(extract(a.sql, "'$[0]'" if name == "head" else "'$[#-1]'", elem), elem)
        if name == "tail":
            expect(a, "list", name)
            return V(f"json_remove({a.sql}, '$[0]')", a.type)
        if name == "range":
            step = args[2].sql if len(args) == 3 else "1"
            _bounded_range(a.sql, args[1].sql, step)
            return V(f"cy_range({a.sql}, {args[1].sql}, {step})", list_of(INT))
        if name == "isempty":
            if kind == "list":
                return V(f"(json_array_length({a.sql}) = 0)", BOOL)
            if kind == "str":
                return V(f"(length({a.sql}) = 0)", BOOL)
            raise NotInSubset(f"isEmpty() of a {a.type}")
        raise NotInSubset(f"the function {name}()")

    def aggregate(self, e: s.Call, part: Part) -> V:
        name = e.name
        if e.star:
            return V("count(*)", INT)
        if len(e.args) != 1:
            raise CypherSyntaxError(f"{name}() takes one argument")
        if contains_aggregate(e.args[0]):
            raise CypherSyntaxError("an aggregate inside an aggregate")
        a = self.language.expr(e.args[0], part)
        distinct = "DISTINCT " if e.distinct else ""
        if name == "count":
            return V(f"count({distinct}{a.sql})", INT)
        if name == "collect":
            element = to_container(a.sql, a.type)
            return V(f"coalesce(cy_collect({distinct}json_quote({element})) FILTER (WHERE ({a.sql}) IS NOT NULL), '[]')", list_of(a.type))
        if name in ("min", "max"):
            if a.type.kind not in ("int", "float", "num", "str", "null", "any"):
                raise NotInSubset(f"{name}() of a {a.type}")
            return V(f"{name}({distinct}{a.sql})", a.type)
        numeric(a, name)
        if name == "avg":
            return V(f"avg({distinct}{a.sql})", FLOAT)
        return V(f"coalesce(sum({distinct}{a.sql}), 0)", a.type if a.type.kind != "null" else INT)


def _bounded_range(*bounds: str) -> None:
    """range() of constant bounds past the limit on a value, refused before it runs on either
    backend: the embedded store would refuse it when it ran, and on Neo4j a list built from it
    (`[x IN range(1, 300000000) | x]`) exhausts the server's heap, which
    db.memory.transaction.max does not count."""
    from rhumbline.cypher.budget import VALUE_BYTES
    from rhumbline.cypher.sqlite.functions import range_chars
    from rhumbline.errors import QueryTooLarge

    numbers = [re.sub(r"[()\s]", "", bound) for bound in bounds]
    if not all(re.fullmatch(r"-?\d+", number) for number in numbers):
        return
    start, end, step = (int(number) for number in numbers)
    if step != 0 and range_chars(start, end, step) > VALUE_BYTES:
        raise QueryTooLarge(
            f"range({start}, {end}, {step}) would be {range_chars(start, end, step):,} characters, over the "
            f"{VALUE_BYTES:,}-character limit on a value",
            details={"limit": "value_bytes", "value_bytes": VALUE_BYTES},
        )
