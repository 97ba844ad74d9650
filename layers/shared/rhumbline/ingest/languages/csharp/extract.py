"""Phase 1 for C#.

Qualnames use `.` and leave the namespace out (it is CodeFacts.namespace: the file's first
`namespace` block or file-scoped declaration, nested blocks joined — one namespace per file is
assumed): `Cart`, `Cart.Add`, nested `Cart.Line`, constructors `Cart.Cart`, local functions
`Cart.Add.helper`. Overloads share one qualname (the first is the node). Kinds: class and record →
Class, struct and record struct → Struct, interface → Interface, enum → Enum; the base list is
the bases. Doc comments: the `///` XML block above, tags removed.

Calls: `M()`, `obj.M()`, `this.M()`, `base.M()` (→ `super.M`), `new Cart()` / `new()` with a
declared type, `: base(…)` (→ `super`). Parameters, locals (`var m = new Money()`), fields and
properties carry their declared types. Imports: `using A.B;` → module `A.B`, name `*`; `using X
= A.B.C;` → module `A.B`, name `C`, alias `X`; `using static A.B.C;` → module `A.B.C`, name `*`,
level 1.
"""

from __future__ import annotations

from collections.abc import Iterable

from tree_sitter import Language, Node

from rhumbline.ingest.facts import DecoratorFact
from rhumbline.ingest.languages.polyglot.decorators import csharp_attributes
from rhumbline.ingest.languages.polyglot.extract import Context, DefSpec, LanguageExtractor
from rhumbline.ingest.languages.polyglot.type_names import type_name

QUERY = """
(class_declaration name: (_) @name) @definition.class
(record_declaration name: (_) @name) @definition.class
(struct_declaration name: (_) @name) @definition.struct
(interface_declaration name: (_) @name) @definition.interface
(enum_declaration name: (_) @name) @definition.enum
(method_declaration name: (_) @name) @definition.function
(constructor_declaration name: (_) @name) @definition.function
(local_function_statement name: (_) @name) @definition.function
(invocation_expression) @call
(object_creation_expression) @call
(constructor_initializer) @call
(using_directive) @import
(local_declaration_statement) @local
(field_declaration) @local
(property_declaration) @local
"""

class CSharpExtractor(LanguageExtractor):
    separator = "."
    query_text = QUERY

    def decorators(self, x: Context, spec: DefSpec) -> tuple[DecoratorFact, ...]:
        return csharp_attributes(x, spec.node)

    def language(self) -> Language:
        import tree_sitter_c_sharp

        return Language(tree_sitter_c_sharp.language())

    def definition(self, x: Context, spec: DefSpec) -> DefSpec:
        node = spec.node
        if spec.kind != "Function":
            if spec.kind == "Class" and any(c.type == "struct" for c in node.children):
                spec = spec._replace(kind="Struct")  # record struct
            return spec._replace(bases=self._bases(x, node))
        return spec._replace(
            method=False if node.type == "local_function_statement" else None,
            parameters=self._parameters(x, node.child_by_field_name("parameters")),
        )

    def _bases(self, x: Context, node: Node) -> tuple[str, ...]:
        found = []
        for child in node.named_children:
            if child.type == "base_list":
                for part in child.named_children:
                    if part.type == "primary_constructor_base_type":
                        part = part.named_child(0) if part.named_child_count else part
                    base = type_name(x.text(part))
                    if base:
                        found.append(base)
        return tuple(found)

    def _parameters(self, x: Context, parameters: Node | None) -> tuple[str, ...]:
        if parameters is None:
            return ()
        found = []
        for parameter in parameters.named_children:
            if parameter.type != "parameter":
                continue
            name = parameter.child_by_field_name("name")
            if name is None:
                continue
            written = type_name(x.text(parameter.child_by_field_name("type")))
            found.append(f"{x.text(name)}:{written}" if written else x.text(name))
        return tuple(found)

    def call(self, x: Context, node: Node) -> str | None:
        kind = node.type
        if kind == "object_creation_expression":
            written = type_name(x.text(node.child_by_field_name("type")))
            return f"new {written}" if written else None
        if kind == "constructor_initializer":
            return "super" if any(c.type == "base" for c in node.children) else ""
        return _dotted(x, node.child_by_field_name("function"))

    def imports(self, x: Context, node: Node) -> Iterable[tuple[str, str | None, str | None, int]]:
        alias = node.child_by_field_name("name")
        static = any(child.type == "static" for child in node.children)
        path = None
        for child in node.named_children:
            if child.type in ("qualified_name", "identifier") and child != alias:
                path = x.text(child).replace(" ", "")
        if path is None:
            return ()
        if alias is not None:
            module, _, name = path.rpartition(".")
            return ((module, name, x.text(alias), 0),)
        return ((path, "*", None, 1 if static else 0),)

    def local(self, x: Context, node: Node) -> Iterable[tuple[str, str | None]]:
        if node.type == "property_declaration":
            name = node.child_by_field_name("name")
            written = type_name(x.text(node.child_by_field_name("type")))
            return ((x.text(name), written),) if name is not None else ()
        found = []
        for declaration in node.named_children:
            if declaration.type != "variable_declaration":
                continue
            written = type_name(x.text(declaration.child_by_field_name("type")))
            for declarator in declaration.named_children:
                if declarator.type != "variable_declarator":
                    continue
                name = declarator.child_by_field_name("name")
                if name is None:
                    continue
                type_text = written
                if type_text == "var":
                    type_text = None
                    for value in declarator.named_children:
                        if value.type == "object_creation_expression":
                            type_text = type_name(x.text(value.child_by_field_name("type")))
                found.append((x.text(name), type_text))
        return found

    def module_facts(self, x: Context, root: Node):
        names = []
        node = root
        while node is not None:
            found = None
            for child in node.named_children:
                if child.type in ("namespace_declaration", "file_scoped_namespace_declaration"):
                    found = child
                    break
            if found is None:
                break
            name = found.child_by_field_name("name")
            if name is not None:
                names.append(x.text(name).replace(" ", ""))
            block = found.type == "namespace_declaration"  # not file-scoped: may nest
            node = found.child_by_field_name("body") if block else None
        return [], None, ".".join(names) or None


def _dotted(x: Context, node: Node | None) -> str | None:
    if node is None:
        return None
    kind = node.type
    if kind == "identifier":
        return x.text(node)
    if kind == "generic_name":
        name = node.named_child(0) if node.named_child_count else None
        return x.text(name) if name is not None else None
    if kind == "this":
        return "this"
    if kind == "base":
        return "super"
    if kind == "member_access_expression":
        target = _dotted(x, node.child_by_field_name("expression"))
        name = _dotted(x, node.child_by_field_name("name"))
        if target is None or name is None:
            return None
        return f"{target}.{name}"
    if kind == "parenthesized_expression" and node.named_child_count == 1:
        return _dotted(x, node.named_child(0))
    return None


extract_csharp = CSharpExtractor()
