"""Phase-2 core for the tree-sitter languages: one language family's files → nodes and edges.

A `Family` subclass says what names mean in its languages (`import_symbols`, `unit_lookup`,
`unit_member`: imports, packages, namespaces, re-exports) and how to draw IMPORTS edges; this
class does the rest the same way for every language:

- nodes and DEFINES edges (a method declared on a type in another file — Go receivers, Rust
  `impl`, C++ `Cart::add` — is defined by that type when it is found, else by its file);
- a class table: members by name, bases resolved lazily, ancestors in depth-first order;
- INHERITS / IMPLEMENTS (IMPLEMENTS when the base is an Interface or Trait and the class is not);
- CALLS: `super.m` and `this.m` on the enclosing class and its ancestors, `new C` to the class,
  bare names to members first in languages with an implicit `this`, then scopes, imports and
  packages; a receiver whose type is declared (`c: Cart`, `c := &Cart{}`, a Go receiver) is looked
  up on that type; an unknown receiver falls back to the methods of that name in the family
  (one: INFERRED at a low score, two to five: AMBIGUOUS, more: unresolved).

Evidence: a definition in the same file is EXTRACTED; anything reached through an import, a package,
a base class or a declared type in another file is INFERRED; several candidates are AMBIGUOUS.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from rhumbline.ingest.edges import (
    EXTRACTED_SCORE,
    INFERRED_SCORE,
    MAX_CANDIDATES,
    NAME_MATCH_SCORE,
    EdgeSet,
)
from rhumbline.ingest.facts import CallSite, Definition, ImportFact, SourceFile
from rhumbline.ingest.ids import definition_id, file_id, variable_id
from rhumbline.ingest.polyglot.extract import CLASS_KINDS
from rhumbline.ingest.polyglot.statement_nodes import add_statement_nodes
from rhumbline.stores.graph.protocol import Confidence, Node

DEF, UNIT, EXTERNAL = "def", "unit", "external"
INTERFACE_KINDS = frozenset({"Interface", "Trait"})
_THIS, _SUPER, _NEW = "this.", "super.", "new "


class Sym(NamedTuple):
    kind: str  # DEF (a node id), UNIT (a module / package / namespace key) or EXTERNAL
    target: str
    via: str | None  # how the name reached the site ("through `import …`"); None: same file
    owner: str | None = None  # DEF members: the ancestor class they were found on


class Evidence(NamedTuple):
    node_id: str
    confidence: Confidence
    score: float
    explanation: str


class FileIndex:
    """One parsed file's definitions, arranged for lookups."""

    def __init__(self, source: SourceFile) -> None:
        code = source.code
        self.source = source
        self.path = source.path
        self.language = source.language
        self.code = code
        self.namespace = code.namespace
        self.ids = [definition_id(d.kind, self.path, d.qualname) for d in code.definitions]
        self.by_qualname: dict[str, tuple[str, Definition]] = {}
        self.children: dict[tuple[str, str], list[str]] = {}
        self.locals: dict[str, dict[str, str | None]] = {}
        # class qualname → field → type, from `this.x = new X()` and TS parameter properties
        self.fields: dict[str, dict[str, str]] = {}
        for d, node_id in zip(code.definitions, self.ids, strict=True):
            self.by_qualname.setdefault(d.qualname, (node_id, d))
            self.children.setdefault((d.parent, d.name), []).append(node_id)
            if d.parameters:
                names = self.locals.setdefault(d.qualname, {})
                for parameter in d.parameters:
                    name, _, type_text = parameter.partition(":")
                    if name.startswith("this."):
                        if type_text and d.parent:
                            self.fields.setdefault(d.parent, {}).setdefault(name[5:], type_text)
                    elif type_text or name not in names:
                        names[name] = type_text or None
        self.variables = {v.name: variable_id(self.path, v.name) for v in code.variables}
        # (scope, bound name) → import facts; star imports apart
        self.bindings: dict[tuple[str, str], list[ImportFact]] = {}
        self.stars: list[ImportFact] = []

    def kind_of(self, qualname: str) -> str | None:
        found = self.by_qualname.get(qualname)
        return found[1].kind if found else None

    def parent_of(self, qualname: str) -> str:
        found = self.by_qualname.get(qualname)
        return found[1].parent if found else ""


class ClassInfo:
    __slots__ = ("node_id", "file", "definition", "members", "bases")

    def __init__(self, node_id: str, file: FileIndex, definition: Definition) -> None:
        self.node_id = node_id
        self.file = file
        self.definition = definition
        self.members: dict[str, list[str]] = {}
        self.bases: list[str] | None = None  # resolved lazily


class Family:
    languages: frozenset[str] = frozenset()
    # Java, C#, Kotlin, C++, Ruby: a bare `m()` in a method means `this.m()` when the class has m.
    implicit_this = False
    # Method names of the languages' standard types: never matched by name on an unknown receiver.
    builtin_methods: frozenset[str] = frozenset()
    # Separator between a file's qualified prefix and a definition's qualname.
    separator = "."

    def __init__(self, sources: Sequence[SourceFile], root: Path, edges: EdgeSet) -> None:
        self.root = root  # for build files phase 1 does not parse (go.mod, Cargo.toml)
        self.edges = edges
        self.files: dict[str, FileIndex] = {s.path: FileIndex(s) for s in sources}
        self.classes: dict[str, ClassInfo] = {}
        self.methods_by_name: dict[str, list[str]] = {}
        self.qualified: dict[str, str] = {}
        self.kinds: dict[str, str] = {}
        self.file_of: dict[str, str] = {}  # node id → path
        self.nodes: list[Node] = []
        self.unresolved = 0
        self._ancestors: dict[str, list[str]] = {}
        self._linearizing: set[str] = set()
        self._owners: dict[str, str | None] = {}

    # -- language hooks -----------------------------------------------------------------------
    def prepare(self) -> None:
        """Build the language's own tables (modules, packages, exports) before anything else."""

    def binding_name(self, f: FileIndex, fact: ImportFact) -> str | None:
        """The local name an import binds (None: binds nothing, `*`: a star import)."""
        if fact.name == "*" and not fact.alias:
            return "*"
        return fact.alias or fact.name

    def import_symbols(self, f: FileIndex, fact: ImportFact) -> list[Sym]:
        """What an import binding refers to in the repository ([] when outside it)."""
        return []

    def unit_lookup(self, f: FileIndex, scope: str, name: str) -> list[Sym]:
        """A name not defined nor imported in the file: same package, star imports, globals."""
        return []

    def unit_member(self, unit: str, name: str, via: str | None) -> list[Sym]:
        """`unit.name`, where unit is a module / package / namespace key."""
        return []

    def qualified_name(self, f: FileIndex, qualname: str) -> str:
        return qualname

    def add_imports(self, f: FileIndex) -> None:
        """IMPORTS edges of one file."""

    def extra_nodes(self) -> list[Node]:
        """Nodes the language adds besides definitions (packages as Module nodes)."""
        return []

    def members_attached(self) -> None:
        """Every class has its members: a last chance to adjust them (C# partial classes)."""

    def add_relations(self) -> None:
        """Relations the language implies without writing them (Go's implicit interfaces)."""

    def share_members(self, groups: list[list[str]]) -> None:
        """Classes that are one class in several pieces (C# `partial`, a reopened Ruby class):
        each piece gets the members of all."""
        for ids in groups:
            if len(ids) < 2:
                continue
            merged: dict[str, list[str]] = {}
            for class_id in ids:
                for name, members in self.classes[class_id].members.items():
                    bucket = merged.setdefault(name, [])
                    bucket.extend(m for m in members if m not in bucket)
            for class_id in ids:  # one dict for all: no more members are added after this
                self.classes[class_id].members = merged

    def owner_class(self, f: FileIndex, d: Definition) -> str | None:
        """The class-like a method declared outside its type's body belongs to."""
        for target in self.resolve_type(f, "", d.parent.replace(self.separator, ".")):
            return target.target
        return None

    def resolve_type(self, f: FileIndex, scope: str, dotted: str) -> list[Sym]:
        found = self.resolve(f, scope, dotted)
        return [s for s in found if self.kinds.get(s.target) in CLASS_KINDS]

    # -- driver -------------------------------------------------------------------------------
    def build(self) -> None:
        self.prepare()
        for f in self.files.values():
            for fact in f.code.imports:
                bound = self.binding_name(f, fact)
                if bound == "*":
                    f.stars.append(fact)
                elif bound:
                    f.bindings.setdefault((fact.scope, bound), []).append(fact)
        for f in self.files.values():
            self._definition_nodes(f)
        for f in self.files.values():
            for d, node_id in zip(f.code.definitions, f.ids, strict=True):
                if d.kind in CLASS_KINDS:
                    self.classes.setdefault(node_id, ClassInfo(node_id, f, d))
        for f in self.files.values():
            self._attach_members(f)
        self.members_attached()
        for f in self.files.values():
            self._add_defines(f)
            self.add_imports(f)
            self._add_inherits(f)
        self.add_relations()
        for f in self.files.values():
            self._add_calls(f)
        add_statement_nodes(self)  # Import and Decorator nodes
        self.nodes.extend(self.extra_nodes())

    def _definition_nodes(self, f: FileIndex) -> None:
        path, language = f.path, f.language
        seen: set[str] = set()
        for d, node_id in zip(f.code.definitions, f.ids, strict=True):
            if node_id in seen:
                continue
            seen.add(node_id)
            qualified = self.qualified_name(f, d.qualname)
            self.qualified[node_id] = qualified
            self.kinds[node_id] = d.kind
            self.file_of[node_id] = path
            self.nodes.append(
                Node(
                    id=node_id,
                    kind=d.kind,
                    name=d.name,
                    qualified_name=qualified,
                    file=path,
                    start_line=d.start_line,
                    end_line=d.end_line,
                    language=language,
                    signature=d.signature,
                    docstring=d.docstring,
                    content_hash=d.content_hash,
                )
            )
        for v in f.code.variables:
            node_id = variable_id(path, v.name)
            if node_id in seen:
                continue
            seen.add(node_id)
            qualified = self.qualified_name(f, v.name)
            self.qualified[node_id] = qualified
            self.kinds[node_id] = "Variable"
            self.file_of[node_id] = path
            self.nodes.append(
                Node(
                    id=node_id,
                    kind="Variable",
                    name=v.name,
                    qualified_name=qualified,
                    file=path,
                    start_line=v.start_line,
                    end_line=v.end_line,
                    language=language,
                    signature=v.snippet,
                    content_hash=v.content_hash,
                )
            )

    def _owner(self, f: FileIndex, d: Definition) -> str | None:
        """The class id a definition is a member of (same file first, then the language's rule)."""
        if not d.parent:
            return None
        local = f.by_qualname.get(d.parent)
        if local is not None:
            return local[0] if local[1].kind in CLASS_KINDS else None
        if d.kind != "Method" and d.kind not in CLASS_KINDS:
            return None  # (a class can be declared into another: Ruby's `class Shop::Cart`)
        key = f"{f.path}:{d.parent}"
        if key not in self._owners:
            self._owners[key] = self.owner_class(f, d)
        return self._owners[key]

    def _attach_members(self, f: FileIndex) -> None:
        for d, node_id in zip(f.code.definitions, f.ids, strict=True):
            if d.kind == "Method":
                self.methods_by_name.setdefault(d.name, []).append(node_id)
            owner = self._owner(f, d)
            info = self.classes.get(owner) if owner else None
            if info is not None:
                members = info.members.setdefault(d.name, [])
                if node_id not in members:
                    members.append(node_id)

    def _add_defines(self, f: FileIndex) -> None:
        path = f.path
        source_file = file_id(path)
        for d, node_id in zip(f.code.definitions, f.ids, strict=True):
            what = f"{d.kind.lower()} `{d.name}` at line {d.start_line}"
            local = f.by_qualname.get(d.parent) if d.parent else None
            if local is not None:
                explanation = f"{local[1].kind.lower()} `{d.parent}` defines {what}"
                self.edges.extracted(local[0], "DEFINES", node_id, explanation, path, d.start_line)
                continue
            owner = self._owner(f, d)
            if owner is not None and owner != node_id:
                info = self.classes[owner]
                explanation = (
                    f"{path} declares {what} on `{d.parent}`, defined at "
                    f"{info.file.path}:{info.definition.start_line}"
                )
                self.edges.extracted(owner, "DEFINES", node_id, explanation, path, d.start_line)
                continue
            explanation = f"{path} defines {what}"
            self.edges.extracted(source_file, "DEFINES", node_id, explanation, path, d.start_line)
        for v in f.code.variables:
            explanation = f"{path} declares module-level `{v.name}` at line {v.start_line}"
            target = variable_id(path, v.name)
            self.edges.extracted(source_file, "DEFINES", target, explanation, path, v.start_line)

    # -- classes ------------------------------------------------------------------------------
    def bases(self, class_id: str) -> list[str]:
        info = self.classes[class_id]
        if info.bases is None:
            info.bases = []  # a base expression leading back here resolves to nothing
            found: list[str] = []
            d = info.definition
            for base in d.bases:
                candidates = [
                    s.target
                    for s in self.resolve_type(info.file, d.parent, base)
                    if s.target != class_id and s.target in self.classes
                ]
                if candidates:
                    found.append(candidates[0])  # an ambiguous base: lookups need one
            info.bases = list(dict.fromkeys(found))
        return info.bases

    def ancestors(self, class_id: str) -> list[str]:
        """The class, then its ancestors depth-first, left to right, without repeats."""
        cached = self._ancestors.get(class_id)
        if cached is not None:
            return cached
        if class_id in self._linearizing:
            return [class_id]
        self._linearizing.add(class_id)
        try:
            order = [class_id]
            for base in self.bases(class_id):
                order.extend(self.ancestors(base))
            order = list(dict.fromkeys(order))
        finally:
            self._linearizing.discard(class_id)
        self._ancestors[class_id] = order
        return order

    def find_member(
        self, class_id: str, name: str, *, after_self: bool = False
    ) -> tuple[str, list[str]] | None:
        order = self.ancestors(class_id)
        for owner in order[1:] if after_self else order:
            members = self.classes[owner].members.get(name)
            if members:
                return owner, members
        return None

    def enclosing_class(self, f: FileIndex, scope: str) -> str | None:
        """The class-like whose method (or nested function of one) `scope` is."""
        current = scope
        while current:
            found = f.by_qualname.get(current)
            if found is None:
                return None
            node_id, d = found
            if d.kind in CLASS_KINDS:
                return node_id
            if d.kind == "Method":
                return self._owner(f, d)
            current = d.parent
        return None

    # -- names --------------------------------------------------------------------------------
    def lookup(self, f: FileIndex, scope: str, name: str) -> list[Sym]:
        """What `name` means in `scope` of file `f`: nested definitions, imports, locals (which
        hide everything outside), the file's top level, then the language's wider scopes."""
        current, innermost = scope, True
        while current:
            found = f.by_qualname.get(current)
            kind = found[1].kind if found else None
            if innermost or kind not in CLASS_KINDS:
                ids = f.children.get((current, name))
                if ids:
                    return [Sym(DEF, i, None) for i in ids]
            facts = f.bindings.get((current, name))
            if facts:
                return self._imported(f, facts, name)
            local = f.locals.get(current)
            if local is not None and name in local:
                return []  # a parameter or local variable: its value is not a definition
            innermost = False
            current = found[1].parent if found else ""
        ids = f.children.get(("", name))
        if ids:
            return [Sym(DEF, i, None) for i in ids]
        facts = f.bindings.get(("", name))
        if facts:
            return self._imported(f, facts, name)
        variable = f.variables.get(name)
        if variable is not None:
            return [Sym(DEF, variable, None)]
        return self.unit_lookup(f, scope, name)

    def _imported(self, f: FileIndex, facts: list[ImportFact], name: str) -> list[Sym]:
        symbols = [s for fact in facts for s in self.import_symbols(f, fact)]
        return _unique(symbols) or [Sym(EXTERNAL, name, f"through `{facts[0].statement}`")]

    def local_type(self, f: FileIndex, scope: str, name: str) -> tuple[bool, str | None]:
        """(whether `name` is a local of an enclosing function, its declared type)."""
        current = scope
        while current:
            local = f.locals.get(current)
            if local is not None and name in local:
                return True, local[name]
            current = f.parent_of(current)
        return False, None

    def resolve(self, f: FileIndex, scope: str, dotted: str) -> list[Sym]:
        """Definitions (DEF symbols) a dotted name refers to; [] when unknown or external."""
        head, *rest = dotted.split(".")
        symbols = self.lookup(f, scope, head)
        for attribute in rest:
            symbols = self.members(symbols, attribute)
            if not symbols:
                return []
        return [s for s in symbols if s.kind == DEF]

    def members(self, symbols: list[Sym], attribute: str) -> list[Sym]:
        found: list[Sym] = []
        for s in symbols:
            if s.kind == UNIT:
                found.extend(self.unit_member(s.target, attribute, s.via))
            elif s.kind == DEF and s.target in self.classes:
                member = self.find_member(s.target, attribute)
                if member is not None:
                    owner, ids = member
                    inherited = owner if owner != s.target else None
                    here = self.file_of.get(s.target)  # the site's file when s.via is None
                    for i in ids:
                        via = s.via
                        if via is None and self.file_of.get(i) != here:
                            via = f"as a member of `{self.qualified[owner]}`"
                        found.append(Sym(DEF, i, via, inherited))
        return _unique(found)

    # -- relations ----------------------------------------------------------------------------
    def _add_inherits(self, f: FileIndex) -> None:
        path = f.path
        for d, node_id in zip(f.code.definitions, f.ids, strict=True):
            if not d.bases:
                continue
            if d.kind in CLASS_KINDS:
                source, scope = node_id, d.parent
            elif d.kind == "Method":
                # A Rust method's bases: the trait its `impl Trait for Type` block implements.
                source, scope = self._owner(f, d), ""
                if source is None:
                    continue
            else:
                continue
            for base in d.bases:
                if d.kind == "Method":
                    what = f"`impl {base} for {d.parent}` at {path}:{d.start_line}, whose trait"
                else:
                    where = f"{path}:{d.start_line}"
                    what = f"{d.kind.lower()} `{d.qualname}` at {where} lists `{base}`, which"
                targets = [
                    s
                    for s in self.resolve_type(f, scope, base)
                    if s.target != source and s.target in self.classes
                ]
                for evidence in self.classify(targets, what):
                    relation = (
                        "IMPLEMENTS"
                        if d.kind == "Method"
                        or (
                            self.kinds.get(evidence.node_id) in INTERFACE_KINDS
                            and self.kinds.get(source) not in INTERFACE_KINDS
                        )
                        else "INHERITS"
                    )
                    self.edges.add(source, relation, evidence.node_id, evidence.confidence,
                                   evidence.score, evidence.explanation, path, d.start_line)

    def _add_calls(self, f: FileIndex) -> None:
        path = f.path
        callers: dict[str, str] = {"": file_id(path)}
        memo: dict[tuple[str, str], list[Evidence]] = {}
        unresolved = f.code.dynamic_calls
        for call in f.code.calls:
            key = (call.scope, call.callee)
            found = memo.get(key)
            if found is None:
                found = memo[key] = self.resolve_call(f, call)
            if not found:
                unresolved += 1
                continue
            source = callers.get(call.scope)
            if source is None:
                owner = f.by_qualname.get(call.scope)
                source = owner[0] if owner else file_id(path)
                callers[call.scope] = source
            for evidence in found:
                # The first site's line is in the explanation memoized for this (scope, callee).
                explanation = evidence.explanation
                self.edges.add(source, "CALLS", evidence.node_id, evidence.confidence,
                               evidence.score, explanation, path, call.line)
        self.unresolved += unresolved

    def resolve_call(self, f: FileIndex, call: CallSite) -> list[Evidence]:
        callee = call.callee
        what = f"call `{callee}(...)` at {f.path}:{call.line}"
        if callee.startswith(_NEW):
            what = f"`{callee}(...)` at {f.path}:{call.line}"
            name = callee[len(_NEW) :]
            if name == "this":  # Ruby's bare `new` in a class method
                class_id = self.enclosing_class(f, call.scope)
                if class_id is None:
                    return []
                via = None if self.file_of.get(class_id) == f.path else "as the enclosing class"
                return self.classify([Sym(DEF, class_id, via)], what)
            targets = [
                s
                for s in self.resolve(f, call.scope, name)
                if self.kinds.get(s.target) in CLASS_KINDS or self.kinds.get(s.target) == "Function"
            ]
            return self.classify(targets, what)
        if callee == "super":  # a constructor's call of its base class's constructor
            class_id = self.enclosing_class(f, call.scope)
            bases = self.bases(class_id)[:1] if class_id else []
            via = "as the base class of the enclosing class"
            return self.classify([Sym(DEF, b, via) for b in bases], what)
        if callee.startswith(_SUPER):
            class_id = self.enclosing_class(f, call.scope)
            member = callee[len(_SUPER) :]
            if class_id is None or "." in member:
                return []
            found = self.find_member(class_id, member, after_self=True)
            if found is None:
                return []
            owner, ids = found
            return self.classify([Sym(DEF, i, None, owner) for i in ids], what)
        if callee.startswith(_THIS):
            member = callee[len(_THIS) :]
            class_id = self.enclosing_class(f, call.scope)
            if "." not in member:
                if class_id is not None:
                    return self.classify(self._on_class(f, class_id, member), what)
                return []
            field, _, rest = member.partition(".")
            typed = self._field_type(class_id, field) if class_id and "." not in rest else None
            if typed is not None:  # `this.total.render()` with `private Money total;`
                info, type_text = typed
                classes = self.resolve_type(info.file, info.definition.parent, type_text)
                if classes:
                    via = f"through field `{field}` declared as `{type_text}`"
                    targets = [
                        s._replace(via=via) if s.owner is None else s
                        for cls in classes
                        for s in self._on_class(f, cls.target, rest)
                    ]
                    return self.classify(targets, what)
            return self._by_name(callee, what)  # the field's type is unknown
        if self.implicit_this and "." not in callee:
            class_id = self.enclosing_class(f, call.scope)
            if class_id is not None and self.find_member(class_id, callee) is not None:
                return self.classify(self._on_class(f, class_id, callee), what)
        head, _, rest = callee.partition(".")
        symbols = heads = self.lookup(f, call.scope, head)
        if rest:
            typed = not symbols and self.local_type(f, call.scope, head)
            if typed and typed[0]:
                type_text = typed[1]
                if type_text is None or "." in rest:
                    return self._by_name(callee, what)
                classes = self.resolve_type(f, call.scope, type_text)
                targets: list[Sym] = []
                for cls in classes:
                    targets.extend(
                        s._replace(via=_typed_via(head, type_text, s.via, cls.via))
                        for s in self._on_class(f, cls.target, rest)
                    )
                if classes:
                    return self.classify(_unique(targets), what)
                type_head = type_text.split(".")[0]
                if any(s.kind == EXTERNAL for s in self.lookup(f, call.scope, type_head)):
                    return []  # a declared type imported from outside the repository
                # A type the repository does not define nor import: a type parameter, a builtin
                # or prelude type. As good as unknown (builtin method names stay unmatched).
                return self._by_name(callee, what)
            for attribute in rest.split("."):
                symbols = self.members(symbols, attribute)
        targets = [s for s in symbols if s.kind == DEF]
        if targets:
            return self.classify(targets, what)
        if rest and all(self.kinds.get(s.target) == "Variable" for s in heads):
            # An unknown name (a local, a global of the runtime) or a module-level variable: the
            # receiver's type is unknown. An import or a class of that name would have said.
            return self._by_name(callee, what)
        return []

    def _field_type(self, class_id: str, field: str) -> tuple[ClassInfo, str] | None:
        """The declared type of a field of the class or an ancestor (fields are recorded as
        typed locals of their class)."""
        for owner in self.ancestors(class_id):
            info = self.classes[owner]
            qualname = info.definition.qualname
            fields = info.file.locals.get(qualname)
            if fields and field in fields:
                type_text = fields[field]
                return (info, type_text) if type_text else None
            assigned = info.file.fields.get(qualname)
            if assigned and field in assigned:
                return info, assigned[field]
        return None

    def _on_class(self, f: FileIndex, class_id: str, member: str) -> list[Sym]:
        found = self.find_member(class_id, member)
        if found is None:
            return []
        owner, ids = found
        inherited = owner if owner != class_id else None
        return [
            Sym(DEF, i, None if self.file_of.get(i) == f.path else f"on `{self.qualified[owner]}`",
                inherited)
            for i in ids
        ]

    def _by_name(self, callee: str, what: str) -> list[Evidence]:
        name = callee.rsplit(".", 1)[1]
        if name in self.builtin_methods:
            return []
        candidates = self.methods_by_name.get(name, ())
        if not candidates or len(candidates) > MAX_CANDIDATES:
            return []
        if len(candidates) > 1:
            return self.classify(
                [Sym(DEF, c, "by name") for c in candidates], f"{what} (receiver type unknown)"
            )
        only = candidates[0]
        explanation = (
            f"{what}: the receiver's type is unknown; `{self.qualified[only]}` is the only "
            f"method named `{name}` in the repository"
        )
        return [Evidence(only, "INFERRED", NAME_MATCH_SCORE, explanation)]

    def classify(self, targets: list[Sym], what: str) -> list[Evidence]:
        targets = _unique([t for t in targets if t.kind == DEF and t.target in self.qualified])
        if not targets or len(targets) > MAX_CANDIDATES:
            return []
        if len(targets) > 1:
            names = ", ".join(sorted(self.qualified[t.target] for t in targets))
            explanation = f"{what} has {len(targets)} candidates: {names}"
            return [Evidence(t.target, "AMBIGUOUS", 1 / len(targets), explanation) for t in targets]
        target = targets[0]
        name = self.qualified[target.target]
        if target.owner is not None:
            owner = self.qualified[target.owner]
            explanation = f"{what} resolved to `{name}`, inherited from `{owner}`"
        elif target.via is not None:
            explanation = f"{what} resolved {target.via} to `{name}`"
        else:
            explanation = f"{what} resolves to `{name}` in the same file"
            return [Evidence(target.target, "EXTRACTED", EXTRACTED_SCORE, explanation)]
        return [Evidence(target.target, "INFERRED", INFERRED_SCORE, explanation)]


def _typed_via(
    head: str, type_text: str, member_via: str | None, type_via: str | None
) -> str | None:
    """None (explicit: EXTRACTED) when the declared type and its member are in the same file."""
    if member_via is None and type_via is None:
        return None
    via = f"through receiver `{head}` declared as `{type_text}`"
    if type_via and type_via.startswith("through "):
        via += f" ({type_via.removeprefix('through ')})"
    return via


def _unique(symbols: list[Sym]) -> list[Sym]:
    seen: dict[tuple[str, str], Sym] = {}
    for symbol in symbols:
        seen.setdefault((symbol.kind, symbol.target), symbol)
    return list(seen.values())
