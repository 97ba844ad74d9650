"""Phase 1 for JavaScript (and, through typescript/extract.py, TypeScript and TSX).

Qualnames use `.`: `Cart`, `Cart.addItem`, `outer.inner`. Definitions: classes, function
declarations, functions and class expressions assigned to a `const`/`let`/`var` (`const add =
(a, b) => …`, `const Cart = class { … }`), methods, class fields holding functions
(`handle = () => …`), `Foo.prototype.m = function` (method `Foo.m`),
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
from rhumbline.ingest.languages.javascript.modules import (
    import_bindings,
    import_statement,
    module_level_facts,
)
from rhumbline.ingest.languages.javascript.syntax import (
    CALL_RESULT,
    FUNCTION_VALUES,
    NAME_TYPES,
    THIS,
    body_start,
    dotted,
    exported_statement,
    is_require,
    unwrapped,
)
from rhumbline.ingest.languages.polyglot.decorators import typescript_decorators
from rhumbline.ingest.languages.polyglot.extract import Context, DefSpec, LanguageExtractor

_CLASS_NODES = frozenset({"class_declaration", "abstract_class_declaration", "class"})
_FUNCTION_NODES = frozenset({"function_declaration", "generator_function_declaration"})

JS_QUERY = """
(class_declaration) @definition.class
(function_declaration name: (_) @name body: (_)) @definition.function
(generator_function_declaration name: (_) @name body: (_)) @definition.function
(method_definition) @definition.method
(variable_declarator
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(variable_declarator value: (class)) @definition.class
(field_definition value: [(arrow_function) (function_expression)]) @definition.method
(export_statement value: [(function_expression) (arrow_function)]) @definition.function
(export_statement value: (class)) @definition.class
(assignment_expression
  left: (member_expression) right: [(function_expression) (arrow_function)]) @definition.function
(call_expression) @call
(new_expression) @call
(import_statement) @import
(export_statement source: (_)) @import
(call_expression function: (identifier) @_fn (#eq? @_fn "require")) @import
(variable_declarator name: (identifier)) @local
(variable_declarator name: (object_pattern) value: (this)) @local
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
    def definition(self, x: Context, spec: DefSpec) -> DefSpec | None:
        node = spec.node
        kind = node.type
        if kind in _CLASS_NODES:
            return self._class(x, node)
        if kind in _FUNCTION_NODES:
            return spec._replace(outer=exported_statement(node), parameters=self.parameters(x, node))
        if kind == "method_definition":
            return self._method(x, node)
        if kind == "variable_declarator":
            return self._declared_function(x, node)
        if kind in ("field_definition", "public_field_definition"):
            name = node.child_by_field_name("property") or node.child_by_field_name("name")
            value = node.child_by_field_name("value")
            if name is None or name.type not in NAME_TYPES or not x.in_type:
                return None
            return DefSpec(
                "Function", x.text(name), node, node, body_start(value), method=True,
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
                "Function", "default", value, node, body_start(value),
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
            "Class", name or x.text(name_node), node, exported_statement(node), body.start_byte,
            bases=self.bases(x, node),
        )

    def _method(self, x: Context, node: Node) -> DefSpec | None:
        if not x.in_type:  # a method of an object literal: not addressable by a stable name
            return None
        name = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if name is None or name.type not in NAME_TYPES:
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
        outer = exported_statement(declaration) if declaration is not None else node
        if value.type == "class":  # `const Cart = class { … }`: a class named by its variable
            spec = self._class(x, value, name=x.text(name))
            return spec._replace(outer=outer) if spec is not None else None
        return DefSpec(
            "Function", x.text(name), node, outer, body_start(value),
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
                "Function", parts[-1], node, statement, body_start(value),
                parameters=self.parameters(x, value),
            )
        if len(parts) == 3 and parts[1] == "prototype":
            return DefSpec(
                "Function", parts[2], node, statement, body_start(value), owner=parts[0],
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
        if name is None and function.type == "member_expression":  # `innerFrom(x).subscribe()`
            inner = function.child_by_field_name("object")
            inner = unwrapped(inner) if inner is not None else None
            member = function.child_by_field_name("property")
            called = dotted(x, inner.child_by_field_name("function")) if inner is not None and inner.type == "call_expression" else None
            if called is not None and member is not None and member.type in NAME_TYPES:
                return f"{called}{CALL_RESULT}.{x.text(member)}"
        return name

    # -- imports (javascript/modules.py) -----------------------------------------------------------
    def imports(self, x: Context, node: Node) -> Iterable[tuple[str, str | None, str | None, int]]:
        return import_bindings(x, node)

    def statement(self, x: Context, node: Node) -> str:
        return import_statement(x, node)

    # -- locals ----------------------------------------------------------------------------------
    def local(self, x: Context, node: Node) -> Iterable[tuple[str, str | None]]:
        if node.type == "assignment_expression":  # `this.cart = new Cart()`: a field's type
            target = dotted(x, node.child_by_field_name("left"))
            written = self.local_type(x, node, node.child_by_field_name("right"))
            return ((target, written),) if target and written else ()
        if node.type in ("public_field_definition", "field_definition"):
            name = node.child_by_field_name("name") or node.child_by_field_name("property")
            if name is None or name.type not in NAME_TYPES:
                return ()
            written = self.local_type(x, node, node.child_by_field_name("value"))
            return ((x.text(name), written),)
        value = node.child_by_field_name("value")
        if value is not None and value.type in FUNCTION_VALUES:
            return ()  # a nested function: a definition, not a local value
        if value is not None and is_require(x, value):
            return ()  # bound by the import
        pattern = node.child_by_field_name("name")
        if pattern is not None and pattern.type == "object_pattern" and value is not None and value.type == "this":
            return _fields_of_this(x, pattern)
        return ((x.text(pattern), self.local_type(x, node, value)),)

    def local_type(self, x: Context, node: Node, value: Node | None) -> str | None:
        """A value's type where the value says it: `new C()` is a `C`, `this` the enclosing
        class, `this.a` its field's type, `f()` or `this.m()` what that function declares it returns (`f()`, resolved in
        phase 2)."""
        if value is None:
            return None
        if value.type == "new_expression":
            constructor = value.child_by_field_name("constructor")
            return dotted(x, constructor) if constructor is not None else None
        if value.type == "this":
            return THIS
        if value.type == "member_expression":  # `const out = this._output`: that field's type
            path = dotted(x, value)
            return path if path is not None and path.startswith(f"{THIS}.") and path.count(".") == 1 else None
        if value.type == "call_expression":
            called = dotted(x, value.child_by_field_name("function"))
            return f"{called}{CALL_RESULT}" if called and called != "require" else None
        return None

    # -- module level (javascript/modules.py) ------------------------------------------------------
    def module_facts(
        self, x: Context, root: Node
    ) -> tuple[list[Variable], tuple[str, ...] | None, None]:
        return module_level_facts(x, root)


def _fields_of_this(x: Context, pattern: Node) -> list[tuple[str, str | None]]:
    """`const { _buffer, size: n } = this`: each name typed by the field it is read from
    (`this._buffer`, `this.size`), resolved in phase 2 on the enclosing class."""
    found: list[tuple[str, str | None]] = []
    for part in pattern.named_children:
        if part.type == "shorthand_property_identifier_pattern":
            found.append((x.text(part), f"{THIS}.{x.text(part)}"))
        elif part.type == "pair_pattern":
            key, value = part.child_by_field_name("key"), part.child_by_field_name("value")
            if key is not None and value is not None and key.type in NAME_TYPES and value.type == "identifier":
                found.append((x.text(value), f"{THIS}.{x.text(key)}"))
    return found


def is_minified(source: bytes) -> bool:
    """Bundled or minified output (lines of hundreds of characters on average): built, not
    written, so its one-letter names would only add noise. Its File node stays."""
    return len(source) > 10_000 and source.count(b"\n") * 500 < len(source)


extract_javascript = JavaScriptExtractor()
