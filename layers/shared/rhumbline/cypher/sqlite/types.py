"""How Cypher values live in SQLite while a compiled query runs (compiler.py, expressions.py).

Each compiled expression has a static type, and its SQL value has a fixed form per type:

- node: the `nodes.rid` integer; relationship: JSON text `[source rid, "TYPE", target rid]` (the
  key of its `edges` row); path: JSON text `[[node, ...], [relationship, ...]]` in the container
  form below;
- boolean: 0/1 (SQL's own three-valued logic matches Cypher's); integer, float, string: native;
- list, map: JSON text whose elements are in *container form*: JSON true/false for booleans,
  `{"~n": rid}`, `{"~r": [...]}`, `{"~p": [...]}` for nodes, relationships and paths, anything
  else as itself. Decoding (runner.py) needs no type for what is inside a container.

`any` is a scalar whose type is known only at run time (an edge's extra property).
"""

from __future__ import annotations

from dataclasses import dataclass, field

SCALARS = frozenset({"int", "float", "num", "str", "bool", "any", "null"})
NUMBERS = frozenset({"int", "float", "num"})


@dataclass(frozen=True)
class T:
    kind: str  # node rel path bool int float num str list map any null
    elem: T | None = None  # lists: the elements' type, when known
    fields: tuple[tuple[str, T], ...] | None = field(default=None)  # maps: known keys

    def field(self, key: str) -> T:
        for name, typ in self.fields or ():
            if name == key:
                return typ
        return NULL if self.fields is not None else ANY

    def __str__(self) -> str:
        if self.kind == "list" and self.elem is not None:
            return f"list of {self.elem}"
        return {"rel": "relationship", "num": "number", "str": "string", "bool": "boolean"}.get(self.kind, self.kind)


NODE, REL, PATH = T("node"), T("rel"), T("path")
BOOL, INT, FLOAT, NUM, STR, ANY, NULL = T("bool"), T("int"), T("float"), T("num"), T("str"), T("any"), T("null")
LIST_ANY = T("list", ANY)


def list_of(elem: T | None) -> T:
    return T("list", elem if elem is not None else ANY)


def unify(types: list[T]) -> T:
    """The type of a value that is one of `types` (CASE branches, coalesce, list elements)."""
    known = [t for t in types if t.kind != "null"]
    if not known:
        return NULL
    first = known[0]
    if all(t == first for t in known):
        return first
    if all(t.kind in NUMBERS for t in known):
        return NUM
    if all(t.kind == "list" for t in known):
        return list_of(unify([t.elem or ANY for t in known]))
    if all(t.kind == "map" for t in known):
        return T("map")
    if all(t.kind in SCALARS and t.kind != "bool" for t in known):
        return ANY
    return T("mixed")


def to_container(sql: str, typ: T) -> str:
    """`sql` (of type `typ`) in container form, to go into json_array/json_object."""
    if typ.kind == "node":
        return f"CASE WHEN ({sql}) IS NULL THEN NULL ELSE json_object('~n', {sql}) END"
    if typ.kind in ("rel", "path"):
        tag = "~r" if typ.kind == "rel" else "~p"
        return f"CASE WHEN ({sql}) IS NULL THEN NULL ELSE json_object('{tag}', json({sql})) END"
    if typ.kind == "bool":
        return f"json(CASE WHEN ({sql}) THEN 'true' WHEN NOT ({sql}) THEN 'false' END)"
    if typ.kind in ("list", "map"):
        return f"json({sql})"
    return sql


def from_container(sql: str, typ: T) -> str:
    """A container-form JSON value `sql` (a json_each value, a json_extract result) as `typ`'s
    own form. Booleans come out as 1/0 from SQLite's JSON functions already."""
    if typ.kind == "node":
        return f"json_extract({sql}, '$.\"~n\"')"
    if typ.kind == "rel":
        return f"json_extract({sql}, '$.\"~r\"')"
    if typ.kind == "path":
        return f"json_extract({sql}, '$.\"~p\"')"
    return sql


def extract(json_sql: str, path_sql: str, typ: T) -> str:
    """The element at JSON path `path_sql` (an SQL string expression) of a container, as `typ`."""
    if typ.kind in ("node", "rel", "path"):
        tag = {"node": "~n", "rel": "~r", "path": "~p"}[typ.kind]
        return f"json_extract({json_sql}, {path_sql} || '.\"{tag}\"')"
    return f"json_extract({json_sql}, {path_sql})"
