"""Phase 1 for Ruby.

Qualnames follow Ruby's documentation style: modules and classes nest with `::` (`Shop::Cart`,
`class Shop::Wishlist` too), instance methods with `#` (`Shop::Cart#add`), singleton methods with
`.` (`Shop::Cart.create`, and every `def` inside `class << self`). Kinds: class → Class, module →
Module; the superclass and the modules given to `include` / `extend` / `prepend` in the body are
the bases. Doc comments: the `#` block above.

Calls: `m(…)` and bare statements `m` (a method call or a local: phase 2 tells), `obj.m`,
`self.m` (→ `this.m`), `Cart.new` (→ `new Cart`), bare `new` in a class (→ `new this`), `super` (→
`super.<current method>`), `Shop::Util.helper` (→ `Shop.Util.helper`). `c = Cart.new` types local
`c`. Imports: `require "x"` (level 0), `require_relative "x"` (level 1), `load`. Top-level
constants are Variables.
"""

from __future__ import annotations

from collections.abc import Iterable

from tree_sitter import Language, Node

from rhumbline.ingest.facts import Variable
from rhumbline.ingest.languages.polyglot.comments import doc_comment
from rhumbline.ingest.languages.polyglot.extract import (
    Context,
    DefSpec,
    LanguageExtractor,
    variable,
)

QUERY = """
(module name: (_) @name) @definition.module
(class name: (_) @name) @definition.class
(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.function
(call) @call
(body_statement (identifier) @call)
(super) @call
(call
  method: (identifier) @_m (#match? @_m "^(require|require_relative|load)$")
  arguments: (argument_list . (string))) @import
(assignment left: [(identifier) (instance_variable)] right: (call)) @local
"""

_REQUIRES = {"require": 0, "require_relative": 1, "load": 0}
_MIXINS = frozenset({"include", "extend", "prepend"})
# Class-body declarations that look like calls.
_DECLARATIONS = frozenset(
    {
        "private",
        "protected",
        "public",
        "module_function",
        "private_constant",
        "private_class_method",
    }
)


class RubyExtractor(LanguageExtractor):
    separator = "::"
    query_text = QUERY

    def language(self) -> Language:
        import tree_sitter_ruby

        return Language(tree_sitter_ruby.language())

    def definition(self, x: Context, spec: DefSpec) -> DefSpec:
        node = spec.node
        body = node.child_by_field_name("body")
        spec = spec._replace(header_end=_header_end(node, body), docstring=_doc(x, node))
        if spec.kind != "Function":
            text = spec.name.replace(" ", "").lstrip(":")
            owner, _, simple = text.rpartition("::")
            bases = []
            superclass = node.child_by_field_name("superclass")
            if superclass is not None and superclass.named_child_count:
                base = _constant(x, superclass.named_child(0))
                if base:
                    bases.append(base)
            if body is not None:
                bases.extend(_mixins(x, body))
            return spec._replace(
                name=simple, bases=tuple(bases), owner=owner or None, joiner="::" if owner else None, method=False
            )
        singleton = node.type == "singleton_method" or _in_singleton_class(node)
        return spec._replace(
            joiner="." if singleton else "#",
            parameters=self._parameters(x, node.child_by_field_name("parameters")),
        )

    def _parameters(self, x: Context, parameters: Node | None) -> tuple[str, ...]:
        if parameters is None:
            return ()
        names = []
        for child in parameters.named_children:
            if child.type == "identifier":
                names.append(x.text(child))
            else:
                inner = child.child_by_field_name("name")
                if inner is not None:
                    names.append(x.text(inner))
        return tuple(names)

    def call(self, x: Context, node: Node) -> str | None:
        kind = node.type
        if kind == "identifier":  # a bare statement: `save`
            name = x.text(node)
            return "" if name in _DECLARATIONS else name
        if kind == "super":
            method = _current_method(x)
            return f"super.{method}" if method else None
        method = node.child_by_field_name("method")
        receiver = node.child_by_field_name("receiver")
        if method is None:
            return None
        if method.type == "super":
            return ""  # `super(…)`: the `super` node inside is the call
        name = x.text(method)
        if receiver is None:
            declares = name in _MIXINS or name in _DECLARATIONS or name.startswith("attr_")
            if name in _REQUIRES or declares:
                return ""  # an import or a declaration, not a call into the repository
            if name == "new":
                return "new this"
            return name
        target = _receiver(x, receiver)
        if target is None:
            return None
        if name == "new":
            return f"new {target}" if target != "this" else "new this"
        return f"{target}.{name}"

    def imports(self, x: Context, node: Node) -> Iterable[tuple[str, str | None, str | None, int]]:
        method = node.child_by_field_name("method")
        arguments = node.child_by_field_name("arguments")
        if method is None or arguments is None or not arguments.named_child_count:
            return ()
        string = arguments.named_child(0)
        content = "".join(x.text(c) for c in string.named_children if c.type == "string_content")
        if not content or len(string.named_children) != 1:
            return ()  # an interpolated path
        return ((content, None, None, _REQUIRES[x.text(method)]),)

    def local(self, x: Context, node: Node) -> Iterable[tuple[str, str | None]]:
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        type_text = None
        if right is not None and right.type == "call":
            method = right.child_by_field_name("method")
            receiver = right.child_by_field_name("receiver")
            if method is not None and x.text(method) == "new" and receiver is not None:
                type_text = _constant(x, receiver)
        name = x.text(left)
        if left.type == "instance_variable":  # `@cart = Cart.new`: a field's type
            return ((f"this.{name.lstrip('@')}", type_text),) if type_text else ()
        return ((name, type_text),)

    def module_facts(self, x: Context, root: Node) -> tuple[list[Variable], None, None]:
        variables = []
        for child in root.named_children:
            if child.type == "assignment":
                left = child.child_by_field_name("left")
                if left is not None and left.type == "constant":
                    variables.append(variable(x, child, x.text(left)))
        return variables, None, None


def _header_end(node: Node, body: Node | None) -> int:
    """End of `class Cart < Base` / `def add(item)`: the line's last named part before the body."""
    end = node.start_byte
    for child in node.children:
        if child == body or child.type in ("comment", "body_statement", "end", ";", "\n"):
            break
        end = child.end_byte
    return end


def _doc(x: Context, node: Node) -> str | None:
    found = doc_comment(x.source, node, frozenset({"comment"}))
    if found is None and node.prev_sibling is None and node.parent is not None:
        # The first statement of a body: tree-sitter-ruby hangs the comments above it on the
        # enclosing class or module, before its body.
        parent = node.parent
        if parent.type == "body_statement":
            found = doc_comment(x.source, parent, frozenset({"comment"}))
    return found


def _in_singleton_class(node: Node) -> bool:
    parent = node.parent
    if parent is not None and parent.type == "body_statement":
        parent = parent.parent
    return parent is not None and parent.type == "singleton_class"


def _mixins(x: Context, body: Node) -> list[str]:
    found = []
    for statement in body.named_children:
        if statement.type != "call" or statement.child_by_field_name("receiver") is not None:
            continue
        method = statement.child_by_field_name("method")
        arguments = statement.child_by_field_name("arguments")
        if method is None or x.text(method) not in _MIXINS or arguments is None:
            continue
        for argument in arguments.named_children:
            name = _constant(x, argument)
            if name:
                found.append(name)
    return found


def _constant(x: Context, node: Node) -> str | None:
    if node.type == "constant":
        return x.text(node)
    if node.type == "scope_resolution":
        scope = node.child_by_field_name("scope")
        name = node.child_by_field_name("name")
        if name is None:
            return None
        if scope is None:  # `::Cart`
            return x.text(name)
        inner = _constant(x, scope)
        return f"{inner}.{x.text(name)}" if inner else None
    return None


def _receiver(x: Context, node: Node) -> str | None:
    kind = node.type
    if kind == "self":
        return "this"
    if kind == "identifier":
        return x.text(node)
    if kind == "instance_variable":  # `@items.push`: a field of unknown type
        return f"this.{x.text(node).lstrip('@')}"
    return _constant(x, node)


def _current_method(x: Context) -> str | None:
    prefix = x.prefix
    for separator in ("#", "."):
        if separator in prefix:
            return prefix.rsplit(separator, 1)[-1]
    return None


extract_ruby = RubyExtractor()
