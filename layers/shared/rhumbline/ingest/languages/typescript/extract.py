"""Phase 1 for TypeScript and TSX: the JavaScript extractor plus TypeScript's declarations.

Everything in javascript/extract.py applies (qualnames with `.`, imports, exports, CommonJS); plus
interfaces (kind Interface, `extends` as bases), enums (Enum), abstract classes, method signatures
of interfaces and abstract methods (Method), `implements` clauses as bases, `namespace X { }`
blocks prefixing qualnames (`X.inner`), `import x = require("m")`, and types of parameters and
locals (`c: Cart`, a function expression's parameters included) for receiver resolution; a
callback's untyped parameters are typed by their place in the call (phase 2 reads the callee's
parameter of function type, or the function type a type alias names: the alias is recorded as
the local `type Handler`). `.ts` files use the TypeScript grammar, `.tsx` files the
TSX one (they differ on `<T>x` casts versus JSX).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable

from tree_sitter import Language, Node

from rhumbline.ingest.languages.javascript.extract import JavaScriptExtractor
from rhumbline.ingest.languages.javascript.syntax import (
    CALLBACK_TYPE,
    CAST,
    CONTEXTUAL_TYPE,
    NAME_TYPES,
    THIS,
    TYPE_ALIAS,
    dotted,
    exported_statement,
    unwrapped,
)
from rhumbline.ingest.languages.polyglot.extract import Context, DefSpec, ScopeSpec
from rhumbline.ingest.languages.polyglot.type_names import type_name

TS_QUERY = """
(internal_module) @scope
(class_declaration) @definition.class
(abstract_class_declaration) @definition.class
(interface_declaration name: (_) @name body: (_)) @definition.interface
(enum_declaration name: (_) @name body: (_)) @definition.enum
(function_declaration name: (_) @name body: (_)) @definition.function
(generator_function_declaration name: (_) @name body: (_)) @definition.function
(function_signature name: (_) @name) @definition.function
(method_definition) @definition.method
(method_signature name: (_) @name) @definition.method
(abstract_method_signature name: (_) @name) @definition.method
(variable_declarator
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(variable_declarator value: (class)) @definition.class
(public_field_definition value: [(arrow_function) (function_expression)]) @definition.method
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
(public_field_definition) @local
(arrow_function) @local
(function_expression) @local
(object (method_definition) @local)
(interface_body (property_signature) @local)
(type_alias_declaration) @local
"""


# tree-sitter-typescript (0.23.2, the newest) fails on two forms common in declaration files: a
# generic type reached through an import type (`import("./x").T<U>`) and a type-only star
# re-export (`export type * from "./x"`); either turns the rest of the file into an error. They
# are parsed as same-length forms it knows (`_____________.T<U>`, `export      * from "./x"`):
# every offset stays, and names and texts are still read from the original bytes.
_GENERIC_IMPORT_TYPE = re.compile(
    rb"""\bimport[ \t]*\([ \t]*(?:"[^"\n]*"|'[^'\n]*')[ \t]*\)(?=(?:[ \t]*\.[ \t]*[A-Za-z_$][\w$]*)+[ \t]*<)"""
)
# Expressions whose value may be one of their parts: a callback written inside one is the argument.
_ARGUMENT_BRANCHES = frozenset({"ternary_expression", "parenthesized_expression", "binary_expression"})
# Members of a union that name no class: a value narrowed to one of them has no method of ours.
_NOT_NOMINAL = frozenset(
    "null undefined void string number boolean bigint symbol object any unknown never true false".split()
)
_TYPE_STAR_EXPORT = re.compile(rb"\bexport(\s+)type(?=\s*\*)")
# It fails too on variance annotations (`interface X<in A, out B>`, `class Y<in out T>`), which
# TypeScript allows on the type parameters of classes, interfaces and type aliases: in a file the
# grammar fails on, they are blanked to spaces, only at the start of a parameter in such a list
# (`<out>`, `<out extends X>` name a parameter `out`: left alone), and the file parsed again.
_TYPE_PARAMETERS = re.compile(rb"\b(?:class|interface|type)[ \t]+[A-Za-z_$][\w$]*[ \t]*<|\bclass[ \t]*<")
_VARIANCE = re.compile(rb"\s*((?:(?:in|out)\s+)+)(?=(?!extends\b)[A-Za-z_$])")
# What a variance annotation looks like out of context, found first (fast): only the lists near one are read.
_MAYBE_VARIANCE = re.compile(rb"\b(?:in|out)\s+(?:out\s+)?[A-Za-z_$][\w$]*\s*(?:[,>=]|extends\b)")
_NESTING = {ord("<"): 1, ord("("): 1, ord("["): 1, ord("{"): 1, ord(">"): -1, ord(")"): -1, ord("]"): -1, ord("}"): -1}
_LIST_SCAN = 4096  # bytes read of one type-parameter list at most: an unclosed `<` costs no more


def parseable(source: bytes) -> bytes:
    """`source` with the forms the grammar cannot parse replaced by same-length ones it can."""
    if b"import" in source:
        source = _GENERIC_IMPORT_TYPE.sub(lambda match: b"_" * len(match.group()), source)
    if b"type" in source:
        source = _TYPE_STAR_EXPORT.sub(lambda match: b"export" + match.group(1) + b"    ", source)
    return source


def _without_variance(source: bytes) -> bytes:
    """`source` with the variance annotations of its type-parameter lists blanked."""
    near = [found.start() for found in _MAYBE_VARIANCE.finditer(source)]
    if not near:
        return source
    blanks: list[tuple[int, int]] = []
    for head in _TYPE_PARAMETERS.finditer(source):
        starts, depth, at = [head.end()], 1, head.end()
        end = min(len(source), at + _LIST_SCAN)
        after = bisect_left(near, at - 1)
        if after == len(near) or near[after] >= end:
            continue
        while at < end and depth:
            byte = source[at]
            if byte == ord(">") and source[at - 1] == ord("="):  # `=>` in a default's function type
                pass
            elif byte in _NESTING:
                depth += _NESTING[byte]
            elif byte == ord(",") and depth == 1:
                starts.append(at + 1)
            at += 1
        for start in starts:
            found = _VARIANCE.match(source, start)
            if found is not None:
                blanks.append(found.span(1))
    if not blanks:
        return source
    edited = bytearray(source)
    for start, stop in blanks:
        edited[start:stop] = b" " * (stop - start)
    return bytes(edited)


class TypeScriptExtractor(JavaScriptExtractor):
    """What TypeScript adds: interfaces, enums, abstract members, namespaces, typed locals."""

    query_text = TS_QUERY
    module_locals = True

    def language(self) -> Language:
        import tree_sitter_typescript

        return Language(tree_sitter_typescript.language_typescript())

    def parse(self, source: bytes) -> Node:
        source = parseable(source)
        root: Node = super().parse(source)
        # Only a file the grammar fails on is searched for variance annotations: searching every
        # file would cost each a few per cent of its parse.
        if root.has_error:
            blanked = _without_variance(source)
            if blanked is not source:
                return super().parse(blanked)
        return root

    def scope(self, x: Context, node: Node) -> ScopeSpec | None:
        name = node.child_by_field_name("name")
        if name is None or name.type not in ("identifier", "nested_identifier"):
            return None  # `declare module "x"`: an ambient module, not a namespace
        return ScopeSpec(node, x.text(name), methods=False)

    def definition(self, x: Context, spec: DefSpec) -> DefSpec | None:
        node = spec.node
        kind = node.type
        if kind == "interface_declaration":
            bases = []
            for child in node.named_children:
                if child.type == "extends_type_clause":
                    bases.extend(self._heritage(x, t) for t in child.named_children)
            return spec._replace(outer=exported_statement(node), bases=tuple(b for found in bases for b in found))
        if kind == "enum_declaration":
            return spec._replace(outer=exported_statement(node))
        if kind == "function_signature":  # `declare function f(): T;`, an overload: no body
            ambient = node.parent if node.parent is not None and node.parent.type == "ambient_declaration" else node
            return spec._replace(
                outer=exported_statement(ambient), parameters=self.parameters(x, node), declaration=True
            )
        if kind in ("method_signature", "abstract_method_signature"):
            name = node.child_by_field_name("name")
            if name is None or name.type not in NAME_TYPES or not x.in_type:
                return None
            return spec._replace(parameters=self.parameters(x, node))
        return super().definition(x, spec)

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
        return super()._heritage(x, node)

    def _parameter(self, x: Context, node: Node) -> list[str]:
        if node.type in ("required_parameter", "optional_parameter"):
            pattern = node.child_by_field_name("pattern")
            if pattern is not None and pattern.type == "this":  # `function (this: Action)`
                written = _this_type(x, node)
                return [f"{THIS}:{written}"] if written else []
            if pattern is None or pattern.type != "identifier":
                return []
            annotation = node.child_by_field_name("type")
            written = _annotated(x.text(annotation)) if annotation is not None else None
            if written is None and annotation is not None:
                written = _callback_type(x, annotation)
            name = x.text(pattern)
            found = [f"{name}:{written}" if written else name]
            modifiers = {c.type for c in node.children}
            if written and modifiers & {"accessibility_modifier", "readonly"}:
                found.append(f"this.{name}:{written}")  # `constructor(private cart: Cart)`
            return found
        return super()._parameter(x, node)

    def call(self, x: Context, node: Node) -> str | None:
        function = node.child_by_field_name("function") if node.type == "call_expression" else None
        if function is not None and function.type == "member_expression":
            cast = _cast_type(x, function.child_by_field_name("object"))
            member = function.child_by_field_name("property")
            if cast is not None and member is not None and member.type in NAME_TYPES:
                return f"{CAST}{cast}).{x.text(member)}"  # `(source as Subject).next()`
        return super().call(x, node)

    def local(self, x: Context, node: Node) -> Iterable[tuple[str, str | None]]:
        if node.type in ("arrow_function", "function_expression", "method_definition"):
            return _callback_parameters(x, node)
        if node.type == "type_alias_declaration":  # `type Handler = (c: Context) => void`
            name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
            written = _function_type(x, value) if name is not None and value is not None else None
            return ((f"{TYPE_ALIAS}{x.text(name)}", written),) if written else ()
        if node.type == "property_signature":  # an interface's property, a field of it
            name, annotation = node.child_by_field_name("name"), node.child_by_field_name("type")
            if name is None or name.type not in NAME_TYPES:
                return ()
            written = _annotated(x.text(annotation)) if annotation is not None else None
            if written is None and annotation is not None:
                written = _callback_type(x, annotation)
            return ((x.text(name), written),)
        return super().local(x, node)

    def local_type(self, x: Context, node: Node, value: Node | None) -> str | None:
        annotation = node.child_by_field_name("type")
        if annotation is not None:
            return _annotated(x.text(annotation))
        return super().local_type(x, node, value)



def _annotated(text: str) -> str | None:
    """The nominal type of an annotation; a union is its first named member (`Subscriber |
    Observer` is a `Subscriber`, `let sub: Subscription | null` a `Subscription`), as the compiler
    resolves a method called on a union by its first member's declaration; primitives, literals
    and function types are passed over (a value narrowed to one of them is not called that way)."""
    text = text.lstrip(":")
    written = type_name(text)
    if written is not None or "|" not in text:
        return written
    for part in _union_members(text):
        named = type_name(part)
        if named is not None and named not in _NOT_NOMINAL:
            return named
    return None


def _union_members(text: str) -> list[str]:
    """The members of a union as written, split at the `|` outside brackets (`A<B | C> | D`)."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char in "<([{":
            depth += 1
        elif char in ">)]}" and not (char == ">" and text[index - 1 : index] == "="):
            depth -= 1
        elif char == "|" and depth == 0:
            parts.append(text[start:index].strip())
            start = index + 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def _is_this(parameter: Node) -> bool:
    pattern = parameter.child_by_field_name("pattern")
    return pattern is not None and pattern.type == "this"


def _this_type(x: Context, parameter: Node) -> str | None:
    """The type a `this` parameter declares `this` to be in its function."""
    annotation = parameter.child_by_field_name("type")
    return _annotated(x.text(annotation)) if annotation is not None else None


def _cast_type(x: Context, node: Node | None) -> str | None:
    """The nominal type an expression is cast to (`x as Subject<T>`, `<Subject>x`), else None."""
    node = unwrapped(node) if node is not None else None
    if node is None or node.type not in ("as_expression", "type_assertion") or not node.named_child_count:
        return None
    if node.type == "as_expression":
        written: Node | None = node.named_child(node.named_child_count - 1)
    else:  # `<Subject>x`: the type is inside the leading type arguments
        arguments = node.named_child(0)
        written = (
            arguments.named_child(0)
            if arguments is not None and arguments.type == "type_arguments" and arguments.named_child_count
            else None
        )
    return _annotated(x.text(written)) if written is not None else None


def _callback_type(x: Context, annotation: Node) -> str | None:
    """A function type's parameter types, `(Observable,Subscriber)=>` (a part left empty when
    not a plain name, `this` left out), so a callback passed for it has typed parameters."""
    return _function_type(x, annotation.named_child(0)) if annotation.named_child_count else None


def _function_type(x: Context, written: Node | None) -> str | None:
    """A written function type's parameter types, `(Observable,Subscriber)=>`; None for another type."""
    while written is not None and written.type == "parenthesized_type" and written.named_child_count:
        written = written.named_child(0)
    if written is None or written.type != "function_type":
        return None
    parameters = written.child_by_field_name("parameters")
    found = []
    for parameter in parameters.named_children if parameters is not None else ():
        pattern = parameter.child_by_field_name("pattern")
        if pattern is not None and pattern.type == "this":
            continue
        inner = parameter.child_by_field_name("type")
        found.append((_annotated(x.text(inner)) if inner is not None else None) or "")
    return f"({','.join(found)}){CALLBACK_TYPE}"


def _callback_parameters(x: Context, node: Node) -> list[tuple[str, str | None]]:
    """A function expression's parameters: their written types, else, for a callback passed as
    an argument or as a property of an object passed as one, their place in the call
    (`@operate#0.1`: the second parameter of the callback given as operate's first argument;
    `@createSlice#0:extraReducers.0`), which phase 2 reads in the callee's declared parameter type."""
    argument_node, member = node, ""
    if node.type == "method_definition" or (node.parent is not None and node.parent.type == "pair"):
        # `{ extraReducers(builder) {…} }`, `{ effect: (action, api) => … }`: a property of an
        # object passed as the argument, `#0:effect.1` in the place
        pair = node if node.type == "method_definition" else node.parent
        key = pair.child_by_field_name("name" if node.type == "method_definition" else "key") if pair else None
        if key is not None and key.type in NAME_TYPES and pair is not None and pair.parent is not None:
            argument_node, member = pair.parent, f":{x.text(key)}"
    # the argument it is, or is one branch of (`c ? (s) => … : null`)
    while argument_node.parent is not None and argument_node.parent.type in _ARGUMENT_BRANCHES:
        argument_node = argument_node.parent
    parent = argument_node.parent
    arguments = parent if parent is not None and parent.type == "arguments" else None
    call = arguments.parent if arguments is not None else None
    callee = None
    if call is not None and call.type == "call_expression":
        callee = dotted(x, call.child_by_field_name("function"))
    elif call is not None and call.type == "new_expression":
        constructor = dotted(x, call.child_by_field_name("constructor"))
        callee = f"new {constructor}" if constructor else None
    argument = [c.id for c in arguments.named_children].index(argument_node.id) if arguments is not None else 0
    single = node.child_by_field_name("parameter")
    parameters = node.child_by_field_name("parameters")
    children = [single] if single is not None else parameters.named_children if parameters is not None else []
    found: list[tuple[str, str | None]] = []
    this = [p for p in children if p.type != "identifier" and _is_this(p)]
    if this and _this_type(x, this[0]):
        found.append((THIS, _this_type(x, this[0])))
    for index, parameter in enumerate(p for p in children if p not in this):  # as _callback_type counts
        pattern = parameter if parameter.type == "identifier" else parameter.child_by_field_name("pattern")
        if pattern is None or pattern.type != "identifier":
            continue
        annotation = parameter.child_by_field_name("type")
        written = _annotated(x.text(annotation)) if annotation is not None else None
        if written is None and annotation is None and callee is not None:
            written = f"{CONTEXTUAL_TYPE}{callee}#{argument}{member}.{index}"
        found.append((x.text(pattern), written))
    return found


class TsxExtractor(TypeScriptExtractor):
    def language(self) -> Language:
        import tree_sitter_typescript

        return Language(tree_sitter_typescript.language_tsx())


extract_typescript = TypeScriptExtractor()
extract_tsx = TsxExtractor()
