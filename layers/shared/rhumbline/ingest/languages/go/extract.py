"""Phase 1 for Go.

Qualnames use `.`: `Cart`, `NewCart`, methods by receiver type `Cart.Add` (pointer or not, type
parameters dropped), interface methods `Shape.Area`. Kinds: struct types → Struct, interfaces →
Interface, other named types (`type ID string`, which may have methods) → Class; embedded fields
and embedded interfaces are the type's bases. A method's receiver is its first parameter,
`c:Cart`, so `c.total()` is resolved on Cart. Doc comments: the `//` block right above.

Calls: `f()`, `pkg.F()`, `x.m()`, a method of a call's result `r.NewRoute().Path()`; composite literals `Cart{…}` / `&pkg.Cart{…}` are constructor
calls (`new Cart`), and a method of one (`(Cart{}).Total()`) is recorded as of a conversion's value
(`Cart().Total`). Locals: `x := &Cart{}`, `var y Cart` and typed parameters give receiver types;
`for _, c := range carts` types c as carts' elements (a collection's type is its elements': Go
calls no method on a slice or a map), `x := NewCart()` / `x, err := cart.New()` / `x := c.Clone()` record the call (`NewCart()`), whose
declared result type phase 2 reads from the function's signature (a conversion `Cart(v)` is
recorded alike, phase 2 knows Cart for a type); `x, ok := v.(*Cart)` asserts Cart, `x :=
new(Cart)` allocates one; a function literal's typed parameters type the receivers inside it that they name (recorded as
`r@line`, uses inside the literal alike).
Named results are parameters. Package-level `var` and typed `const` specs record their types as
hints (a `const` without type and value repeats the one above).
Imports: module = the import path, alias = the explicit name (`.` imports are `*`, `_` binds
nothing). CodeFacts.namespace = the package clause's name; module-level `const` / `var` are
Variables.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tree_sitter import Language, Node

from rhumbline.ingest.facts import CodeFacts, TypeHint, Variable
from rhumbline.ingest.languages.polyglot.comments import doc_comment
from rhumbline.ingest.languages.polyglot.extract import (
    Context,
    DefSpec,
    LanguageExtractor,
    variable,
)
from rhumbline.ingest.languages.polyglot.type_names import type_name

_TYPE_PARAMETERS = re.compile(r"\[[^\[\]]*\]")
_CHAIN_CALLS = 4  # calls before the method of a chain, `a.B().C().D().E().m()`; longer: dynamic

QUERY = """
(type_spec name: (_) @name type: (_)) @definition.class
(function_declaration name: (_) @name) @definition.function
(method_declaration name: (_) @name) @definition.method
(method_elem name: (_) @name) @definition.method
(call_expression) @call
(composite_literal type: [(type_identifier) (qualified_type) (generic_type)]) @call
(import_spec) @import
(short_var_declaration) @local
(var_spec) @local
(range_clause left: (_)) @local
(func_literal parameters: (parameter_list) @local)
"""
# A function literal's parameters are recorded among the enclosing function's locals as
# `name@line` (the line of the literal's parameter list), and so is a name used inside the literal
# that one of its parameters declares (`r@12.Context`): `r` is often the router outside a handler
# literal and the request inside it, and each keeps its own type.
LITERAL_PARAMETER = "@"
# A struct's named fields are recorded as its locals under this prefix: Go never names a field
# bare, so they must hide nothing; `x.pool.Get()` reads them (phase 2).
FIELD = "field."
# A package-level variable's type, as a hint (`TypeHint.how`): declared, or its value's.
DECLARED = "declared"


class GoExtractor(LanguageExtractor):
    separator = "."
    query_text = QUERY

    def language(self) -> Language:
        import tree_sitter_go

        return Language(tree_sitter_go.language())

    def definition(self, x: Context, spec: DefSpec) -> DefSpec | None:
        node = spec.node
        if node.type == "type_spec":
            return self._type(x, spec)
        if node.type == "method_elem" and not x.in_type:
            return None
        parameters = self._parameters(x, node.child_by_field_name("parameters"))
        results = node.child_by_field_name("result")
        if results is not None and results.type == "parameter_list":  # named results `(c *Context, …)`
            parameters += self._parameters(x, results)
        if node.type != "method_declaration":
            return spec._replace(parameters=parameters)
        owner, receiver_params = self._receiver(x, node.child_by_field_name("receiver"))
        if owner is None:
            return None
        return spec._replace(owner=owner, parameters=receiver_params + parameters)

    def _type(self, x: Context, spec: DefSpec) -> DefSpec | None:
        """Struct, Interface or Class (`type ID string`) by what the spec declares."""
        node = spec.node
        declaration = node.parent
        # `type ( A …; B … )`: each spec carries its own doc comment; a lone spec's is above `type`.
        grouped = declaration is None or declaration.named_child_count > 1 or any(
            child.type == "(" for child in declaration.children
        )
        outer = node if grouped else declaration
        body = node.child_by_field_name("type")
        if body is None:
            return None
        bases: list[str] = []
        fields: list[str] = []
        if body.type == "struct_type":
            kind = "Struct"
            for declarations in body.named_children:
                for field in declarations.named_children:
                    if field.type != "field_declaration":
                        continue
                    written = _type(x, field.child_by_field_name("type"))
                    names = field.children_by_field_name("name")
                    if not names and written:  # embedded
                        bases.append(written)
                    elif written:
                        fields.extend(f"{FIELD}{x.text(name)}:{written}" for name in names)
        elif body.type == "interface_type":
            kind = "Interface"
            for element in body.named_children:
                if element.type == "type_elem" and element.named_child_count == 1:
                    base = _type(x, element.named_child(0))
                    if base:
                        bases.append(base)
        else:
            kind = "Class"
        # `type Cart struct`, `type Shape interface`, `type ID string`
        keyword = body.children[0] if kind != "Class" and body.children else None
        header_end = keyword.end_byte if keyword is not None else node.end_byte
        return spec._replace(
            kind=kind, outer=outer, header_end=header_end, header_start=outer.start_byte, bases=tuple(bases),
            parameters=tuple(fields),
        )

    def _receiver(self, x: Context, receiver: Node | None) -> tuple[str | None, tuple[str, ...]]:
        if receiver is None:
            return None, ()
        for parameter in receiver.named_children:
            if parameter.type == "parameter_declaration":
                owner = _type(x, parameter.child_by_field_name("type"))
                if owner is None or "." in owner:
                    return None, ()
                name = parameter.child_by_field_name("name")
                return owner, ((f"{x.text(name)}:{owner}",) if name is not None else ())
        return None, ()

    def _parameters(self, x: Context, parameters: Node | None) -> tuple[str, ...]:
        if parameters is None:
            return ()
        found = []
        for parameter in parameters.named_children:
            if parameter.type not in ("parameter_declaration", "variadic_parameter_declaration"):
                continue
            written = _type(x, parameter.child_by_field_name("type"))
            for name in parameter.children_by_field_name("name"):
                found.append(f"{x.text(name)}:{written}" if written else x.text(name))
        return tuple(found)

    def call(self, x: Context, node: Node) -> str | None:
        if node.type == "composite_literal":
            written = _type(x, node.child_by_field_name("type"))
            return f"new {written}" if written else ""
        function = node.child_by_field_name("function")
        return _in_literal(x, node, _chained(x, function))

    def imports(self, x: Context, node: Node) -> Iterable[tuple[str, str | None, str | None, int]]:
        path = node.child_by_field_name("path")
        if path is None:
            return ()
        module = x.text(path).strip('"`')
        name = node.child_by_field_name("name")
        if name is None:
            return ((module, None, None, 0),)
        alias = x.text(name)
        if alias == ".":
            return ((module, "*", None, 0),)
        return ((module, None, alias, 0),)

    def statement(self, x: Context, node: Node) -> str:
        return f"import {x.text(node)}"

    def local(self, x: Context, node: Node) -> Iterable[tuple[str, str | None]]:
        if node.type == "parameter_list":  # a function literal's
            found = (parameter.partition(":") for parameter in self._parameters(x, node))
            line = node.start_point.row + 1
            return [(f"{name}{LITERAL_PARAMETER}{line}", written) for name, _, written in found if written]
        if node.type == "range_clause":  # `for _, v := range xs`: v holds xs's elements
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            names = left.named_children if left is not None else []
            if len(names) != 2 or names[1].type != "identifier" or right is None:
                return []
            element = _value_type(x, right)
            return [(x.text(names[1]), element)] if element else []
        if node.type == "var_spec":
            written = _type(x, node.child_by_field_name("type"))
            values = node.child_by_field_name("value")
            names = node.children_by_field_name("name")
            value_nodes = values.named_children if values is not None else []
        else:
            left = node.child_by_field_name("left")
            right = node.child_by_field_name("right")
            names = left.named_children if left is not None else []
            value_nodes = right.named_children if right is not None else []
            written = None
        found = []
        for index, name in enumerate(names):
            if name.type != "identifier":
                continue
            type_text = written
            if type_text is None and len(value_nodes) == len(names):
                type_text = _value_type(x, value_nodes[index])
            elif type_text is None and index == 0 and len(value_nodes) == 1:  # `x, err := New()`
                type_text = _value_type(x, value_nodes[0])
            found.append((x.text(name), type_text))
        return found

    def module_facts(self, x: Context, root: Node) -> tuple[list[Variable], None, str | None]:
        variables: dict[str, Variable] = {}
        namespace = None
        for child in root.named_children:
            if child.type == "package_clause":
                for part in child.named_children:
                    if part.type == "package_identifier":
                        namespace = x.text(part)
            elif child.type in ("const_declaration", "var_declaration"):
                specs = _specs(child)
                for spec in specs:
                    for name in spec.children_by_field_name("name"):
                        text = x.text(name)
                        if text != "_":
                            statement = spec if len(specs) > 1 else child
                            variables.setdefault(text, variable(x, statement, text))
        return list(variables.values()), None, namespace

    def extract(self, source: bytes, root: Node | None = None) -> CodeFacts:
        """The base facts, with the types package-level variables are declared or assigned
        (`var JSON Binding = jsonBinding{}`, `var pool = NewPool()`) as hints of scope ""."""
        if root is None:
            root = self.parse(source)
        facts = super().extract(source, root)
        x = Context(source, self.separator)
        hints: list[TypeHint] = []
        for child in root.named_children:
            if child.type not in ("var_declaration", "const_declaration"):
                continue
            implicit = None  # a constant without type and value repeats the one above (`iota`)
            for spec in _specs(child):
                typed = list(self.local(x, spec)) if spec.type == "var_spec" else _constants(x, spec, implicit)
                if spec.type == "const_spec":
                    implicit = typed[0][1] if typed else None
                line = spec.start_point.row + 1
                hints.extend(TypeHint("", name, DECLARED, text, line) for name, text in typed if text)
        return facts._replace(hints=tuple(hints))

    def file_docstring(self, x: Context, root: Node) -> str | None:
        for child in root.named_children:
            if child.type == "package_clause":
                return doc_comment(x.source, child, self.comment_types)
        return None


def _constants(x: Context, spec: Node, implicit: str | None) -> list[tuple[str, str | None]]:
    """The names of a `const` spec with their declared type (`Red Color = iota`), or the type of
    the spec above when this one has neither type nor value (`Green`); None when untyped."""
    written = _type(x, spec.child_by_field_name("type"))
    if written is None and spec.child_by_field_name("value") is None:
        written = implicit
    return [(x.text(name), written) for name in spec.children_by_field_name("name")]


def _specs(declaration: Node) -> list[Node]:
    """The specs of a `const` / `var` declaration, grouped (`var ( … )`) or not."""
    return [
        spec
        for part in declaration.named_children
        for spec in (part.named_children if part.type == "var_spec_list" else [part])
        if spec.type in ("const_spec", "var_spec")
    ]


def _type(x: Context, node: Node | None) -> str | None:
    """The nominal type written at `node`; a slice's, an array's or a map's is its elements'
    (`[]*Route`, `map[string]*Route` → `Route`), the type a range over it gives its values."""
    while node is not None and node.type in ("map_type", "slice_type", "array_type"):
        node = node.child_by_field_name("value" if node.type == "map_type" else "element")
    if node is None:
        return None
    text = _TYPE_PARAMETERS.sub("", x.text(node))
    return type_name(text)


def _literal_type(x: Context, value: Node) -> str | None:
    """The type of `Cart{}` / `&Cart{}` / `pkg.Cart{}` / `v.(*Cart)` / `new(Cart)`; None for
    anything else."""
    if value.type == "type_assertion_expression":
        return _type(x, value.child_by_field_name("type"))
    if value.type == "call_expression" and x.text(value.child_by_field_name("function") or value) == "new":
        arguments = value.child_by_field_name("arguments")
        if arguments is not None and arguments.named_child_count == 1:  # the builtin: `new(T)`
            return _type(x, arguments.named_child(0))
        return None
    if value.type == "unary_expression":
        operand = value.child_by_field_name("operand")
        if operand is None:
            return None
        value = operand
    if value.type == "composite_literal":
        return _type(x, value.child_by_field_name("type"))
    return None


def _value_type(x: Context, value: Node) -> str | None:
    """What types a local by its value: a literal's type, a call (`F()`), or the name of what it
    copies (`b := Query`, `b := binding.Query`: phase 2 reads a package variable's type)."""
    if value.type == "index_expression":  # `m[k]`, `s.pools[name]`: an element of what it indexes
        value = value.child_by_field_name("operand")
    if value.type == "identifier" or (
        value.type == "selector_expression" and _dotted(x, value) is not None and value.child_by_field_name("operand").type != "call_expression"
    ):
        return _in_literal(x, value, _dotted(x, value))
    return _literal_type(x, value) or _in_literal(x, value, _call_result(x, value))


def _in_literal(x: Context, node: Node, dotted: str | None) -> str | None:
    """`dotted` with its head marked `head@line` when that is a parameter of a function literal
    around `node` (the innermost, inside the enclosing declaration)."""
    if not dotted:
        return dotted
    first, dot, rest = dotted.partition(".")
    head = first.removesuffix("()")
    current = node.parent
    while current is not None and current.type not in ("function_declaration", "method_declaration"):
        if current.type == "func_literal":
            parameters = current.child_by_field_name("parameters")
            names = [] if parameters is None else [
                x.text(name) for parameter in parameters.named_children for name in parameter.children_by_field_name("name")
            ]  # fmt: skip
            if head in names:
                marked = f"{head}{LITERAL_PARAMETER}{parameters.start_point.row + 1}"
                return f"{marked}{first[len(head):]}{dot}{rest}"
        current = current.parent
    return dotted


def _composite_type(x: Context, node: Node | None) -> str | None:
    """The named type of a composite literal `T{…}`, `(T{…})`, `(&pkg.T{…})`; None for anything
    else (a slice or map literal among them)."""
    while node is not None and node.type in ("parenthesized_expression", "unary_expression"):
        if node.type == "unary_expression" and x.text(node.child_by_field_name("operator")) != "&":
            return None
        node = node.named_child(0) if node.type == "parenthesized_expression" else node.child_by_field_name("operand")
    if node is None or node.type != "composite_literal":
        return None
    written = node.child_by_field_name("type")
    if written is None or written.type not in ("type_identifier", "qualified_type", "generic_type"):
        return None
    return _type(x, written)


def _call_result(x: Context, value: Node) -> str | None:
    """`F()` / `pkg.F()` / `x.f.M()` for a value that is the result of calling a named function
    or method; None else."""
    if value.type != "call_expression":
        return None
    function = _chained(x, value.child_by_field_name("function"))
    return f"{function}()" if function is not None else None


def _chained(x: Context, node: Node | None, depth: int = 0) -> str | None:
    """A dotted name, or a method of a call's result: `r.NewRoute().Path` (at most
    _CHAIN_CALLS calls deep)."""
    if node is not None and node.type == "selector_expression":
        operand = node.child_by_field_name("operand")
        field = node.child_by_field_name("field")
        literal = _composite_type(x, operand)
        if literal is not None and field is not None:  # `(JSON{data}).Render`: as `JSON(v).Render`
            return f"{literal}().{x.text(field)}"
        if operand is not None and field is not None and operand.type == "call_expression":
            if depth >= _CHAIN_CALLS:
                return None
            inner = _chained(x, operand.child_by_field_name("function"), depth + 1)
            return f"{inner}().{x.text(field)}" if inner else None
    return _dotted(x, node)


def _dotted(x: Context, node: Node | None) -> str | None:
    if node is None:
        return None
    if node.type == "identifier":
        return x.text(node)
    if node.type == "selector_expression":
        operand = _dotted(x, node.child_by_field_name("operand"))
        field = node.child_by_field_name("field")
        if operand is None or field is None:
            return None
        return f"{operand}.{x.text(field)}"
    if node.type == "parenthesized_expression" and node.named_child_count == 1:
        return _dotted(x, node.named_child(0))
    return None


extract_go = GoExtractor()
