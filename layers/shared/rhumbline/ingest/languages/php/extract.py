"""Phase 1 for PHP.

Qualnames: `Cart`, methods `Cart::add` (PHP's own notation), functions `helper`; the namespace is
CodeFacts.namespace (the file's first `namespace` declaration, written with `.` instead of `\\`).
Kinds: class → Class, interface → Interface, trait → Trait, enum → Enum; `extends`,
`implements` and the traits a class `use`s are its bases. Doc comments: the `/** … */` above.

Calls: `f()`, `\\App\\f()` (→ `App.f`), `$obj->m()` (→ `obj.m`), `$this->m()`, `self::m()` and
`static::m()` (→ `this.m`), `parent::m()` (→ `super.m`), `Money::format()`, `new Money()` (→ `new
Money`; `new static` / `new self` → `new this`). Typed parameters, typed properties and `$m = new
Money()` give receiver types. Imports: `use A\\B\\C [as D];` and group uses → module `A.B`, name
`C`; `use function` likewise; `require` / `include` (`_once` too) → module = the path, name None,
level 1 when written `__DIR__ . '/x.php'`, else 2. Top-level `const` are Variables.
"""

from __future__ import annotations

from collections.abc import Iterable

from tree_sitter import Language, Node

from rhumbline.ingest.facts import DecoratorFact, Variable
from rhumbline.ingest.languages.polyglot.decorators import php_attributes
from rhumbline.ingest.languages.polyglot.extract import (
    Context,
    DefSpec,
    LanguageExtractor,
    variable,
)
from rhumbline.ingest.languages.polyglot.type_names import type_name

QUERY = """
(class_declaration name: (_) @name) @definition.class
(interface_declaration name: (_) @name) @definition.interface
(trait_declaration name: (_) @name) @definition.trait
(enum_declaration name: (_) @name) @definition.enum
(method_declaration name: (_) @name) @definition.function
(function_definition name: (_) @name) @definition.function
(function_call_expression) @call
(member_call_expression) @call
(nullsafe_member_call_expression) @call
(scoped_call_expression) @call
(object_creation_expression) @call
(namespace_use_declaration) @import
(require_expression) @import
(require_once_expression) @import
(include_expression) @import
(include_once_expression) @import
(assignment_expression
  left: [(variable_name) (member_access_expression)] right: (object_creation_expression)) @local
(property_declaration) @local
"""

_RELATIVE, _INCLUDE_PATH = 1, 2


class PhpExtractor(LanguageExtractor):
    separator = "::"
    query_text = QUERY

    def decorators(self, x: Context, spec: DefSpec) -> tuple[DecoratorFact, ...]:
        return php_attributes(x, spec.node)

    def language(self) -> Language:
        import tree_sitter_php

        return Language(tree_sitter_php.language_php())

    def definition(self, x: Context, spec: DefSpec) -> DefSpec:
        node = spec.node
        if spec.kind != "Function":
            body = node.child_by_field_name("body")
            bases = []
            for child in node.named_children:
                if child.type in ("base_clause", "class_interface_clause"):
                    bases.extend(_name(x, part) for part in child.named_children)
            if body is not None:
                for member in body.named_children:
                    if member.type == "use_declaration":  # `use Timestamps;`: a trait
                        bases.extend(_name(x, part) for part in member.named_children)
            return spec._replace(bases=tuple(b for b in bases if b))
        return spec._replace(parameters=self._parameters(x, node.child_by_field_name("parameters")))

    def _parameters(self, x: Context, parameters: Node | None) -> tuple[str, ...]:
        if parameters is None:
            return ()
        found = []
        for parameter in parameters.named_children:
            name = parameter.child_by_field_name("name")
            if name is None:
                continue
            written = parameter.child_by_field_name("type")
            type_text = type_name(x.text(written).lstrip("?")) if written is not None else None
            variable_name = x.text(name).lstrip("$")
            found.append(f"{variable_name}:{type_text}" if type_text else variable_name)
        return tuple(found)

    def call(self, x: Context, node: Node) -> str | None:
        kind = node.type
        if kind == "function_call_expression":
            return _name(x, node.child_by_field_name("function"))
        if kind in ("member_call_expression", "nullsafe_member_call_expression"):
            target = _object(x, node.child_by_field_name("object"))
            name = node.child_by_field_name("name")
            if target is None or name is None or name.type != "name":
                return None
            return f"{target}.{x.text(name)}"
        if kind == "scoped_call_expression":
            scope = node.child_by_field_name("scope")
            name = node.child_by_field_name("name")
            if scope is None or name is None or name.type != "name":
                return None
            target = _scope(x, scope)
            return f"{target}.{x.text(name)}" if target else None
        # object_creation_expression
        for child in node.named_children:
            if child.type in ("name", "qualified_name", "relative_scope"):
                written = _scope(x, child)
                if written == "super":
                    return ""
                return f"new {written}" if written else None
        return None

    def imports(self, x: Context, node: Node) -> Iterable[tuple[str, str | None, str | None, int]]:
        if node.type != "namespace_use_declaration":
            return self._require(x, node)
        found = []
        prefix = ""
        for child in node.named_children:
            if child.type == "namespace_name":
                prefix = x.text(child).replace("\\", ".").strip(".")
            elif child.type == "namespace_use_clause":
                found.append(self._use_clause(x, child, ""))
            elif child.type == "namespace_use_group":
                for clause in child.named_children:
                    if clause.type == "namespace_use_clause":
                        found.append(self._use_clause(x, clause, prefix))
        return [f for f in found if f is not None]

    def _use_clause(self, x: Context, clause: Node, prefix: str):
        alias = clause.child_by_field_name("alias")
        path = None
        for child in clause.named_children:
            if child != alias and child.type in ("qualified_name", "name", "namespace_name"):
                path = x.text(child).replace("\\", ".").strip(".")
                break
        if not path:
            return None
        full = f"{prefix}.{path}" if prefix else path
        module, _, name = full.rpartition(".")
        return (module, name, x.text(alias) if alias is not None else None, 0)

    def _require(self, x: Context, node: Node) -> list:
        argument = node.named_child(0) if node.named_child_count else None
        if argument is None:
            return []
        if argument.type == "parenthesized_expression" and argument.named_child_count:
            argument = argument.named_child(0)
        level = _INCLUDE_PATH
        if argument.type == "binary_expression":
            left = argument.child_by_field_name("left")
            if left is None or x.text(left) not in ("__DIR__", "dirname(__FILE__)"):
                return []
            argument = argument.child_by_field_name("right")
            level = _RELATIVE
        if argument is None or argument.type not in ("string", "encapsed_string"):
            return []
        parts = [c for c in argument.named_children if c.type == "string_content"]
        if len(parts) != argument.named_child_count or not parts:
            return []
        path = "".join(x.text(c) for c in parts)
        if level == _RELATIVE:
            path = path.lstrip("/")
        return [(path, None, None, level)]

    def local(self, x: Context, node: Node) -> Iterable[tuple[str, str | None]]:
        if node.type == "property_declaration":
            written = node.child_by_field_name("type")
            type_text = type_name(x.text(written).lstrip("?")) if written is not None else None
            found = []
            for element in node.named_children:
                if element.type == "property_element":
                    name = element.child_by_field_name("name") or (
                        element.named_child(0) if element.named_child_count else None
                    )
                    if name is not None:
                        found.append((x.text(name).lstrip("$"), type_text))
            return found
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        type_text = None
        if right is not None:
            for child in right.named_children:
                if child.type in ("name", "qualified_name"):
                    type_text = _name(x, child)
                    break
        if left is not None and left.type == "member_access_expression":
            target = _object(x, left)  # `$this->total = new Money()`: a field's type
            ok = target is not None and target.startswith("this.") and type_text
            return ((target, type_text),) if ok else ()
        return ((x.text(left).lstrip("$"), type_text),)

    def module_facts(self, x: Context, root: Node) -> tuple[list[Variable], None, str | None]:
        variables = []
        namespace = None
        for child in root.named_children:
            if child.type == "namespace_definition" and namespace is None:
                name = child.child_by_field_name("name")
                if name is not None:
                    namespace = x.text(name).replace("\\", ".").strip(".")
            elif child.type == "const_declaration":
                for element in child.named_children:
                    if element.type == "const_element" and element.named_child_count:
                        variables.append(variable(x, child, x.text(element.named_child(0))))
        return variables, None, namespace


def _name(x: Context, node: Node | None) -> str | None:
    """`Money`, `\\App\\Util\\Money` → `App.Util.Money`; None for dynamic names."""
    if node is None or node.type not in ("name", "qualified_name", "namespace_name"):
        return None
    return x.text(node).replace("\\", ".").strip(".") or None


def _object(x: Context, node: Node | None) -> str | None:
    if node is None:
        return None
    if node.type == "variable_name":
        name = x.text(node).lstrip("$")
        return "this" if name == "this" else name
    if node.type in ("member_access_expression", "nullsafe_member_access_expression"):
        target = _object(x, node.child_by_field_name("object"))
        name = node.child_by_field_name("name")
        if target is None or name is None or name.type != "name":
            return None
        return f"{target}.{x.text(name)}"
    return None


def _scope(x: Context, node: Node) -> str | None:
    if node.type == "relative_scope":
        text = x.text(node)
        return "super" if text == "parent" else "this"
    if node.type == "name" and x.text(node) in ("static", "self"):
        return "this"
    return _name(x, node)


extract_php = PhpExtractor()
