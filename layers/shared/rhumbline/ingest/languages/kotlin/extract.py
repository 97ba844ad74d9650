"""Phase 1 for Kotlin.

Qualnames use `.`: `Cart`, `Cart.add`, nested `Cart.Line`; functions of a `companion object` are
the class's (`Cart.create`); an extension function `fun Cart.total()` is a method of its receiver
type, `Cart.total`, found by resolution when Cart is in the repository. Kinds: `class` / `data
class` / `object` → Class (the signature says which), `interface` → Interface, `enum class` →
Enum; the delegation specifiers (`: Base(), Saveable`) are the bases. Doc comments: KDoc above.

Calls: `f()`, `Cart()` (a constructor call is a call of the class), `obj.m()`, `this.m()`,
`super.m()`. Parameters, locals and class properties carry their declared type, or the class of
a constructor-looking initializer (`val m = Money(1)`: a capitalized callee).
Imports: `import a.b.C` → module `a.b`, name `C`; `as D` → alias; `a.b.*` → name `*`.
CodeFacts.namespace = the package; top-level `val` / `var` are Variables.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tree_sitter import Language, Node

from rhumbline.ingest.facts import DecoratorFact, Variable
from rhumbline.ingest.languages.polyglot.decorators import kotlin_annotations
from rhumbline.ingest.languages.polyglot.extract import (
    Context,
    DefSpec,
    LanguageExtractor,
    ScopeSpec,
    variable,
)
from rhumbline.ingest.languages.polyglot.type_names import type_name

QUERY = """
(companion_object) @scope
(class_declaration name: (_) @name) @definition.class
(object_declaration name: (_) @name) @definition.class
(function_declaration name: (_) @name) @definition.function
(call_expression) @call
(import) @import
(property_declaration) @local
"""

# tree-sitter-kotlin (1.1.0, the newest) reads a line starting with `get` or `set` after a `val` /
# `var` as that declaration's accessor, even where none can start (`set = x`, `set += x`,
# `set?.add(x)`, `get.value`): the whole enclosing class becomes an error. A name so followed is
# parsed as the same-length `_et` (names and texts are still read from the original bytes).
_NOT_AN_ACCESSOR = re.compile(rb"^([ \t]*)[gs](et)(?=[ \t]*(?:[-+*/%]?=(?!=)|\?\.|!!|\.|\[|\+\+|--))", re.MULTILINE)


class KotlinExtractor(LanguageExtractor):
    separator = "."
    query_text = QUERY
    comment_types = frozenset({"line_comment", "block_comment"})

    def decorators(self, x: Context, spec: DefSpec) -> tuple[DecoratorFact, ...]:
        return kotlin_annotations(x, spec.node)

    def parse(self, source: bytes) -> Node:
        if b"et" in source:
            source = _NOT_AN_ACCESSOR.sub(rb"\1_\2", source)
        return super().parse(source)

    def language(self) -> Language:
        import tree_sitter_kotlin

        return Language(tree_sitter_kotlin.language())

    def scope(self, x: Context, node: Node) -> ScopeSpec | None:
        return ScopeSpec(node, "", methods=True) if x.in_type else None

    def definition(self, x: Context, spec: DefSpec) -> DefSpec:
        node = spec.node
        body = _body(node)
        spec = spec._replace(header_end=body.start_byte if body is not None else node.end_byte)
        if spec.kind == "Function":
            name = node.child_by_field_name("name")
            owner = None
            for child in node.children:
                if child == name:
                    break
                if child.type in ("user_type", "nullable_type"):  # `fun Cart.total()`
                    owner = type_name(x.text(child))
            return spec._replace(owner=owner if owner and x.at_top else None, parameters=self._parameters(x, node))
        kind = "Class"
        if node.type == "class_declaration":
            keywords = {child.type for child in node.children}
            if "interface" in keywords:
                kind = "Interface"
            elif body is not None and body.type == "enum_class_body":
                kind = "Enum"
        bases = []
        for child in node.named_children:
            if child.type == "delegation_specifiers":
                for specifier in child.named_children:
                    written = specifier.named_child(0) if specifier.named_child_count else None
                    if written is not None and written.type == "constructor_invocation":
                        written = written.named_child(0)
                    base = type_name(x.text(written)) if written is not None else None
                    if base:
                        bases.append(base)
        return spec._replace(kind=kind, bases=tuple(bases))

    def _parameters(self, x: Context, node: Node) -> tuple[str, ...]:
        found = []
        for child in node.named_children:
            if child.type != "function_value_parameters":
                continue
            for parameter in child.named_children:
                if parameter.type != "parameter" or not parameter.named_child_count:
                    continue
                name = parameter.named_child(0)
                written = None
                if parameter.named_child_count > 1:
                    written = type_name(x.text(parameter.named_child(1)))
                found.append(f"{x.text(name)}:{written}" if written else x.text(name))
        return tuple(found)

    def call(self, x: Context, node: Node) -> str | None:
        function = node.named_child(0) if node.named_child_count else None
        return _dotted(x, function)

    def imports(self, x: Context, node: Node) -> Iterable[tuple[str, str | None, str | None, int]]:
        path = alias = None
        star = False
        for child in node.children:
            if child.type == "qualified_identifier":
                path = x.text(child)
            elif child.type == "identifier" and path is not None:
                alias = x.text(child)
            elif child.type == "*":
                star = True
        if path is None:
            return ()
        if star:
            return ((path, "*", None, 0),)
        module, _, name = path.rpartition(".")
        return ((module, name, alias, 0),)

    def local(self, x: Context, node: Node) -> Iterable[tuple[str, str | None]]:
        declared = _declared(x, node)
        return [declared] if declared else ()

    def module_facts(self, x: Context, root: Node) -> tuple[list[Variable], None, str | None]:
        variables: list[Variable] = []
        namespace = None
        for child in root.named_children:
            if child.type == "package_header":
                for part in child.named_children:
                    if part.type in ("qualified_identifier", "identifier"):
                        namespace = x.text(part)
            elif child.type == "property_declaration":
                declared = _declared(x, child)
                if declared:
                    variables.append(variable(x, child, declared[0]))
        return variables, None, namespace


def _body(node: Node) -> Node | None:
    for child in node.named_children:
        if child.type in ("class_body", "enum_class_body", "function_body"):
            return child
    return None


def _declared(x: Context, node: Node) -> tuple[str, str | None] | None:
    declaration = None
    value = None
    for child in node.named_children:
        if child.type == "variable_declaration":
            declaration = child
        elif declaration is not None and value is None:
            value = child
    if declaration is None or not declaration.named_child_count:
        return None
    name = declaration.named_child(0)
    if name.type != "identifier":
        return None
    written = None
    if declaration.named_child_count > 1:
        written = type_name(x.text(declaration.named_child(1)))
    elif value is not None and value.type == "call_expression" and value.named_child_count:
        callee = _dotted(x, value.named_child(0))
        last = callee.rsplit(".", 1)[-1] if callee else ""
        if last[:1].isupper():  # `Money(1)`: a constructor call, by Kotlin's naming convention
            written = callee
    return x.text(name), written


def _dotted(x: Context, node: Node | None) -> str | None:
    if node is None:
        return None
    kind = node.type
    if kind == "identifier":
        return x.text(node)
    if kind == "this_expression":
        return "this"
    if kind == "super_expression":
        return "super"
    if kind == "navigation_expression" and node.named_child_count == 2:
        base = _dotted(x, node.named_child(0))
        member = node.named_child(1)
        if base is None or member.type != "identifier":
            return None
        return f"{base}.{x.text(member)}"
    if kind == "parenthesized_expression" and node.named_child_count == 1:
        return _dotted(x, node.named_child(0))
    return None


extract_kotlin = KotlinExtractor()
