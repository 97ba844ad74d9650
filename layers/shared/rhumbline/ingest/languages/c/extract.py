"""Phase 1 for C (and the shared part of C++: cpp/extract.py).

Qualnames are plain names in C (`cart_add`); C++ uses `::` (see cpp/extract.py). Definitions:
functions with a body (prototypes are not nodes: the definition is), named structs and unions →
Struct, enums → Enum, `typedef struct { … } Name` → Struct `Name`; file-level variables (not
`extern`) → Variables. A `static` function's signature starts with `static`, which keeps it out
of other files' resolution. Doc comments: the comment block right above.

Calls: `f()`, `s.f()` / `p->f()` (function pointers: matched by name only if the family has
methods of that name). Locals and parameters carry their written type (`struct cart *c` → `cart`).
Imports: `#include "x.h"` → module `x.h`, level 1; `#include <x.h>` → module `x.h`, level 0
(looked up in the repository too: projects include their own headers with `<…>`).

A `.h` file is C unless its content reads like C++: then its language is C++ (languages/
`language_in`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tree_sitter import Language, Node

from rhumbline.ingest.facts import Variable
from rhumbline.ingest.languages.polyglot.extract import (
    Context,
    DefSpec,
    LanguageExtractor,
    variable,
)
from rhumbline.ingest.languages.polyglot.type_names import type_name

QUERY = """
(function_definition) @definition.function
(struct_specifier name: (_) @name body: (_)) @definition.struct
(union_specifier name: (_) @name body: (_)) @definition.struct
(enum_specifier name: (_) @name body: (_)) @definition.enum
(type_definition type: [(struct_specifier body: (_)) (union_specifier body: (_))]) @definition.struct
(type_definition type: (enum_specifier body: (_))) @definition.enum
(call_expression) @call
(preproc_include) @import
(declaration) @local
"""

_DECLARATOR_WRAPPERS = frozenset(
    {
        "pointer_declarator",
        "reference_declarator",
        "function_declarator",
        "parenthesized_declarator",
        "array_declarator",
        "init_declarator",
        "attributed_declarator",
    }
)
_QUOTED = 1


class CExtractor(LanguageExtractor):
    separator = "::"
    query_text = QUERY
    comment_types = frozenset({"comment"})

    def language(self) -> Language:
        import tree_sitter_c

        return Language(tree_sitter_c.language())

    # -- definitions -----------------------------------------------------------------------------
    def definition(self, x: Context, spec: DefSpec) -> DefSpec | None:
        node = spec.node
        if node.type == "function_definition":  # named by its declarator (self.function)
            return self.function(x, node)
        if node.type == "type_definition":  # `typedef struct { … } Name;`
            declarator = node.child_by_field_name("declarator")
            specifier = node.child_by_field_name("type")
            if declarator is None or specifier is None or specifier.child_by_field_name("name"):
                return None  # a named struct is its own definition
            body = specifier.child_by_field_name("body")
            return spec._replace(
                name=x.text(declarator), node=specifier,
                header_end=body.start_byte if body is not None else node.end_byte,
            )  # fmt: skip
        parent = node.parent
        typedef = parent is not None and parent.type == "type_definition"
        return spec._replace(
            name=spec.name.rsplit("::", 1)[-1], outer=self.outer(parent if typedef else node),
            bases=self.bases(x, node),
        )  # fmt: skip

    def function(self, x: Context, node: Node) -> DefSpec | None:
        declarator = node.child_by_field_name("declarator")
        body = node.child_by_field_name("body")
        name_node = declarator_name(declarator)
        if name_node is None:
            return None
        header_end = body.start_byte if body is not None else node.end_byte
        parameters = self.parameters(x, declarator)
        name = x.text(name_node)
        if name_node.type != "qualified_identifier":
            return DefSpec("Function", name, node, self.outer(node), header_end,
                           parameters=parameters)
        # `void Cart::add()` defines a method of Cart; `void util::f()` a function of namespace
        # util. The syntax is the same: a capitalized scope is taken for a class.
        scope, _, name = name.rpartition("::")
        scope = re.sub(r"<[^<>]*>", "", scope).replace(" ", "")
        if scope.rsplit("::", 1)[-1][:1].isupper():
            return DefSpec("Function", name, node, self.outer(node), header_end, owner=scope,
                           parameters=parameters, method=True)
        return DefSpec("Function", f"{scope}::{name}", node, self.outer(node), header_end,
                       parameters=parameters, method=False)

    def outer(self, node: Node) -> Node:
        return node

    def bases(self, x: Context, node: Node) -> tuple[str, ...]:
        return ()

    def parameters(self, x: Context, declarator: Node | None) -> tuple[str, ...]:
        while declarator is not None and declarator.type != "function_declarator":
            declarator = inner_declarator(declarator)
        if declarator is None:
            return ()
        parameters = declarator.child_by_field_name("parameters")
        if parameters is None:
            return ()
        found = []
        for parameter in parameters.named_children:
            if parameter.type not in ("parameter_declaration", "optional_parameter_declaration"):
                continue
            name = declarator_name(parameter.child_by_field_name("declarator"))
            if name is None:
                continue
            written = type_name(x.text(parameter.child_by_field_name("type")))
            found.append(f"{x.text(name)}:{written}" if written else x.text(name))
        return tuple(found)

    # -- calls -----------------------------------------------------------------------------------
    def call(self, x: Context, node: Node) -> str | None:
        if node.type == "new_expression":
            written = type_name(x.text(node.child_by_field_name("type")))
            return f"new {written}" if written else None
        return dotted(x, node.child_by_field_name("function"))

    def imports(self, x: Context, node: Node) -> Iterable[tuple[str, str | None, str | None, int]]:
        path = node.child_by_field_name("path")
        if path is None:
            return ()
        text = x.text(path)
        if path.type == "string_literal":
            return ((text.strip('"'), None, None, _QUOTED),)
        if path.type == "system_lib_string":
            return ((text.strip("<>"), None, None, 0),)
        return ()

    def statement(self, x: Context, node: Node) -> str:
        return x.text(node).strip()

    def local(self, x: Context, node: Node) -> Iterable[tuple[str, str | None]]:
        written = type_name(x.text(node.child_by_field_name("type")))
        found = []
        for declarator in node.children_by_field_name("declarator"):
            name = declarator_name(declarator)
            if name is None or name.type != "identifier":
                continue
            type_text = written
            if type_text in (None, "auto"):
                type_text = None
                value = declarator.child_by_field_name("value")
                if value is not None and value.type == "new_expression":
                    type_text = type_name(x.text(value.child_by_field_name("type")))
            found.append((x.text(name), type_text))
        return found

    def module_facts(self, x: Context, root: Node) -> tuple[list[Variable], None, None]:
        variables: dict[str, Variable] = {}
        for child in root.named_children:
            if child.type != "declaration":
                continue
            if any(
                part.type == "storage_class_specifier" and x.text(part) == "extern"
                for part in child.named_children
            ):
                continue
            for declarator in child.children_by_field_name("declarator"):
                inner = declarator
                while inner is not None and inner.type in _DECLARATOR_WRAPPERS:
                    if inner.type == "function_declarator":
                        break
                    inner = inner_declarator(inner)
                if inner is not None and inner.type == "identifier":
                    name = x.text(inner)
                    variables.setdefault(name, variable(x, child, name))
        return list(variables.values()), None, None


def inner_declarator(node: Node) -> Node | None:
    """The declarator a wrapper wraps: C++'s `&f()` (a reference) holds it under no field name."""
    inner = node.child_by_field_name("declarator")
    if inner is None and node.type == "reference_declarator" and node.named_child_count:
        return node.named_children[-1]
    return inner


def declarator_name(node: Node | None) -> Node | None:
    """The name inside a declarator: `*f(int)` → f, `Cart::add(…)` → Cart::add."""
    while node is not None and node.type in _DECLARATOR_WRAPPERS:
        inner = inner_declarator(node)
        if inner is None:
            return None
        node = inner
    if node is None:
        return None
    if node.type in (
        "identifier",
        "field_identifier",
        "qualified_identifier",
        "destructor_name",
        "operator_name",
        "type_identifier",
    ):
        return node
    return None


def dotted(x: Context, node: Node | None) -> str | None:
    if node is None:
        return None
    kind = node.type
    if kind in ("identifier", "field_identifier"):
        return x.text(node)
    if kind == "this":
        return "this"
    if kind == "field_expression":
        argument = dotted(x, node.child_by_field_name("argument"))
        field = node.child_by_field_name("field")
        if argument is None or field is None or field.type != "field_identifier":
            return None
        return f"{argument}.{x.text(field)}"
    if kind == "qualified_identifier":
        scope = node.child_by_field_name("scope")
        name = node.child_by_field_name("name")
        inner = dotted(x, name)
        if inner is None:
            return None
        if scope is None:  # `::global()`
            return inner
        written = type_name(x.text(scope))
        return f"{written}.{inner}" if written else None
    if kind == "template_function":
        return dotted(x, node.child_by_field_name("name"))
    if kind == "parenthesized_expression" and node.named_child_count == 1:
        return dotted(x, node.named_child(0))
    return None


extract_c = CExtractor()
