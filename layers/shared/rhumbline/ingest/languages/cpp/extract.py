"""Phase 1 for C++: the C extractor plus classes, namespaces, methods and `new`.

Qualnames use `::` and include the namespace blocks they are in: `shop::Cart`,
`shop::Cart::add`, `shop::helper`. A method declared in its class body (`void add(int);`) is a
Method node whose signature ends with `;` (a declaration); its out-of-line definition
(`void Cart::add(int) { … }`, usually in another file) is another Method node with the same
qualname, and resolution prefers the definition. Inline methods are one node. Kinds: class →
Class, struct/union → Struct, enum → Enum; base classes are the bases. Templates: the
`template <…>` line belongs to the definition (lines, doc comment, hash).

Calls add `this->m()` (→ `this.m`), `Base::m()`, `ns::f()`, `obj.m()` / `ptr->m()` and `new Cart(…)`
(`new Cart`); fields declared in a class body type `field.m()` receivers.
"""

from __future__ import annotations

from collections.abc import Iterable

from tree_sitter import Language, Node

from rhumbline.ingest.languages.c.extract import CExtractor, declarator_name
from rhumbline.ingest.languages.polyglot.extract import Context, DefSpec, ScopeSpec
from rhumbline.ingest.languages.polyglot.type_names import type_name

QUERY = """
(namespace_definition) @scope
(function_definition) @definition.function
(class_specifier name: (_) @name body: (_)) @definition.class
(struct_specifier name: (_) @name body: (_)) @definition.struct
(union_specifier name: (_) @name body: (_)) @definition.struct
(enum_specifier name: (_) @name body: (_)) @definition.enum
(type_definition type: [(struct_specifier body: (_)) (union_specifier body: (_))]) @definition.struct
(type_definition type: (enum_specifier body: (_))) @definition.enum
(field_declaration declarator: (function_declarator)) @definition.method
(declaration declarator: (function_declarator)) @definition.method
(call_expression) @call
(new_expression) @call
(preproc_include) @import
(declaration) @local
(field_declaration) @local
"""


class CppExtractor(CExtractor):
    query_text = QUERY

    def language(self) -> Language:
        import tree_sitter_cpp

        return Language(tree_sitter_cpp.language())

    def scope(self, x: Context, node: Node) -> ScopeSpec | None:
        name = node.child_by_field_name("name")
        if name is None:  # an anonymous namespace: its names are the file's
            return ScopeSpec(node, "", methods=False)
        return ScopeSpec(node, x.text(name).replace(" ", ""), methods=False)

    def definition(self, x: Context, spec: DefSpec) -> DefSpec | None:
        node = spec.node
        if node.type in ("field_declaration", "declaration"):
            # a method declared in its class body; elsewhere a prototype (not a node)
            if not x.in_type:
                return None
            declarator = node.child_by_field_name("declarator")
            name = declarator_name(declarator)
            if name is None or name.type == "qualified_identifier":
                return None
            return spec._replace(name=x.text(name), parameters=self.parameters(x, declarator), declaration=True)
        return super().definition(x, spec)

    def outer(self, node: Node) -> Node:
        parent = node.parent
        return parent if parent is not None and parent.type == "template_declaration" else node

    def bases(self, x: Context, node: Node) -> tuple[str, ...]:
        found = []
        for child in node.named_children:
            if child.type == "base_class_clause":
                for part in child.named_children:
                    if part.type != "access_specifier":
                        name = type_name(x.text(part))
                        if name:
                            found.append(name)
        return tuple(found)

    def local(self, x: Context, node: Node) -> Iterable[tuple[str, str | None]]:
        declarator = node.child_by_field_name("declarator")
        if declarator is None or declarator.type == "function_declarator":
            return ()  # a method declaration or a prototype, not a variable
        return super().local(x, node)


extract_cpp = CppExtractor()
