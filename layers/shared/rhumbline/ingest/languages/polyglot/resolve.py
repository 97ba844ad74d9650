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

from collections.abc import Callable, Sequence
from pathlib import Path

from rhumbline.ingest.facts import Definition, ImportFact, SourceFile
from rhumbline.ingest.failures import Failures
from rhumbline.ingest.graph.edges import EdgeSet
from rhumbline.ingest.graph.ids import file_id, variable_id
from rhumbline.ingest.languages.polyglot.calls import CallResolution
from rhumbline.ingest.languages.polyglot.extract import CLASS_KINDS
from rhumbline.ingest.languages.polyglot.lookups import Lookups
from rhumbline.ingest.languages.polyglot.statement_nodes import StatementResolution
from rhumbline.ingest.languages.polyglot.symbols import (
    INTERFACE_KINDS,
    ClassInfo,
    FileIndex,
    Sym,
)
from rhumbline.stores.graph.model import Node


class Family(Lookups, CallResolution, StatementResolution):
    # Java, C#, Kotlin, C++, Ruby: a bare `m()` in a method means `this.m()` when the class has m.
    implicit_this = False
    # Method names of the languages' standard types: never matched by name on an unknown receiver.
    builtin_methods: frozenset[str] = frozenset()
    # Separator between a file's qualified prefix and a definition's qualname.
    separator = "."

    def __init__(
        self, sources: Sequence[SourceFile], root: Path, edges: EdgeSet, failures: Failures | None = None
    ) -> None:
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
        self._importing: set[tuple[str, str, str]] = set()  # bindings being resolved (lookups.py)
        self._owners: dict[str, str | None] = {}
        self.failures = Failures() if failures is None else failures
        self.failed: set[str] = set()  # paths a step raised on (_per_file)
        self.stage = "resolve " + "/".join(sorted({f.language or "" for f in self.files.values()}))

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
        self._per_file(self._bind_imports)
        self._per_file(self._definition_nodes)
        self._per_file(self._add_classes)
        self._per_file(self._attach_members)
        self.members_attached()
        self._per_file(self._add_links)
        self.add_relations()
        self._per_file(self._add_calls)
        self._per_file(self.add_statement_nodes)  # Import and Decorator nodes
        self.nodes.extend(self.extra_nodes())

    def _per_file(self, step: Callable[[FileIndex], None]) -> None:
        """`step` on every file not failed yet; a file it raises on is recorded once, in
        `failures`, and left out of the later steps (its records may be incomplete)."""
        for f in self.files.values():
            if f.path in self.failed:
                continue
            self.site = f.path
            try:
                step(f)
            except Exception as error:  # noqa: BLE001 — reported; the other files are built
                self.failed.add(f.path)
                self.failures.add(f.path, self.stage, error)

    def _bind_imports(self, f: FileIndex) -> None:
        for fact in f.code.imports:
            bound = self.binding_name(f, fact)
            if bound == "*":
                f.stars.append(fact)
            elif bound:
                f.bindings.setdefault((fact.scope, bound), []).append(fact)

    def _add_classes(self, f: FileIndex) -> None:
        for d, node_id in zip(f.code.definitions, f.ids, strict=True):
            if d.kind in CLASS_KINDS:
                self.classes.setdefault(node_id, ClassInfo(node_id, f, d))

    def _add_links(self, f: FileIndex) -> None:
        self._add_defines(f)
        self.add_imports(f)
        self._add_inherits(f)

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
                    body=d.body or None,
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
