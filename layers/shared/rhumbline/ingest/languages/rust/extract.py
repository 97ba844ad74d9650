"""Phase 1 for Rust.

Qualnames use `::`: `Cart`, methods of `impl Cart` are `Cart::add`, methods of `impl Display for
Cart` are `<Cart as Display>::fmt` (Rust's own fully qualified syntax: two traits' `fmt` stay two
nodes), trait methods `Saveable::save`; an inline `mod inner { … }` prefixes `inner::`. A method's
parent is its type (`Cart`) even when the type is defined in another module; a trait impl's
methods carry the trait as their bases, which makes the IMPLEMENTS edge (an `impl` without methods
leaves none). Kinds: struct and union → Struct, enum → Enum, trait → Trait (supertraits as
bases). Doc comments: `///` lines above, attributes (`#[derive]`) skipped.

Calls: `f()`, `module::f()`, `Type::assoc()`, `x.m()`, `self.m()` and `Self::f()` (→ `this.`),
struct literals `Cart { … }` (→ `new Cart`); macros are not calls. Locals: `let c: Cart`, `let c =
Cart::new()` / `Cart { … }` (a capitalized path head is taken as the type), typed parameters.
Imports: `use a::b::{C, d as e}` → module `a::b`, names `C`, `d` (alias `e`); `use a::*` → `*`;
`self` in a list binds the list's module; `mod x;` → module `x`, level 1. `const` / `static` items
are Variables.
"""

from __future__ import annotations

from collections.abc import Iterable

from tree_sitter import Language, Node

from rhumbline.ingest.facts import DecoratorFact, Variable
from rhumbline.ingest.languages.polyglot.comments import clean_comment
from rhumbline.ingest.languages.polyglot.decorators import rust_attributes
from rhumbline.ingest.languages.polyglot.extract import (
    Context,
    DefSpec,
    LanguageExtractor,
    ScopeSpec,
    variable,
)
from rhumbline.ingest.languages.polyglot.type_names import type_name

QUERY = """
(impl_item) @scope
(mod_item body: (_)) @scope
(struct_item name: (_) @name) @definition.struct
(union_item name: (_) @name) @definition.struct
(enum_item name: (_) @name) @definition.enum
(trait_item name: (_) @name) @definition.trait
(function_item name: (_) @name) @definition.function
(function_signature_item name: (_) @name) @definition.function
(call_expression) @call
(struct_expression) @call
(use_declaration) @import
(mod_item !body) @import
(let_declaration) @local
"""


class RustExtractor(LanguageExtractor):
    separator = "::"
    query_text = QUERY
    comment_types = frozenset({"line_comment", "block_comment"})
    between_doc_and_definition = frozenset({"attribute_item"})

    def decorators(self, x: Context, spec: DefSpec) -> tuple[DecoratorFact, ...]:
        return rust_attributes(x, spec.outer)

    def language(self) -> Language:
        import tree_sitter_rust

        return Language(tree_sitter_rust.language())

    def scope(self, x: Context, node: Node) -> ScopeSpec | None:
        if node.type == "mod_item":
            name = node.child_by_field_name("name")
            return ScopeSpec(node, x.text(name), methods=False) if name is not None else None
        written = _type(x, node.child_by_field_name("type"))
        if written is None:
            return None
        owner = written.rsplit(".", 1)[-1]
        trait = _type(x, node.child_by_field_name("trait"))
        if trait is None:
            return ScopeSpec(node, owner, methods=True)
        trait_name = trait.replace(".", "::")
        return ScopeSpec(
            node, f"<{owner} as {trait_name}>", methods=True, bases=(trait,), owner=owner
        )

    def definition(self, x: Context, spec: DefSpec) -> DefSpec:
        node = spec.node
        if spec.kind == "Trait":
            bounds = node.child_by_field_name("bounds")
            if bounds is not None:
                return spec._replace(bases=tuple(b for b in (_type(x, n) for n in bounds.named_children) if b))
        if spec.kind == "Function":
            return spec._replace(parameters=self._parameters(x, node.child_by_field_name("parameters")))
        return spec

    def _parameters(self, x: Context, parameters: Node | None) -> tuple[str, ...]:
        if parameters is None:
            return ()
        found = []
        for parameter in parameters.named_children:
            if parameter.type != "parameter":
                continue
            pattern = parameter.child_by_field_name("pattern")
            if pattern is None or pattern.type != "identifier":
                continue
            written = _type(x, parameter.child_by_field_name("type"))
            found.append(f"{x.text(pattern)}:{written}" if written else x.text(pattern))
        return tuple(found)

    def call(self, x: Context, node: Node) -> str | None:
        if node.type == "struct_expression":
            written = _type(x, node.child_by_field_name("name"))
            if written is None:
                return ""
            return "" if written in ("Self", "this") else f"new {written}"
        return _dotted(x, node.child_by_field_name("function"))

    def imports(self, x: Context, node: Node) -> Iterable[tuple[str, str | None, str | None, int]]:
        if node.type == "mod_item":
            name = node.child_by_field_name("name")
            return ((x.text(name), None, x.text(name), 1),) if name is not None else ()
        argument = node.child_by_field_name("argument")
        found: list[tuple[str, str | None, str | None, int]] = []
        if argument is not None:
            _use_tree(x, argument, [], found)
        return found

    def local(self, x: Context, node: Node) -> Iterable[tuple[str, str | None]]:
        pattern = node.child_by_field_name("pattern")
        if pattern is None or pattern.type != "identifier":
            return ()
        written = _type(x, node.child_by_field_name("type"))
        if written is None:
            value = node.child_by_field_name("value")
            written = _constructed(x, value)
        return ((x.text(pattern), written),)

    def module_facts(self, x: Context, root: Node) -> tuple[list[Variable], None, None]:
        variables = []
        for child in root.named_children:
            if child.type in ("const_item", "static_item"):
                name = child.child_by_field_name("name")
                if name is not None:
                    variables.append(variable(x, child, x.text(name)))
        return variables, None, None

    def file_docstring(self, x: Context, root: Node) -> str | None:
        lines = []
        for child in root.children:
            if child.type != "line_comment" or not x.text(child).startswith("//!"):
                break
            lines.append(x.text(child))
        if not lines:
            return None
        return clean_comment("\n".join(lines))


def _use_tree(x: Context, node: Node, prefix: list[str], found: list) -> None:
    kind = node.type
    if kind in ("identifier", "crate", "self", "super", "scoped_identifier", "metavariable"):
        parts = [*prefix, *x.text(node).replace(" ", "").split("::")]
        if parts[-1] == "self":  # `use a::b::{self}`: binds b
            parts = parts[:-1]
        if parts:
            found.append(("::".join(parts[:-1]), parts[-1], None, 0))
    elif kind == "use_as_clause":
        path = node.child_by_field_name("path")
        alias = node.child_by_field_name("alias")
        if path is not None:
            parts = [*prefix, *x.text(path).replace(" ", "").split("::")]
            if parts[-1] == "self":
                parts = parts[:-1]
            found.append(("::".join(parts[:-1]), parts[-1], x.text(alias) if alias else None, 0))
    elif kind == "use_wildcard":
        inner = node.named_child(0) if node.named_child_count else None
        parts = [*prefix, *(x.text(inner).split("::") if inner is not None else [])]
        found.append(("::".join(parts), "*", None, 0))
    elif kind == "scoped_use_list":
        path = node.child_by_field_name("path")
        listed = node.child_by_field_name("list")
        inner = [*prefix, *(x.text(path).replace(" ", "").split("::") if path is not None else [])]
        if listed is not None:
            for child in listed.named_children:
                _use_tree(x, child, inner, found)
    elif kind == "use_list":
        for child in node.named_children:
            _use_tree(x, child, prefix, found)


def _type(x: Context, node: Node | None) -> str | None:
    if node is None:
        return None
    return type_name(x.text(node))


def _constructed(x: Context, value: Node | None) -> str | None:
    """`Cart::new()` / `Cart::<T>::new()` / `shop::Cart::new()` / `Cart { … }` → the type."""
    if value is None:
        return None
    if value.type == "struct_expression":
        return _type(x, value.child_by_field_name("name"))
    if value.type != "call_expression":
        return None
    callee = _dotted(x, value.child_by_field_name("function"))
    if callee is None or "." not in callee:
        return None
    owner = callee.rsplit(".", 1)[0]
    return owner if owner.rsplit(".", 1)[-1][:1].isupper() and owner != "this" else None


def _dotted(x: Context, node: Node | None) -> str | None:
    if node is None:
        return None
    kind = node.type
    if kind == "identifier":
        return x.text(node)
    if kind == "self":
        return "this"
    if kind in ("scoped_identifier", "generic_function"):
        if kind == "generic_function":
            return _dotted(x, node.child_by_field_name("function"))
        path = node.child_by_field_name("path")
        name = node.child_by_field_name("name")
        if name is None:
            return None
        if path is None:  # `::f()`
            return x.text(name)
        if path.type == "generic_type":
            base = _type(x, path.child_by_field_name("type"))
        elif path.type in ("crate", "super", "self"):
            base = x.text(path)  # a module path: `self::f()` is not a method call
        elif x.text(path) == "Self":
            base = "this"
        else:
            base = _dotted(x, path)
        return f"{base}.{x.text(name)}" if base else None
    if kind == "field_expression":
        value = _dotted(x, node.child_by_field_name("value"))
        field = node.child_by_field_name("field")
        if value is None or field is None or field.type != "field_identifier":
            return None
        return f"{value}.{x.text(field)}"
    if kind == "parenthesized_expression" and node.named_child_count == 1:
        return _dotted(x, node.named_child(0))
    return None


extract_rust = RustExtractor()
