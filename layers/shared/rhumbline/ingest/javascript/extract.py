"""Phase 1 for JavaScript (and, through typescript/extract.py, TypeScript and TSX).

Qualnames use `.`: `Cart`, `Cart.addItem`, `outer.inner`. Definitions: classes, function
declarations, functions assigned to a `const`/`let`/`var` (`const add = (a, b) => …`), methods,
class fields holding functions (`handle = () => …`), `Foo.prototype.m = function` (method `Foo.m`),
CommonJS `exports.f = function` (function `f`), and an anonymous `export default function` (named
`default`). Doc comments: the comment block right above (JSDoc or `//`).

Imports (ImportFact): `import D, {a as b} from "./m"` gives name `default` alias `D`, and `a`
alias `b`; `import * as ns` gives name `*` alias `ns`; `const x = require("./m")` gives name None
alias `x`; `const {a} = require("./m")` gives name `a`; a bare `import "./m"` / `require("./m")`
binds nothing. `export … from "./m"` are re-exports: level 1, the alias being the exported name.
Exports (CodeFacts.exports): `exported=local` for `export` declarations and clauses, and for
CommonJS `module.exports = X` (`default=X`), `module.exports = {a, b: c}`, `exports.a = a`.
Minified files (lines of 500+ characters on average) give no facts: see `is_minified`.
"""

from __future__ import annotations

from collections.abc import Iterable

from tree_sitter import Language, Node

from rhumbline.ingest.facts import CodeFacts, DecoratorFact, Variable
from rhumbline.ingest.polyglot.decorators import typescript_decorators
from rhumbline.ingest.polyglot.extract import (
    Context,
    DefSpec,
    LanguageExtractor,
    ScopeSpec,
    type_name,
    variable,
)

_FUNCTION_VALUES = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function"}
)
_CLASS_NODES = frozenset({"class_declaration", "abstract_class_declaration", "class"})
_FUNCTION_NODES = frozenset({"function_declaration", "generator_function_declaration"})
_DECLARATIONS = frozenset({"lexical_declaration", "variable_declaration"})
_NAME_TYPES = frozenset(
    {"identifier", "property_identifier", "private_property_identifier", "type_identifier"}
)

JS_QUERY = """
(class_declaration) @definition
(function_declaration) @definition
(generator_function_declaration) @definition
(method_definition) @definition
(variable_declarator
  value: [(arrow_function) (function_expression) (generator_function)]) @definition
(field_definition value: [(arrow_function) (function_expression)]) @definition
(export_statement value: [(function_expression) (arrow_function) (class)]) @definition
(assignment_expression
  left: (member_expression) right: [(function_expression) (arrow_function)]) @definition
(call_expression) @call
(new_expression) @call
(import_statement) @import
(export_statement source: (_)) @import
(call_expression function: (identifier) @_fn (#eq? @_fn "require")) @import
(variable_declarator name: (identifier)) @local
(assignment_expression left: (member_expression object: (this)) right: (new_expression)) @local
"""


class JavaScriptExtractor(LanguageExtractor):
    separator = "."
    query_text = JS_QUERY

    def __call__(self, source: bytes) -> CodeFacts:
        if is_minified(source):
            return CodeFacts(None, (), (), (), (), 0, None, False)
        return self.extract(source)

    def decorators(self, x: Context, spec: DefSpec) -> tuple[DecoratorFact, ...]:
        return typescript_decorators(x, spec.node, spec.outer)

    def language(self) -> Language:
        import tree_sitter_javascript

        return Language(tree_sitter_javascript.language())

    # -- definitions -----------------------------------------------------------------------------
    def definition(self, x: Context, node: Node) -> DefSpec | None:
        kind = node.type
        if kind in _CLASS_NODES:
            return self._class(x, node)
        if kind in _FUNCTION_NODES:
            name = node.child_by_field_name("name")
            body = node.child_by_field_name("body")
            if name is None or body is None:
                return None
            return DefSpec(
                "Function", x.text(name), node, _exported(node), body.start_byte,
                parameters=self.parameters(x, node),
            )
        if kind == "method_definition":
            return self._method(x, node)
        if kind == "variable_declarator":
            return self._declared_function(x, node)
        if kind in ("field_definition", "public_field_definition"):
            name = node.child_by_field_name("property") or node.child_by_field_name("name")
            value = node.child_by_field_name("value")
            if name is None or name.type not in _NAME_TYPES or not x.in_type:
                return None
            return DefSpec(
                "Function", x.text(name), node, node, _body_start(value), method=True,
                parameters=self.parameters(x, value),
            )
        if kind == "export_statement":  # `export default function () {}`: named `default`
            value = node.child_by_field_name("value")
            if value is None or not x.at_top:
                return None
            if value.type == "class":
                spec = self._class(x, value, name="default")
                return spec._replace(outer=node) if spec else None
            return DefSpec(
                "Function", "default", value, node, _body_start(value),
                parameters=self.parameters(x, value),
            )
        if kind == "assignment_expression":
            return self._assigned_function(x, node)
        return None

    def _class(self, x: Context, node: Node, name: str | None = None) -> DefSpec | None:
        name_node = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if body is None or (name_node is None and name is None):
            return None
        return DefSpec(
            "Class", name or x.text(name_node), node, _exported(node), body.start_byte,
            bases=self.bases(x, node),
        )

    def _method(self, x: Context, node: Node) -> DefSpec | None:
        if not x.in_type:  # a method of an object literal: not addressable by a stable name
            return None
        name = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if name is None or name.type not in _NAME_TYPES:
            return None
        return DefSpec(
            "Function", x.text(name), node, node, body.start_byte if body else node.end_byte,
            method=True, parameters=self.parameters(x, node),
        )

    def _declared_function(self, x: Context, node: Node) -> DefSpec | None:
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        if name is None or name.type != "identifier" or value is None:
            return None
        declaration = node.parent
        outer = _exported(declaration) if declaration is not None else node
        return DefSpec(
            "Function", x.text(name), node, outer, _body_start(value),
            header_start=declaration.start_byte if declaration is not None else None,
            parameters=self.parameters(x, value),
        )

    def _assigned_function(self, x: Context, node: Node) -> DefSpec | None:
        """`exports.f = function`, `module.exports.f = …`, `Foo.prototype.m = function`."""
        if not x.at_top:
            return None
        left = node.child_by_field_name("left")
        value = node.child_by_field_name("right")
        path = dotted(x, left)
        if path is None or value is None:
            return None
        parts = path.split(".")
        statement = node.parent if node.parent is not None else node
        if len(parts) == 2 and parts[0] == "exports" or (
            len(parts) == 3 and parts[:2] == ["module", "exports"]
        ):
            return DefSpec(
                "Function", parts[-1], node, statement, _body_start(value),
                parameters=self.parameters(x, value),
            )
        if len(parts) == 3 and parts[1] == "prototype":
            return DefSpec(
                "Function", parts[2], node, statement, _body_start(value), owner=parts[0],
                parameters=self.parameters(x, value),
            )
        return None

    def bases(self, x: Context, node: Node) -> tuple[str, ...]:
        for child in node.named_children:
            if child.type == "class_heritage":
                found = []
                for part in child.named_children:
                    found.extend(self._heritage(x, part))
                return tuple(found)
        return ()

    def _heritage(self, x: Context, node: Node) -> list[str]:
        name = dotted(x, node)
        return [name] if name else []

    def parameters(self, x: Context, node: Node | None) -> tuple[str, ...]:
        if node is None:
            return ()
        parameters = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
        if parameters is None:
            return ()
        if parameters.type == "identifier":  # `x => …`
            return (x.text(parameters),)
        names = []
        for child in parameters.named_children:
            names.extend(self._parameter(x, child))
        return tuple(names)

    def _parameter(self, x: Context, node: Node) -> list[str]:
        if node.type == "identifier":
            return [x.text(node)]
        if node.type in ("assignment_pattern", "rest_pattern"):
            inner = node.child_by_field_name("left") or (
                node.named_child(0) if node.named_child_count else None
            )
            return [x.text(inner)] if inner is not None and inner.type == "identifier" else []
        return []

    # -- calls -----------------------------------------------------------------------------------
    def call(self, x: Context, node: Node) -> str | None:
        if node.type == "new_expression":
            constructor = node.child_by_field_name("constructor")
            name = dotted(x, constructor) if constructor is not None else None
            return f"new {name}" if name else None
        function = node.child_by_field_name("function")
        if function is None:
            return None
        if function.type == "import":  # `import("./x")`
            return ""
        name = dotted(x, function)
        if name == "require":
            return ""  # an import (see `imports`)
        return name

    # -- imports -----------------------------------------------------------------------------------
    def imports(self, x: Context, node: Node) -> Iterable[tuple[str, str | None, str | None, int]]:
        if node.type == "call_expression":
            return self._require(x, node)
        source = node.child_by_field_name("source")
        if source is None:  # TS `import fs = require("fs")`: the source is in the clause
            for child in node.named_children:
                if child.type == "import_require_clause":
                    source = child.child_by_field_name("source")
        module = _string(x, source)
        if module is None:
            return []
        if node.type == "export_statement":
            return self._re_exports(x, node, module)
        found: list[tuple[str, str | None, str | None, int]] = []
        for child in node.named_children:
            if child.type == "import_clause":
                for part in child.named_children:
                    if part.type == "identifier":
                        found.append((module, "default", x.text(part), 0))
                    elif part.type == "namespace_import":
                        alias = _first_identifier(part)
                        found.append((module, "*", x.text(alias) if alias else None, 0))
                    elif part.type == "named_imports":
                        for specifier in part.named_children:
                            if specifier.type == "import_specifier":
                                name = specifier.child_by_field_name("name")
                                alias = specifier.child_by_field_name("alias")
                                found.append(
                                    (module, x.text(name), x.text(alias) if alias else None, 0)
                                )
            elif child.type == "import_require_clause":  # TS `import fs = require("fs")`
                alias = _first_identifier(child)
                found.append((module, None, x.text(alias) if alias else None, 0))
        return found or [(module, None, None, 0)]

    def statement(self, x: Context, node: Node) -> str:
        if node.type == "call_expression":  # require(): quote its declaration
            parent = node.parent
            if parent is not None and parent.type == "variable_declarator" and parent.parent:
                return x.text(parent.parent)
        return x.text(node)

    def _re_exports(self, x: Context, node: Node, module: str) -> list:
        found = []
        for child in node.named_children:
            if child.type == "export_clause":
                for specifier in child.named_children:
                    if specifier.type == "export_specifier":
                        name = specifier.child_by_field_name("name")
                        alias = specifier.child_by_field_name("alias")
                        exported = x.text(alias) if alias is not None else x.text(name)
                        found.append((module, x.text(name), exported, 1))
            elif child.type == "namespace_export":  # `export * as ns from`
                alias = _first_identifier(child)
                found.append((module, "*", x.text(alias) if alias else None, 1))
        return found or [(module, "*", None, 1)]

    def _require(self, x: Context, node: Node) -> list:
        arguments = node.child_by_field_name("arguments")
        argument = arguments.named_child(0) if arguments and arguments.named_child_count else None
        module = _string(x, argument)
        if module is None:
            return []
        declarator = node.parent
        if declarator is None or declarator.type != "variable_declarator":
            return [(module, None, None, 0)]
        target = declarator.child_by_field_name("name")
        if target is None:
            return [(module, None, None, 0)]
        if target.type == "identifier":
            return [(module, None, x.text(target), 0)]
        found = []
        if target.type == "object_pattern":
            for part in target.named_children:
                if part.type == "shorthand_property_identifier_pattern":
                    found.append((module, x.text(part), None, 0))
                elif part.type == "pair_pattern":
                    key = part.child_by_field_name("key")
                    value = part.child_by_field_name("value")
                    if key is not None and value is not None and value.type == "identifier":
                        found.append((module, x.text(key), x.text(value), 0))
        return found or [(module, None, None, 0)]

    # -- locals ----------------------------------------------------------------------------------
    def local(self, x: Context, node: Node) -> Iterable[tuple[str, str | None]]:
        if node.type == "assignment_expression":  # `this.cart = new Cart()`: a field's type
            target = dotted(x, node.child_by_field_name("left"))
            written = self.local_type(x, node, node.child_by_field_name("right"))
            return ((target, written),) if target and written else ()
        if node.type in ("public_field_definition", "field_definition"):
            name = node.child_by_field_name("name") or node.child_by_field_name("property")
            if name is None or name.type not in _NAME_TYPES:
                return ()
            written = self.local_type(x, node, node.child_by_field_name("value"))
            return ((x.text(name), written),)
        value = node.child_by_field_name("value")
        if value is not None and value.type in _FUNCTION_VALUES:
            return ()  # a nested function: a definition, not a local value
        if value is not None and value.type == "call_expression":
            function = value.child_by_field_name("function")
            if function is not None and x.text(function) == "require":
                return ()  # bound by the import
        name = x.text(node.child_by_field_name("name"))
        return ((name, self.local_type(x, node, value)),)

    def local_type(self, x: Context, node: Node, value: Node | None) -> str | None:
        if value is not None and value.type == "new_expression":
            constructor = value.child_by_field_name("constructor")
            return dotted(x, constructor) if constructor is not None else None
        return None

    # -- module level ------------------------------------------------------------------------------
    def module_facts(
        self, x: Context, root: Node
    ) -> tuple[list[Variable], tuple[str, ...] | None, None]:
        variables: dict[str, Variable] = {}
        exports: list[str] = []
        for child in root.named_children:
            statement = child
            exported = child.type == "export_statement"
            if exported:
                self._exports(x, child, exports)
                declaration = child.child_by_field_name("declaration")
                if declaration is None:
                    continue
                child = declaration
            if child.type in _DECLARATIONS:
                for declarator in child.named_children:
                    if declarator.type != "variable_declarator":
                        continue
                    name = declarator.child_by_field_name("name")
                    value = declarator.child_by_field_name("value")
                    if name is None or name.type != "identifier":
                        continue
                    if value is not None and (
                        value.type in _FUNCTION_VALUES or _is_require(x, value)
                    ):
                        continue
                    text = x.text(name)
                    variables.setdefault(text, variable(x, statement, text))
            elif child.type == "expression_statement":
                _commonjs_exports(x, child, exports)
        return list(variables.values()), tuple(dict.fromkeys(exports)) or None, None

    def _exports(self, x: Context, node: Node, exports: list[str]) -> None:
        if node.child_by_field_name("source") is not None:
            return  # a re-export: an import fact
        default = any(child.type == "default" for child in node.children)
        declaration = node.child_by_field_name("declaration")
        value = node.child_by_field_name("value")
        if declaration is not None:
            names = _declared_names(x, declaration)
            if default:
                exports.extend(f"default={n}" for n in names[:1])
            else:
                exports.extend(f"{n}={n}" for n in names)
            return
        if value is not None:
            if value.type == "identifier":
                exports.append(f"default={x.text(value)}")
            elif value.type in _FUNCTION_VALUES or value.type == "class":
                exports.append("default=default")
            return
        for child in node.named_children:
            if child.type == "export_clause":
                for specifier in child.named_children:
                    if specifier.type == "export_specifier":
                        name = x.text(specifier.child_by_field_name("name"))
                        alias = specifier.child_by_field_name("alias")
                        exports.append(f"{x.text(alias) if alias else name}={name}")


class TypeScriptMixin:
    """What TypeScript adds: interfaces, enums, abstract members, namespaces, typed locals."""

    def scope(self, x: Context, node: Node) -> ScopeSpec | None:
        name = node.child_by_field_name("name")
        if name is None or name.type not in ("identifier", "nested_identifier"):
            return None  # `declare module "x"`: an ambient module, not a namespace
        return ScopeSpec(node, x.text(name), methods=False)

    def definition(self, x: Context, node: Node) -> DefSpec | None:
        kind = node.type
        if kind == "interface_declaration":
            name = node.child_by_field_name("name")
            body = node.child_by_field_name("body")
            if name is None or body is None:
                return None
            bases = []
            for child in node.named_children:
                if child.type == "extends_type_clause":
                    bases.extend(self._heritage(x, t) for t in child.named_children)
            return DefSpec(
                "Interface", x.text(name), node, _exported(node), body.start_byte,
                bases=tuple(b for found in bases for b in found),
            )
        if kind == "enum_declaration":
            name = node.child_by_field_name("name")
            body = node.child_by_field_name("body")
            if name is None or body is None:
                return None
            return DefSpec("Enum", x.text(name), node, _exported(node), body.start_byte)
        if kind in ("method_signature", "abstract_method_signature"):
            name = node.child_by_field_name("name")
            if name is None or name.type not in _NAME_TYPES or not x.in_type:
                return None
            return DefSpec(
                "Function", x.text(name), node, node, node.end_byte, method=True,
                parameters=self.parameters(x, node),
            )
        return super().definition(x, node)  # type: ignore[misc]

    def bases(self, x: Context, node: Node) -> tuple[str, ...]:
        found: list[str] = []
        for child in node.named_children:
            if child.type == "class_heritage":
                for clause in child.named_children:
                    if clause.type == "extends_clause":
                        value = clause.child_by_field_name("value")
                        found.extend(self._heritage(x, value) if value is not None else [])
                    elif clause.type == "implements_clause":
                        for part in clause.named_children:
                            found.extend(self._heritage(x, part))
        return tuple(found)

    def _heritage(self, x: Context, node: Node) -> list[str]:
        if node.type in ("type_identifier", "nested_type_identifier", "generic_type"):
            name = type_name(x.text(node))
            return [name] if name else []
        return super()._heritage(x, node)  # type: ignore[misc]

    def _parameter(self, x: Context, node: Node) -> list[str]:
        if node.type in ("required_parameter", "optional_parameter"):
            pattern = node.child_by_field_name("pattern")
            if pattern is None or pattern.type != "identifier":
                return []
            annotation = node.child_by_field_name("type")
            written = type_name(x.text(annotation).lstrip(":")) if annotation is not None else None
            name = x.text(pattern)
            found = [f"{name}:{written}" if written else name]
            modifiers = {c.type for c in node.children}
            if written and modifiers & {"accessibility_modifier", "readonly"}:
                found.append(f"this.{name}:{written}")  # `constructor(private cart: Cart)`
            return found
        return super()._parameter(x, node)  # type: ignore[misc]

    def local_type(self, x: Context, node: Node, value: Node | None) -> str | None:
        annotation = node.child_by_field_name("type")
        if annotation is not None:
            return type_name(x.text(annotation).lstrip(":"))
        return super().local_type(x, node, value)  # type: ignore[misc]


def is_minified(source: bytes) -> bool:
    """Bundled or minified output (lines of hundreds of characters on average): built, not
    written, so its one-letter names would only add noise. Its File node stays."""
    return len(source) > 10_000 and source.count(b"\n") * 500 < len(source)


def dotted(x: Context, node: Node | None) -> str | None:
    """`a.b.c`, `this.m`, `super.m` for a member chain of plain names; None otherwise."""
    if node is None:
        return None
    kind = node.type
    if kind == "identifier":
        return x.text(node)
    if kind == "this":
        return "this"
    if kind == "super":
        return "super"
    if kind == "member_expression":
        obj = node.child_by_field_name("object")
        prop = node.child_by_field_name("property")
        if prop is None or prop.type not in _NAME_TYPES:
            return None
        base = dotted(x, obj)
        return None if base is None else f"{base}.{x.text(prop)}"
    if kind == "parenthesized_expression" and node.named_child_count == 1:
        return dotted(x, node.named_child(0))
    return None


def _exported(node: Node) -> Node:
    """The export statement around a declaration, which holds its doc comment and `export`."""
    parent = node.parent
    if parent is not None and parent.type == "export_statement":
        return parent
    return node


def _body_start(value: Node | None) -> int:
    if value is None:
        return 0
    body = value.child_by_field_name("body")
    return body.start_byte if body is not None else value.end_byte


def _string(x: Context, node: Node | None) -> str | None:
    if node is None or node.type != "string":
        return None
    for child in node.named_children:
        if child.type == "string_fragment":
            return x.text(child)
    return ""


def _first_identifier(node: Node) -> Node | None:
    for child in node.named_children:
        if child.type == "identifier":
            return child
    return None


def _is_require(x: Context, value: Node) -> bool:
    if value.type != "call_expression":
        return False
    function = value.child_by_field_name("function")
    return function is not None and x.text(function) == "require"


def _declared_names(x: Context, declaration: Node) -> list[str]:
    if declaration.type in _DECLARATIONS:
        names = []
        for declarator in declaration.named_children:
            if declarator.type == "variable_declarator":
                name = declarator.child_by_field_name("name")
                if name is not None and name.type == "identifier":
                    names.append(x.text(name))
        return names
    name = declaration.child_by_field_name("name")
    return [x.text(name)] if name is not None else []


def _commonjs_exports(x: Context, statement: Node, exports: list[str]) -> None:
    assignment = statement.named_child(0) if statement.named_child_count else None
    if assignment is None or assignment.type != "assignment_expression":
        return
    target = dotted(x, assignment.child_by_field_name("left"))
    value = assignment.child_by_field_name("right")
    if target is None or value is None:
        return
    if target == "module.exports":
        if value.type == "identifier":
            exports.append(f"default={x.text(value)}")
        elif value.type == "object":
            for part in value.named_children:
                if part.type == "shorthand_property_identifier":
                    exports.append(f"{x.text(part)}={x.text(part)}")
                elif part.type == "pair":
                    key = part.child_by_field_name("key")
                    item = part.child_by_field_name("value")
                    if key is not None and item is not None and item.type == "identifier":
                        exports.append(f"{x.text(key)}={x.text(item)}")
        return
    parts = target.split(".")
    if len(parts) == 2 and parts[0] == "exports" or (
        len(parts) == 3 and parts[:2] == ["module", "exports"]
    ):
        name = parts[-1]
        if value.type == "identifier":
            exports.append(f"{name}={x.text(value)}")
        elif value.type in _FUNCTION_VALUES:
            exports.append(f"{name}={name}")


extract_javascript = JavaScriptExtractor()
