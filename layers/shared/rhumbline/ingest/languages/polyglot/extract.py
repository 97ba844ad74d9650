"""Phase-1 engine for the tree-sitter languages: a file's bytes → CodeFacts. Pure; runs in workers.

A language subclasses `LanguageExtractor`: its query captures the nodes it cares about under
tree-sitter's tags capture names (https://tree-sitter.github.io/tree-sitter/4-code-navigation.html)
and a few of its own, and one hook per name turns a node into facts:

- `@definition.class` (`.interface`, `.trait`, `.struct`, `.enum`, `.module`, `.function`,
  `.method`) with `@name` on its name → `definition()`: the engine reads the common part — the
  kind from the capture name, the name, the body's start as the end of the signature, a
  `.method` forced to be a Method — into a DefSpec the hook completes (bases, parameters, an
  owner), corrects or drops (None). A pattern without `@name` leaves the name to the hook;
- `@scope` → `scope()`: a block that prefixes names without being a definition (C++/C# namespace,
  Rust `impl`, TS `namespace`);
- `@call` → `call()`: the callee as a dotted path (CallSite conventions in __init__.py), or None
  when it is dynamic (`f()()`, `x[0]()`);
- `@import` → `imports()`;
- `@local` → `local()`: `(name, type)` declared inside a function (type None when unknown).

Captures are sorted by start byte and swept once with a stack of open scopes, so each definition
learns its parent and each call its enclosing definition without walking up the tree.
"""

from __future__ import annotations

from collections.abc import Iterable
from hashlib import sha256
from operator import itemgetter
from typing import NamedTuple

from tree_sitter import Language, Node, Parser, Query, QueryCursor

from rhumbline.ingest.facts import (
    CallSite,
    CodeFacts,
    DecoratorFact,
    Definition,
    ImportFact,
    TypeHint,
    Variable,
)
from rhumbline.ingest.languages.polyglot.comments import doc_comment
from rhumbline.ingest.languages.text import collapse, node_text, shortened

SIGNATURE_LIMIT = 300
SNIPPET_LIMIT = 120
STATEMENT_LIMIT = 200

CLASS_KINDS = frozenset({"Class", "Interface", "Trait", "Struct", "Enum", "Module"})
CALLABLE_KINDS = frozenset({"Function", "Method"})

# Order of captures starting at the same byte: scopes enclose definitions, which enclose the rest.
_SCOPE, _DEFINITION, _OTHER = range(3)

# A definition capture's name → the Definition kind it starts as (a `.method` is forced a Method).
DEFINITION_KINDS = {
    "definition.class": "Class",
    "definition.interface": "Interface",
    "definition.trait": "Trait",
    "definition.struct": "Struct",
    "definition.enum": "Enum",
    "definition.module": "Module",
    "definition.function": "Function",
    "definition.method": "Function",
}
_ROLES = frozenset({"scope", "call", "import", "local", *DEFINITION_KINDS})


class DefSpec(NamedTuple):
    kind: str  # Class, Interface, Trait, Struct, Enum, Module, Function (→ Method inside a class)
    name: str
    node: Node  # its byte range is the scope of what is nested in it
    outer: Node  # with export / decorators / template: lines, content hash, doc comment
    header_end: int  # byte where the signature stops (the body's start)
    header_start: int | None = None  # default: outer's start
    bases: tuple[str, ...] = ()
    owner: str | None = None  # declared owner type, relative to the enclosing prefix (`Cart`)
    parameters: tuple[str, ...] = ()  # "name" or "name:Type"
    joiner: str | None = None  # separator before the name, when not the language's (Ruby `#`)
    docstring: str | None = None  # when the language does not use comments above (rare)
    method: bool | None = None  # force Method / Function; None: Method when directly in a type
    # A declaration without a body (C++ `void add(int);` in a class): a later definition of the
    # same qualname in the file replaces it.
    declaration: bool = False


class ScopeSpec(NamedTuple):
    node: Node
    name: str  # appended to the enclosing prefix (`shop`, `Cart`); "" keeps it
    methods: bool  # functions directly inside are methods of `name` (Rust impl)
    bases: tuple[str, ...] = ()  # Rust `impl Trait for Type`: given to each method inside
    absolute: bool = False  # `name` replaces the enclosing prefix instead of extending it
    # Parent of the methods inside when it is not the prefix: `impl Display for Cart` prefixes
    # `<Cart as Display>` (so two traits' `fmt` differ) but its methods belong to `Cart`.
    owner: str | None = None


class _Frame(NamedTuple):
    end: int
    prefix: str  # qualname prefix for what is nested
    parent: str  # parent qualname for definitions directly inside ("" at top level)
    methods: bool  # functions directly inside become methods
    definition: int  # index into the pending definitions, -1 for a plain scope
    bases: tuple[str, ...]


class Context:
    """What hooks may read: the source and the innermost open scope."""

    __slots__ = ("source", "_stack", "separator")

    def __init__(self, source: bytes, separator: str) -> None:
        self.source = source
        self.separator = separator
        self._stack: list[_Frame] = []

    def text(self, node: Node | None) -> str:
        return node_text(self.source, node)

    @property
    def prefix(self) -> str:
        return self._stack[-1].prefix if self._stack else ""

    @property
    def in_type(self) -> bool:
        """Whether the innermost scope is a class-like (its functions are methods)."""
        return bool(self._stack) and self._stack[-1].methods

    @property
    def at_top(self) -> bool:
        return not self._stack



class LanguageExtractor:
    separator = "."
    query_text = ""
    comment_types: frozenset[str] = frozenset({"comment"})
    # Siblings allowed between a doc comment and its definition (Rust `#[derive]`).
    between_doc_and_definition: frozenset[str] = frozenset()
    # Typed locals of module-level code (a callback's parameters in a top-level call) kept as
    # hints of scope "": only where phase 2 reads them (TypeScript).
    module_locals = False

    def __init__(self) -> None:
        self._state: tuple[Parser, Query] | None = None

    # -- hooks -------------------------------------------------------------------------------
    def language(self) -> Language:
        raise NotImplementedError

    def scope(self, x: Context, node: Node) -> ScopeSpec | None:
        return None

    def definition(self, x: Context, spec: DefSpec) -> DefSpec | None:
        """The engine's DefSpec of a `@definition.*` capture, completed; None: not a definition."""
        return spec

    def call(self, x: Context, node: Node) -> str | None:
        return None

    def imports(self, x: Context, node: Node) -> Iterable[tuple[str, str | None, str | None, int]]:
        """(module, name, alias, level) per bound name."""
        return ()

    def local(self, x: Context, node: Node) -> Iterable[tuple[str, str | None]]:
        return ()

    def decorators(self, x: Context, spec: DefSpec) -> tuple[DecoratorFact, ...]:
        """Decorators, annotations or attributes applied to a definition (polyglot/decorators.py)."""
        return ()

    def statement(self, x: Context, node: Node) -> str:
        """How an import is quoted in explanations (the whole `const x = require(…)`)."""
        return x.text(node)

    def module_facts(
        self, x: Context, root: Node
    ) -> tuple[list[Variable], tuple[str, ...] | None, str | None]:
        """(module-level variables, exports, namespace), from the root's children."""
        return [], None, None

    def file_docstring(self, x: Context, root: Node) -> str | None:
        return None

    # -- engine ------------------------------------------------------------------------------
    def _parser_and_query(self) -> tuple[Parser, Query]:
        # Built once per process: grammar loading and query compilation cost milliseconds.
        if self._state is None:
            language = self.language()
            self._state = (Parser(language), Query(language, self.query_text))
        return self._state

    def parse(self, source: bytes) -> Node:
        parser, _ = self._parser_and_query()
        return parser.parse(source).root_node

    def __call__(self, source: bytes) -> CodeFacts:
        return self.extract(source)

    def extract(self, source: bytes, root: Node | None = None) -> CodeFacts:
        _, query = self._parser_and_query()
        if root is None:
            root = self.parse(source)
        events: list[tuple[int, int, int, str, Node, Node | None]] = []
        for _pattern, captured in QueryCursor(query).matches(root):
            names = captured.get("name")
            name = names[0] if names else None
            for capture, nodes in captured.items():
                if capture not in _ROLES:  # `@name`, and `@_x` helpers of predicates
                    continue
                order = _SCOPE if capture == "scope" else _DEFINITION if capture in DEFINITION_KINDS else _OTHER
                events.extend((n.start_byte, order, -n.end_byte, capture, n, name) for n in nodes)
        events.sort(key=itemgetter(0, 1, 2))
        x = Context(source, self.separator)
        stack = x._stack
        pending: list[list] = []  # [DefSpec fields resolved: kind, name, qualname, parent, ...]
        params: list[list[str]] = []
        seen: dict[tuple[str, str], int] = {}  # (kind, qualname) → index in pending
        seen_nodes: set[int] = set()
        calls: list[CallSite] = []
        imports: list[ImportFact] = []
        hints: list[TypeHint] = []
        dynamic = 0
        for start, order, _end, capture, node, name in events:
            while stack and stack[-1].end <= start:
                stack.pop()
            if order != _OTHER:
                key = node.id
                if key in seen_nodes:  # two patterns matched one node
                    continue
                seen_nodes.add(key)
            if order == _DEFINITION:
                spec = self.definition(x, _preamble(x, capture, node, name))
                if spec is None:
                    continue
                self._open_definition(x, spec, pending, params, seen)
            elif capture == "scope":
                scope = self.scope(x, node)
                if scope is None:
                    continue
                if not scope.name:  # transparent (a Kotlin companion object)
                    prefix = x.prefix
                elif scope.absolute or not x.prefix:
                    prefix = scope.name
                else:
                    prefix = self._join(x.prefix, scope.name)
                if scope.owner is not None:
                    parent = self._join(x.prefix, scope.owner) if x.prefix else scope.owner
                elif scope.methods:
                    parent = prefix
                else:
                    parent = stack[-1].parent if stack else ""
                stack.append(
                    _Frame(node.end_byte, prefix, parent, scope.methods, -1, scope.bases)
                )
            elif capture == "call":
                callee = self.call(x, node)
                if callee is None:
                    dynamic += 1
                elif callee:  # "" : not a call after all (a language hook's way to skip)
                    line = node.start_point.row + 1
                    calls.append(CallSite(_scope_of(stack, pending), callee, line))
            elif capture == "import":
                line = node.start_point.row + 1
                statement = shortened(collapse(self.statement(x, node)), STATEMENT_LIMIT)
                scope = _scope_of(stack, pending)
                for module, name, alias, level in self.imports(x, node):
                    imports.append(ImportFact(scope, line, statement, module, level, name, alias))
            elif capture == "local":
                index = _innermost_definition(stack)
                if index >= 0:
                    for name, type_name in self.local(x, node):
                        params[index].append(f"{name}:{type_name}" if type_name else name)
                elif self.module_locals:
                    line = node.start_point.row + 1
                    hints.extend(TypeHint("", name, ":", type_name, line) for name, type_name in self.local(x, node) if type_name)
        definitions = [
            Definition(*fields[:11], tuple(dict.fromkeys(extra)))
            for fields, extra in zip(pending, params, strict=True)
            if fields is not None
        ]
        variables, exports, namespace = self.module_facts(x, root)
        return CodeFacts(
            docstring=self.file_docstring(x, root),
            definitions=tuple(definitions),
            variables=tuple(variables),
            imports=tuple(imports),
            calls=tuple(calls),
            dynamic_calls=dynamic,
            exports=exports,
            syntax_errors=root.has_error,
            namespace=namespace,
            hints=tuple(hints),
        )

    def _join(self, prefix: str, name: str) -> str:
        return f"{prefix}{self.separator}{name}" if prefix else name

    def _open_definition(
        self,
        x: Context,
        spec: DefSpec,
        pending: list,
        params: list[list[str]],
        seen: dict[tuple[str, str], int],
    ) -> None:
        stack = x._stack
        frame = stack[-1] if stack else None
        kind = spec.kind
        in_type = frame is not None and frame.methods
        if spec.owner:
            in_scope = frame is not None and frame.definition < 0  # `namespace shop { … }`
            owner = self._join(frame.prefix, spec.owner) if in_scope else spec.owner
            parent = owner
            qualname = f"{owner}{spec.joiner or self.separator}{spec.name}"
            in_type = True
        else:
            prefix = frame.prefix if frame else ""
            parent = frame.parent if frame else ""
            joiner = spec.joiner or self.separator
            qualname = f"{prefix}{joiner}{spec.name}" if prefix else spec.name
        if kind == "Function" and (spec.method if spec.method is not None else in_type):
            kind = "Method"
        bases = spec.bases
        if kind == "Method" and not bases and frame is not None and frame.definition < 0:
            bases = frame.bases
        is_class = kind in CLASS_KINDS
        index = len(pending)
        stack.append(
            _Frame(
                spec.node.end_byte,
                qualname,
                qualname,
                is_class,
                index,
                (),
            )
        )
        params.append(list(spec.parameters))
        # A name defined twice in one scope (overloads, `#ifdef` branches) keeps its first
        # definition: ids must be unique; later bodies still attribute their calls to it. A
        # declaration gives way to the definition.
        first = seen.get((kind, qualname))
        if first is not None:
            fields = pending[first]
            if spec.declaration or fields is None or not fields[11]:
                pending.append(None)
                if fields is not None:
                    # The body's parameters and locals are the first's too: its calls are
                    # resolved in that one scope, so their receivers keep their types.
                    params[first].extend(spec.parameters)
                    stack[-1] = stack[-1]._replace(definition=first)
                return
            pending[first] = None
            params[first] = []
        seen[(kind, qualname)] = index
        source = x.source
        outer = spec.outer
        header_start = spec.header_start if spec.header_start is not None else outer.start_byte
        signature = collapse(source[header_start : spec.header_end].decode("utf-8", "replace"))
        docstring = spec.docstring
        if docstring is None:
            docstring = doc_comment(
                source, outer, self.comment_types, self.between_doc_and_definition
            )
        pending.append(
            [
                kind,
                spec.name,
                qualname,
                parent,
                outer.start_point.row + 1,
                outer.end_point.row + 1,
                shortened(signature, SIGNATURE_LIMIT),
                docstring,
                sha256(source[outer.start_byte : outer.end_byte]).hexdigest(),
                bases,
                self.decorators(x, spec),
                spec.declaration,
            ]
        )


def _preamble(x: Context, capture: str, node: Node, name: Node | None) -> DefSpec:
    """What every language's definition starts from: the kind its capture names, its `@name`,
    the signature up to the body."""
    body = node.child_by_field_name("body")
    return DefSpec(
        DEFINITION_KINDS[capture], x.text(name), node, node,
        body.start_byte if body is not None else node.end_byte,
        method=True if capture == "definition.method" else None,
    )  # fmt: skip


def _innermost_definition(stack: list[_Frame]) -> int:
    for frame in reversed(stack):
        if frame.definition >= 0:
            return frame.definition
    return -1


def _scope_of(stack: list[_Frame], pending: list) -> str:
    """Qualname of the innermost definition open on the stack ("" at file level)."""
    for frame in reversed(stack):
        if frame.definition >= 0:
            fields = pending[frame.definition]
            return frame.prefix if fields is None else fields[2]
    return ""


# -- helpers shared by the language modules (doc comments: polyglot/comments.py) ----------------


def variable(x: Context, node: Node, name: str, alias_of: str | None = None) -> Variable:
    """A module-level Variable for declaration `node` binding `name`."""
    return Variable(
        name,
        node.start_point.row + 1,
        node.end_point.row + 1,
        shortened(collapse(x.text(node)), SNIPPET_LIMIT),
        sha256(x.source[node.start_byte : node.end_byte]).hexdigest(),
        alias_of,
    )
