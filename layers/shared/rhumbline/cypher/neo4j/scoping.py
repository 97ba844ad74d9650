"""A parsed query (syntax.py) written back as Cypher for Neo4j, every node bound to the caller's
projects: the Neo4j half of tenancy by construction (sqlite/compiler.py is the SQLite half).

Every node pattern that introduces a variable (anonymous ones get a generated name) becomes
`(v:...:CodeNode WHERE v.project IN $projects)`: the node must be a code node of one of the
graphs the caller is served (`$projects`, their physical keys, set by the runner). A pattern with
a variable-length relationship or a shortest path also gets a path variable and
`all(x IN nodes(p) WHERE x:CodeNode AND x.project IN $projects)` for the nodes inside it.
Schema procedures become subqueries over those nodes only (cypher/procedures.py). `RETURN *` and
`WITH *` are spelled out, so generated names never reach an answer.

No text of the caller's re-enters Cypher as text (Neo4j decodes `\\uXXXX` escapes everywhere
before it lexes, so no escaping of ours could be trusted to hold). The text is written from the
parsed form alone, every operator parenthesized, and holds only:
- labels of the graph's own only (schema.GRAPH_LABELS: `CodeNode` and the kind labels, a fixed
  set); any other label is renamed to a generated one, which no node has;
- names the writer made (prefix GENERATED, which the parser refuses in the caller's variables) or
  that match PLAIN, ASCII letters, digits and `_`; any other name is renamed to a generated one,
  the same for the same name throughout the query (UNION parts included), and `Scoped.names`
  maps it back for the answer's columns and map keys. A label, relationship type or property key
  renamed so is one no element has: the graph holds only plain ones (stores/graph/rows.py), so
  the pattern matches nothing and the property reads null, as the caller's name would;
- strings as parameters (`Scoped.strings`), never as literals; the caller's parameters under
  their own name when it is plain, else under a generated one (`Scoped.params`);
- numbers, function names and keywords written by the writer from the parsed form.

Every value the query builds is guarded by construction against budget.VALUE_BYTES (Neo4j's
`db.memory.transaction.max` does not count values built inside expressions, and building one too
large exhausts the server's heap): a `range()` of computed bounds, a `+`, a `replace()`, a
`split()` into characters and a list comprehension are written as
`CASE WHEN <the result's weight, computed from its operands> > <budget> THEN <abort> ELSE <it> END`,
the operands bound once each (`head([v IN [operand] | ...])`: Cypher has no `let`). The abort is
`date($rhumbline_too_large)` on a marker text, which the runner maps to `query_too_large`. Inside a
list comprehension's projection the budget is the enclosing one shared among the source's elements
(`budget / (size(source) + 1)`), and each projected value is weighed against it once built: a
comprehension nested in another stays within the outer budget in total, at every level.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rhumbline.cypher import syntax as s
from rhumbline.cypher.budget import ABORT_MARKER, ABORT_PARAM, LIST_ELEMENT_WEIGHT, VALUE_BYTES
from rhumbline.cypher.parser import GENERATED, NotInSubset
from rhumbline.cypher.procedures import CYPHER as PROCEDURE_QUERIES
from rhumbline.cypher.schema import GRAPH_LABELS

PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

_BINARY = {
    "or": "OR", "xor": "XOR", "and": "AND", "=": "=", "<>": "<>", "<": "<", "<=": "<=", ">": ">",
    ">=": ">=", "+": "+", "-": "-", "*": "*", "/": "/", "%": "%", "^": "^", "in": "IN",
    "starts": "STARTS WITH", "ends": "ENDS WITH", "contains": "CONTAINS", "regex": "=~",
}  # fmt: skip
_BOUND = "{v}.project IN $projects"
_INSIDE = "all(rhumbline_x IN nodes({p}) WHERE rhumbline_x:CodeNode AND rhumbline_x.project IN $projects)"
_ABORT = f"date(${ABORT_PARAM})"
# A text evaluated for free and without building anything: a name, a parameter, a number, null.
_SIMPLE = re.compile(r"`\w+`|\$\w+|\w+|-?[0-9][0-9.e]*")
_LET = re.compile(r"rhumbline_v(\d+)")


@dataclass(frozen=True)
class Scoped:
    """The Cypher to run and what maps between it and the caller's query."""

    text: str
    strings: dict[str, str] = field(default_factory=dict)  # parameter -> a string literal's value
    params: dict[str, str] = field(default_factory=dict)  # the caller's parameter -> its name in `text`
    names: dict[str, str] = field(default_factory=dict)  # a generated name in `text` -> the caller's name

    def parameters(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """The parameters `text` runs with: the caller's it uses, renamed, and the strings."""
        return {**{self.params[k]: v for k, v in given.items() if k in self.params}, **self.strings}

    def readable(self, message: str) -> str:
        """A message of Neo4j's about `text`, with the caller's names for the generated ones."""
        made_params = {"$" + made: "$" + given for given, made in self.params.items() if made != given}
        for made, given in sorted({**self.names, **made_params}.items(), key=lambda item: -len(item[0])):
            message = message.replace(made, given)
        return message


def scoped(query: s.Query) -> Scoped:
    writer = _Writer()
    text = writer.query(query)
    names = {made: given for given, made in writer.renamed.items()}
    return Scoped(text, writer.strings, writer.params, names)


class _Writer:
    def __init__(self) -> None:
        self.counter = 0
        self.made: set[str] = set()
        self.renamed: dict[str, str] = {}  # a caller's name -> the generated one written for it
        self.strings: dict[str, str] = {}
        self.string_params: dict[str, str] = {}  # a string's value -> its parameter
        self.params: dict[str, str] = {}
        # The weight (budget.py) the value being written may have: a comprehension's projection
        # shares its enclosing budget among the source's elements.
        self.budget = str(VALUE_BYTES)
        self.comprehensions = 0  # list comprehensions whose projection is being written
        self.weighed: set[str] = set()  # texts written with a guard of their own

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        made = f"{GENERATED}{prefix}{self.counter}"
        self.made.add(made)
        return made

    def name(self, given: str) -> str:
        """An identifier as written: a name of ours or a plain one, backticked (a keyword may be a
        name); any other becomes a generated name, the same each time."""
        if given in self.made or (PLAIN.fullmatch(given) and not given.lower().startswith(GENERATED)):
            return f"`{given}`"
        if given not in self.renamed:
            self.renamed[given] = self.fresh("i")
        return f"`{self.renamed[given]}`"

    def label(self, given: str) -> str:
        """A label as written when the graph has it (a fixed set), else a generated name: the
        pattern then matches nothing, as the caller's label would."""
        if given in GRAPH_LABELS:
            return f"`{given}`"
        if given not in self.renamed:
            self.renamed[given] = self.fresh("i")
        return f"`{self.renamed[given]}`"

    def string(self, value: str) -> str:
        if value not in self.string_params:
            made = self.string_params[value] = self.fresh("s")
            self.strings[made] = value
        return "$" + self.string_params[value]

    def param(self, given: str) -> str:
        if given not in self.params:
            plain = PLAIN.fullmatch(given) and not given.lower().startswith(GENERATED)
            self.params[given] = given if plain else self.fresh("param")
        return "$" + self.params[given]

    def query(self, query: s.Query) -> str:
        text = self.single(query)
        for union_all, other in query.unions:
            text += f" UNION{' ALL' if union_all else ''} " + self.single(other)
        return text

    def single(self, query: s.Query) -> str:
        scope: set[str] = set()
        parts = []
        for clause in query.clauses:
            if isinstance(clause, s.Match):
                parts.append(self.match(clause, scope))
            elif isinstance(clause, s.Unwind):
                parts.append(f"UNWIND {self.expr(clause.expr, scope)} AS {self.name(clause.var)}")
                scope.add(clause.var)
            elif isinstance(clause, s.Procedure):
                parts.append(self.procedure(clause, scope, lone=len(query.clauses) == 1))
            else:
                parts.append(self.projection(clause, scope))
        return " ".join(parts)

    # -- clauses ---------------------------------------------------------------------------------

    def match(self, clause: s.Match, scope: set[str]) -> str:
        inside: list[str] = []
        patterns = ", ".join(self.pattern(p, scope, inside) for p in clause.patterns)
        conditions = [f"({self.expr(clause.where, scope)})"] if clause.where is not None else []
        conditions += inside
        where = " WHERE " + " AND ".join(conditions) if conditions else ""
        return f"{'OPTIONAL ' if clause.optional else ''}MATCH {patterns}{where}"

    def projection(self, clause: s.Projection, scope: set[str]) -> str:
        items = list(clause.items)
        if clause.star:
            visible = sorted(v for v in scope if v not in self.made)
            items = [s.Item(s.Var(v), v, True) for v in visible] + items
        listed = ", ".join(f"{self.expr(item.expr, scope)} AS {self.name(item.name)}" for item in items)
        text = f"{'RETURN' if clause.final else 'WITH'} {'DISTINCT ' if clause.distinct else ''}{listed}"
        after = scope | {item.name for item in items}
        if clause.order:
            terms = ", ".join(f"{self.expr(o.expr, after)}{' DESC' if o.descending else ''}" for o in clause.order)
            text += f" ORDER BY {terms}"
        if clause.skip is not None:
            text += f" SKIP {self.expr(clause.skip, scope)}"
        if clause.limit is not None:
            text += f" LIMIT {self.expr(clause.limit, scope)}"
        scope.clear()
        scope.update(item.name for item in items)
        if clause.where is not None:
            text += f" WHERE {self.expr(clause.where, scope)}"
        return text

    def procedure(self, clause: s.Procedure, scope: set[str], *, lone: bool) -> str:
        from rhumbline.cypher.parser import PROCEDURES

        column = PROCEDURES[clause.name.lower()]
        yields = clause.yields or ((column, column),)
        alias = yields[0][1]
        inner = PROCEDURE_QUERIES[clause.name]
        text = f"CALL () {{ {inner} }}"
        scope.add(alias)
        renamed = f"{self.name(column)} AS {self.name(alias)}"
        if lone:
            return f"{text} RETURN {renamed}"
        others = ", ".join(self.name(v) for v in sorted(scope - {alias}))
        text += f" WITH {others + ', ' if others else ''}{renamed}"
        if clause.where is not None:
            text += f" WHERE {self.expr(clause.where, scope)}"
        return text

    # -- patterns --------------------------------------------------------------------------------

    def pattern(self, pattern: s.PathPattern, scope: set[str], inside: list[str]) -> str:
        path_var = pattern.var
        needs_inside = pattern.shortest is not None or any(r.hops is not None for r in pattern.rels)
        if needs_inside and path_var is None:
            path_var = self.fresh("p")
        chain = self.node(pattern.nodes[0], scope)
        for rel, node in zip(pattern.rels, pattern.nodes[1:]):
            chain += self.rel(rel, scope) + self.node(node, scope)
        if pattern.shortest is not None:
            chain = f"{'shortestPath' if pattern.shortest == 'shortest' else 'allShortestPaths'}({chain})"
        if needs_inside:
            assert path_var is not None  # named above when the query left it anonymous
            inside.append(_INSIDE.format(p=self.name(path_var)))
        if path_var is not None:
            scope.add(path_var)
            return f"{self.name(path_var)} = {chain}"
        return chain

    def node(self, node: s.NodePattern, scope: set[str]) -> str:
        var = node.var if node.var is not None else self.fresh("n")
        labels = "".join(":" + self.label(label) for label in node.labels)
        props = f" {self.expr(node.properties, scope)}" if node.properties is not None else ""
        if var in scope:
            return f"({self.name(var)}{labels}{props})"
        scope.add(var)
        return f"({self.name(var)}{labels}:CodeNode{props} WHERE {_BOUND.format(v=self.name(var))})"

    def rel(self, rel: s.RelPattern, scope: set[str]) -> str:
        inner = ""
        if rel.var is not None:
            inner += self.name(rel.var)
            scope.add(rel.var)
        if rel.types:
            inner += ":" + "|".join(self.name(t) for t in rel.types)
        if rel.hops is not None:
            low, high = rel.hops
            inner += f"*{low}..{'' if high is None else high}"
        if rel.properties is not None:
            inner += " " + self.expr(rel.properties, scope)
        left = "<-" if rel.direction == "in" else "-"
        right = "->" if rel.direction == "out" else "-"
        return f"{left}[{inner}]{right}"

    # -- the value budget (budget.py) ------------------------------------------------------------

    def abort(self) -> str:
        self.strings[ABORT_PARAM] = ABORT_MARKER
        return _ABORT

    def let(self, texts: list[str], body: Callable[[list[str]], str]) -> str:
        """`body` of one reference per text, each text evaluated once: the texts that are not
        simple are bound by a one-element list comprehension, as a list of them when there are
        several (an aggregate may be evaluated in a comprehension's source only). The binding is
        named by its height (one more than the tallest binding inside the texts), so none shadows
        another and an expression is written the same wherever it occurs (ORDER BY after an
        aggregation matches it by text)."""
        height = 1 + max((int(h) for text in texts for h in _LET.findall(text)), default=0)
        name = f"rhumbline_v{height}"
        bound = [text for text in texts if not _SIMPLE.fullmatch(text)]
        if not bound:
            return body(texts)
        if len(bound) == 1:
            return f"head([{name} IN [{bound[0]}] | {body([name if t == bound[0] else t for t in texts])}])"
        refs, i = [], 0
        for text in texts:
            if _SIMPLE.fullmatch(text):
                refs.append(text)
            else:
                refs.append(f"{name}[{i}]")
                i += 1
        return f"head([{name} IN [[{', '.join(bound)}]] | {body(refs)}])"

    def guarded(self, texts: list[str], weight: Callable[[list[str]], str], build: Callable[[list[str]], str]) -> str:
        """`build` of `texts`, failing instead when `weight` of them passes the budget."""
        budget, abort = self.budget, self.abort()
        written = self.let(texts, lambda r: f"(CASE WHEN {weight(r)} > {budget} THEN {abort} ELSE {build(r)} END)")
        self.weighed.add(written)
        return written

    def within(self, text: str) -> str:
        """A value already built (a comprehension's projected one), failing past the budget; one
        weighed already (against this budget, or a literal of such items) is as written."""
        if _SIMPLE.fullmatch(text) or text in self.weighed:
            return text  # shared with the source, or guarded by the same budget already
        return self.guarded([text], lambda r: _weight(r[0]), lambda r: r[0])

    def literal(self, text: str, items: list[str]) -> str:
        """A list or map literal holds its items as written: when each is simple or weighed, it
        needs no guard of its own (its size is bounded by the query's text times the budget)."""
        if all(_SIMPLE.fullmatch(item) or item in self.weighed for item in items):
            self.weighed.add(text)
        return text

    def plus(self, e: s.Op, scope: set[str]) -> str:
        """A chain of `+` (`a + b + c`) under one guard: the weights of its operands summed bound
        the result and every partial sum before it."""
        operands: list[s.Expr] = [e.args[1]]
        left = e.args[0]
        while isinstance(left, s.Op) and left.op == "+":
            operands.append(left.args[1])
            left = left.args[0]
        operands.append(left)
        operands.reverse()
        texts = [self.expr(a, scope) for a in operands]
        if (
            len(operands) == 2
            and not self.comprehensions
            and any(isinstance(a, s.Lit) and not isinstance(a.value, str) for a in operands)
        ):
            # A number (or null) adds a few characters or one element, once: in a projection the
            # copy it makes is repeated for every element, so it is weighed there.
            return f"({texts[0]} + {texts[1]})"
        weights = [str(len(a.value)) if isinstance(a, s.Lit) and isinstance(a.value, str) else None for a in operands]

        def chain(r: list[str]) -> str:
            built = r[0]
            for ref in r[1:]:
                built = f"({built} + {ref})"
            return built

        return self.guarded(texts, lambda r: " + ".join(w or _weight(ref) for w, ref in zip(weights, r)), chain)

    def building_call(self, e: s.Call, scope: set[str]) -> str | None:
        """range(), replace() and split() guarded by the size of their result, computed from their
        arguments before it is built; None for any other call or one whose size is known."""
        literal = [a.value if isinstance(a, s.Lit) else None for a in e.args]
        if e.name == "range" and not all(isinstance(v, int) for v in literal):
            args = [self.expr(a, scope) for a in e.args] + ["1"] * (3 - len(e.args))
            return self.guarded(
                args,
                lambda r: f"(CASE WHEN {r[2]} = 0 THEN 0 ELSE {LIST_ELEMENT_WEIGHT} * "
                f"((toFloat({r[1]}) - {r[0]}) / {r[2]} + 1) END)",
                lambda r: f"range({r[0]}, {r[1]}, {r[2]})",
            )
        if e.name == "replace" and len(e.args) == 3:
            old, new = literal[1], literal[2]
            if isinstance(old, str) and isinstance(new, str) and len(new) <= len(old):
                return None
            empty = self.string("")

            def weight(r: list[str]) -> str:
                # Non-overlapping occurrences, as replace() finds them: counted by removing them. A
                # literal's size is written as a number (less for Neo4j to plan and evaluate).
                old_size, new_size = (str(len(v)) if isinstance(v, str) else f"size({ref})" for v, ref in zip((old, new), r[1:]))
                found = (
                    f"(CASE WHEN {old_size} = 0 THEN size({r[0]}) + 1 "
                    f"ELSE (size({r[0]}) - size(replace({r[0]}, {r[1]}, {empty}))) / {old_size} END)"
                )
                grows = f"({new_size} - {old_size})"
                return f"(CASE WHEN {new_size} <= {old_size} THEN 0 ELSE size({r[0]}) + {found} * {grows} END)"

            args = [self.expr(a, scope) for a in e.args]
            return self.guarded(args, weight, lambda r: f"replace({r[0]}, {r[1]}, {r[2]})")
        if e.name == "split" and len(e.args) == 2 and not (isinstance(literal[1], str) and literal[1]):
            empty = self.string("")
            args = [self.expr(a, scope) for a in e.args]
            return self.guarded(
                args,
                lambda r: f"(CASE WHEN {r[1]} = {empty} THEN {LIST_ELEMENT_WEIGHT} * size({r[0]}) ELSE 0 END)",
                lambda r: f"split({r[0]}, {r[1]})",
            )
        return None

    def comprehension(self, e: s.ListComp, scope: set[str]) -> str:
        """A list comprehension guarded by its source's size (its result has at most as many
        elements), its projection by the source's share of the budget."""
        source = self.expr(e.source, scope)
        outer, depth = self.budget, self.comprehensions
        ref = source if _SIMPLE.fullmatch(source) else f"rhumbline_l{depth}"
        inner = scope | {e.var}
        self.comprehensions += 1
        try:
            where = f" WHERE {self.expr(e.where, inner)}" if e.where is not None else ""
            self.budget = f"({outer} / ({_count(ref)} + 1))"
            projection = f" | {self.within(self.expr(e.projection, inner))}" if e.projection is not None else ""
        finally:
            self.budget, self.comprehensions = outer, depth
        built = f"[{self.name(e.var)} IN {ref}{where}{projection}]"
        written = f"(CASE WHEN {LIST_ELEMENT_WEIGHT} * {_count(ref)} > {outer} THEN {self.abort()} ELSE {built} END)"
        if ref != source:
            written = f"head([{ref} IN [{source}] | {written}])"
        self.weighed.add(written)
        return written

    # -- expressions -----------------------------------------------------------------------------

    def expr(self, e: s.Expr, scope: set[str]) -> str:  # noqa: C901 (one dispatch)
        if isinstance(e, s.Lit):
            value = e.value
            if value is None:
                return "null"
            if isinstance(value, bool):
                return "true" if value else "false"
            if isinstance(value, int):
                return str(value)
            if isinstance(value, float):
                return repr(value).replace("e+", "e") if math.isfinite(value) else "(0.0/0.0)"
            return self.string(value)
        if isinstance(e, s.Param):
            return self.param(e.name)
        if isinstance(e, s.Var):
            return self.name(e.name)
        if isinstance(e, s.Prop):
            return f"({self.expr(e.subject, scope)}).{self.name(e.key)}"
        if isinstance(e, s.Index):
            if isinstance(e.index, s.Lit) and isinstance(e.index.value, str):
                # `m['a b']` reads the key a map literal's `a b` was renamed to, as `m.`a b`` does.
                return f"({self.expr(e.subject, scope)}).{self.name(e.index.value)}"
            return f"({self.expr(e.subject, scope)})[{self.expr(e.index, scope)}]"
        if isinstance(e, s.Slice):
            start = self.expr(e.start, scope) if e.start is not None else ""
            end = self.expr(e.end, scope) if e.end is not None else ""
            return f"({self.expr(e.subject, scope)})[{start}..{end}]"
        if isinstance(e, s.ListExpr):
            items = [self.expr(item, scope) for item in e.items]
            return self.literal("[" + ", ".join(items) + "]", items)
        if isinstance(e, s.MapExpr):
            values = [self.expr(v, scope) for _, v in e.items]
            return self.literal("{" + ", ".join(f"{self.name(k)}: {v}" for (k, _), v in zip(e.items, values)) + "}", values)
        if isinstance(e, s.Op):
            if e.op == "+":
                return self.plus(e, scope)
            args = [self.expr(a, scope) for a in e.args]
            if e.op == "not":
                return f"(NOT {args[0]})"
            if e.op == "neg":
                return f"(-{args[0]})"
            if e.op == "is_null":
                return f"({args[0]} IS NULL)"
            if e.op == "is_not_null":
                return f"({args[0]} IS NOT NULL)"
            return f"({args[0]} {_BINARY[e.op]} {args[1]})"
        if isinstance(e, s.HasLabels):
            return f"({self.expr(e.subject, scope)}{''.join(':' + self.label(label) for label in e.labels)})"
        if isinstance(e, s.Call):
            if e.star:
                return "count(*)"
            building = self.building_call(e, scope)
            if building is not None:
                return building
            arguments = ", ".join(self.expr(a, scope) for a in e.args)
            return f"{e.name}({'DISTINCT ' if e.distinct else ''}{arguments})"
        if isinstance(e, s.Case):
            subject = f" {self.expr(e.subject, scope)}" if e.subject is not None else ""
            whens = " ".join(f"WHEN {self.expr(c, scope)} THEN {self.expr(v, scope)}" for c, v in e.whens)
            default = f" ELSE {self.expr(e.default, scope)}" if e.default is not None else ""
            return f"(CASE{subject} {whens}{default} END)"
        if isinstance(e, s.ListComp):
            if e.quantifier is None:
                return self.comprehension(e, scope)
            inner = scope | {e.var}
            where = f" WHERE {self.expr(e.where, inner)}" if e.where is not None else ""
            head = f"{self.name(e.var)} IN {self.expr(e.source, scope)}{where}"
            if e.quantifier is not None:
                return f"{e.quantifier}({head})"
            projection = f" | {self.expr(e.projection, inner)}" if e.projection is not None else ""
            return f"[{head}{projection}]"
        if isinstance(e, s.PatternComp):
            inner = set(scope)
            inside: list[str] = []
            pattern = self.pattern(e.pattern, inner, inside)
            conditions = ([f"({self.expr(e.where, inner)})"] if e.where is not None else []) + inside
            where = " WHERE " + " AND ".join(conditions) if conditions else ""
            return f"[{pattern}{where} | {self.within(self.expr(e.projection, inner))}]"
        if isinstance(e, s.MapProj):
            items = []
            for item in e.items:
                if item[0] == "all":
                    items.append(".*")
                elif item[0] == "prop":
                    items.append("." + self.name(item[1]))
                elif item[0] == "var":
                    items.append(self.name(item[1]))
                else:
                    items.append(f"{self.name(item[1])}: {self.expr(item[2], scope)}")
            return f"{self.name(e.subject.name)} {{{', '.join(items)}}}"
        if isinstance(e, s.Subquery):
            inner = set(scope)
            inside = []
            patterns = ", ".join(self.pattern(p, inner, inside) for p in e.patterns)
            conditions = ([f"({self.expr(e.where, inner)})"] if e.where is not None else []) + inside
            where = " WHERE " + " AND ".join(conditions) if conditions else ""
            return f"{'EXISTS' if e.kind == 'exists' else 'COUNT'} {{ MATCH {patterns}{where} }}"
        raise NotInSubset(type(e).__name__)


def _weight(ref: str) -> str:
    """The weight (budget.py) of the value `ref` names, at run time (coalesce() gives size() an
    argument Neo4j's type check accepts whatever type `ref` has as written)."""
    return (
        f"(CASE WHEN {ref} IS :: STRING THEN size(coalesce({ref}, '')) WHEN {ref} IS :: LIST<ANY> "
        f"THEN {LIST_ELEMENT_WEIGHT} * size(coalesce({ref}, [])) ELSE 1 END)"
    )


def _count(ref: str) -> str:
    """The elements a comprehension over `ref` visits: Neo4j goes over a value that is not a list
    as over a list of it alone."""
    return f"(CASE WHEN {ref} IS :: LIST<ANY> THEN size(coalesce({ref}, [])) ELSE 1 END)"
