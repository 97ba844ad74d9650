"""Phase 2 for Go: packages are directories, imported by path.

A package's import path is its go.mod's `module` path plus the directory below go.mod (the nearest
go.mod above the directory, read from disk). An import path then names a repository package when
it is one of those paths; without a matching go.mod, when the path ends with a package directory
(`example.com/shop/money` → `money/`, the longest such suffix). Everything else (the standard
library, other modules) is outside the repository.

Names: a file sees its package's top-level definitions in every file of the directory (an
external test package, `package x_test` in x_test.go files, is a package of its own; of a name
defined in several files under opposite build constraints, the definition a default build
compiles: build_tags.py), its imports (`pkg.F`, by the package clause's name or the import's alias; `.` imports), and through a
receiver or a typed local, the methods of a type — declared in any file of the package, promoted
from embedded types.

A type that has every method of an interface of the repository IMPLEMENTS it (INFERRED, by
method names: Go never says so).

Calls: a local holding a call's result (`r := NewRouter()`, `sub := r.With(mw)`) has the first
result type declared in that function's or method's signature, and so has the receiver of a chain
(`r.NewRoute().Path(p)`); `x.f.m()` goes through the declared type of struct field f (an embedded
field is named by its type), `x.f.g.m()` field by field (a method the last field's type of the
repository lacks is an embedded library type's: no edge); an element `m[k]` has the type of what
it indexes (a collection's type is its elements'); a package variable has the type it is
declared or assigned, and so has a local copying it; a range's value (`for _, r := range
routes`) has the collection's element type; a function
literal's typed parameters type its names inside it (phase 1 marks them `r@line`). A receiver of
a type from outside the repository (`srv := httptest.NewServer(…)`, `err := f()` returning
`error`, a `sync.Pool` field, `h := w.Header().Clone()` with `w` a library's type, `b :=
new(strings.Builder)`) links to nothing. A call of a type is a conversion (`Middlewares(x)`), not
a call: no edge, but its value has that type (`Middlewares(x).Len()`). A call of a package
variable calls the function value it holds, not a definition: no edge.

Nodes: each package is a Module (`module:<import path>`), which CONTAINS its files; IMPORTS edges
go File → Module. Qualified names: `<import path>.<qualname>` (`example.com/shop/cart.Cart.Add`).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from typing import Any, TypeVar

from rhumbline.ingest.facts import CallSite, Definition, ImportFact
from rhumbline.ingest.graph.edges import INFERRED_SCORE
from rhumbline.ingest.graph.ids import file_id, module_id, variable_id
from rhumbline.ingest.languages.go import build_tags
from rhumbline.ingest.languages.go.extract import DECLARED, FIELD
from rhumbline.ingest.languages.polyglot.extract import CLASS_KINDS
from rhumbline.ingest.languages.polyglot.resolve import Family
from rhumbline.ingest.languages.polyglot.symbols import (
    DEF,
    UNIT,
    ClassInfo,
    Evidence,
    FileIndex,
    Sym,
    nearest_copies,
    shared_directories,
)
from rhumbline.ingest.languages.polyglot.type_names import type_name
from rhumbline.stores.graph.model import Node

_MODULE_LINE = re.compile(r"^\s*module\s+\"?([^\s\"]+)\"?", re.MULTILINE)
_VERSION_SUFFIX = re.compile(r"^v\d+$")
_TYPE_PARAMETERS = re.compile(r"\[[^\[\]]*\]")
_ELEMENTS = re.compile(r"^(?:\*?(?:\[\w*\]|map\[[^\[\]]*\]))+")  # `[]*T`, `map[string]T`, `[4]T`
# Go's predeclared types: a value of one has no method of the repository.
_PREDECLARED = frozenset(
    "any bool byte comparable complex64 complex128 error float32 float64 int int8 int16 int32 "
    "int64 rune string uint uint8 uint16 uint32 uint64 uintptr".split()
)
_HEADER_BYTES = 4096  # where a file's build constraint is: above its package clause
_NOT_CALLED = CLASS_KINDS | {"Variable"}
_RESULT_KINDS = CLASS_KINDS | {"Function"}  # what `F(x)` names when its result is typed
_CALL_RESULT = "()"  # the extractor's mark on a local holding a call's result: `NewRouter()`
# What a question asked once at a time answers.
_Answer = TypeVar("_Answer")


class GoFamily(Family):
    # A receiver of unknown type is matched by method name among at most two methods: with three
    # or more, each candidate is wrong more often than right.
    name_match_limit = 2

    def prepare(self) -> None:
        self.package_of: dict[str, str] = {}  # file path → package directory ("" at the root)
        self.package_members: dict[str, dict[str, list[Sym]]] = {}  # directory → name → definitions
        self.package_files: dict[str, list[FileIndex]] = {}
        self.package_name: dict[str, str] = {}
        # directory → name → definitions of its external test package (`package x_test` in
        # x_test.go files): a package of its own, which imports the directory's package
        self.test_members: dict[str, dict[str, list[Sym]]] = {}
        self._compiled: dict[str, bool] = {}  # path → whether a default build compiles it
        for path, f in self.files.items():
            directory = posixpath.dirname(path)
            self.package_of[path] = directory
            self.package_files.setdefault(directory, []).append(f)
            if f.namespace and not f.namespace.endswith("_test"):
                self.package_name.setdefault(directory, f.namespace)
            table = self.package_members.setdefault(directory, {})
            if _external_test(f):
                table = self.test_members.setdefault(directory, {})
            for d, node_id in zip(f.code.definitions, f.ids, strict=True):
                if not d.parent:
                    table.setdefault(d.name, []).append(Sym(DEF, node_id, f.path))
            for name, node_id in f.variables.items():
                table.setdefault(name, []).append(Sym(DEF, node_id, f.path))
        for tables in (self.package_members, self.test_members):
            for table in tables.values():
                for name, found in table.items():
                    if len(found) > 1:
                        table[name] = self._default_build(found, lambda s: s.via)
        self._go_mods: dict[str, str | None] = {}
        self.import_path = {d: self._import_path(d) for d in self.package_members}
        # Several directories may declare one import path (a module copied or vendored into
        # several projects of the tree): `package` takes the one nearest the importing file.
        self.by_import_path: dict[str, list[str]] = {}
        for directory, import_path in sorted(self.import_path.items()):
            self.by_import_path.setdefault(import_path, []).append(directory)
        self._by_basename: dict[str, list[str]] = {}
        for directory in self.package_members:
            if directory:
                self._by_basename.setdefault(directory.rsplit("/", 1)[-1], []).append(directory)
        self._imports: dict[str, list[str]] = {}
        # functions and methods by node id, for the result types their signatures declare
        self.functions: dict[str, tuple[FileIndex, Definition]] = {
            node_id: (f, d)
            for f in self.files.values()
            for d, node_id in zip(f.code.definitions, f.ids, strict=True)
            if d.kind in ("Function", "Method")
        }
        self._asking: set[tuple[str, str, str]] = set()  # result types being resolved
        # package-level variable → (its file, the type it is declared or assigned)
        self.variable_types: dict[str, tuple[FileIndex, str]] = {
            variable_id(f.path, hint.name): (f, hint.expression)
            for f in self.files.values()
            for hint in f.code.hints
            if hint.how == DECLARED and not hint.scope
        }

    def _import_path(self, directory: str) -> str:
        current = directory
        while True:
            module = self._go_mod(current)
            if module is not None:
                below = directory[len(current) :].lstrip("/") if current else directory
                return f"{module}/{below}" if below else module
            if not current:
                return directory or self.root.name
            current = posixpath.dirname(current)

    def _go_mod(self, directory: str) -> str | None:
        if directory not in self._go_mods:
            module = None
            try:
                text = (self.root / directory / "go.mod").read_text("utf-8", "replace")
            except OSError:
                text = ""
            match = _MODULE_LINE.search(text)
            if match:
                module = match.group(1)
            self._go_mods[directory] = module
        return self._go_mods[directory]

    def package(self, import_path: str, near: str) -> str | None:
        """The repository directory of an import path, or None: of several, the one nearest the
        file `near` that imports it (the first of those in path order)."""
        found = self._imports.get(import_path)
        if found is None:
            found = self.by_import_path.get(import_path, [])
            if not found:
                # No go.mod says so: the longest package directory the import path ends with.
                best = -1
                for directory in self._by_basename.get(import_path.rsplit("/", 1)[-1], ()):
                    if import_path == directory or import_path.endswith("/" + directory):
                        if len(directory) > best:
                            found, best = [directory], len(directory)
            self._imports[import_path] = found
        if len(found) < 2:
            return found[0] if found else None
        return max(found, key=lambda directory: shared_directories(near, directory + "/"))

    def members_of(self, f: FileIndex) -> dict[str, list[Sym]]:
        """The top-level names of the package `f` belongs to."""
        directory = self.package_of[f.path]
        if _external_test(f):
            return self.test_members[directory]
        return self.package_members[directory]

    def _default_build(self, found: list[Any], path_of: Callable[[Any], str]) -> list[Any]:
        """Of several definitions of one name, those in files a default build compiles (one of
        `//go:build go1.22` / `//go:build !go1.22`); all of them when none or all are."""
        kept = [item for item in found if self._in_default_build(path_of(item))]
        return kept or found

    def _in_default_build(self, path: str) -> bool:
        compiled = self._compiled.get(path)
        if compiled is None:
            try:  # phase 1 keeps no comments: the constraint is read where go.mod is
                with (self.root / path).open(encoding="utf-8", errors="replace") as handle:
                    header = handle.read(_HEADER_BYTES)
            except OSError:
                header = ""
            compiled = self._compiled[path] = not build_tags.excluded(path, header)
        return compiled

    def members_attached(self) -> None:
        """A method declared twice under opposite build constraints is the compiled one."""
        for info in self.classes.values():
            for name, ids in info.members.items():
                if len(ids) > 1:
                    info.members[name] = self._default_build(ids, self.file_of.__getitem__)
        for name, ids in self.methods_by_name.items():
            if 1 < len(ids) <= self.name_match_limit:
                self.methods_by_name[name] = self._default_build(ids, self.file_of.__getitem__)

    def name_candidates(self, f: FileIndex, name: str) -> list[str]:
        """Of the methods named `name`, those a call in `f` can reach: an unexported method only
        from its own package (directory), one declared in a _test.go file only from that
        directory's test files (test files are no part of the package others import)."""
        directory, test = self.package_of[f.path], f.path.endswith("_test.go")
        exported = name[:1].isupper()
        return [
            m
            for m in self.methods_by_name.get(name, [])
            if (exported or posixpath.dirname(self.file_of[m]) == directory)
            and (test or not self.file_of[m].endswith("_test.go"))
            and (not self.file_of[m].endswith("_test.go") or posixpath.dirname(self.file_of[m]) == directory)
        ]

    # -- hooks ------------------------------------------------------------------------------------
    def binding_name(self, f: FileIndex, fact: ImportFact) -> str | None:
        if fact.name == "*":
            return "*"
        if fact.alias:
            return None if fact.alias == "_" else fact.alias
        directory = self.package(fact.module, f.path)
        if directory is not None and directory in self.package_name:
            return self.package_name[directory]
        last = fact.module.rstrip("/").rsplit("/", 1)[-1]
        if _VERSION_SUFFIX.match(last) and "/" in fact.module:  # example.com/x/v2 is package x
            last = fact.module.rsplit("/", 2)[-2]
        return last.split(".")[0].removeprefix("go-")

    def import_symbols(self, f: FileIndex, fact: ImportFact) -> list[Sym]:
        directory = self.package(fact.module, f.path)
        if directory is None:
            return []
        return [Sym(UNIT, directory, f"through `import {_quoted(fact)}`")]

    def unit_lookup(self, f: FileIndex, scope: str, name: str) -> list[Sym]:
        directory = self.package_of[f.path]
        found = self.members_of(f).get(name)
        if found:
            package = f.namespace if _external_test(f) else self.package_name.get(directory, directory)
            return [
                Sym(DEF, s.target, None if s.via == f.path else f"in the same package `{package}`")
                for s in found
            ]
        for star in f.stars:
            target = self.package(star.module, f.path)
            if target is not None:
                symbols = self.unit_member(target, name, f"through `import {_quoted(star)}`")
                if symbols:
                    return symbols
        return []

    def unit_member(self, unit: str, name: str, via: str | None) -> list[Sym]:
        return [Sym(DEF, s.target, via) for s in self.package_members.get(unit, {}).get(name, ())]

    def add_relations(self) -> None:
        """A type implements an interface when it has all of the interface's methods (Go never
        says so): IMPLEMENTS, INFERRED, by method names and promoted methods (signatures are not
        compared). Interfaces without methods (`any`-like) are left out."""
        method_sets: dict[str, set[str]] = {}

        def methods_of(class_id: str) -> set[str]:
            found = method_sets.get(class_id)
            if found is None:
                found = set()
                for owner in self.ancestors(class_id):
                    found.update(
                        name
                        for name, ids in self.classes[owner].members.items()
                        if any(self.kinds.get(i) == "Method" for i in ids)
                    )
                method_sets[class_id] = found
            return found

        types_by_method: dict[str, list[str]] = {}
        interfaces = []
        for class_id in self.classes:
            if self.kinds[class_id] == "Interface":
                interfaces.append(class_id)
            else:
                for name in methods_of(class_id):
                    types_by_method.setdefault(name, []).append(class_id)
        implemented: list[tuple[str, str]] = []  # (interface, type)
        for interface in interfaces:
            required = methods_of(interface)
            if not required:
                continue
            rarest = min(required, key=lambda name: len(types_by_method.get(name, ())))
            implemented.extend(
                (interface, candidate)
                for candidate in types_by_method.get(rarest, ())
                if required <= methods_of(candidate)
            )
        # Of an interface copied into several places, a type implements the copy nearest it.
        by_type: dict[str, list[str]] = {}
        for interface, candidate in implemented:
            by_type.setdefault(candidate, []).append(interface)
        nearest = {
            candidate: set(nearest_copies(self.file_of[candidate], found, self.qualified, self.file_of))
            for candidate, found in by_type.items()
        }
        for interface, candidate in implemented:
            if interface not in nearest[candidate]:
                continue
            info = self.classes[candidate].definition
            names = ", ".join(sorted(methods_of(interface)))
            explanation = (
                f"{info.kind.lower()} `{self.qualified[candidate]}` has every method of "
                f"interface `{self.qualified[interface]}` ({names}), by name"
            )
            self.edges.add(candidate, "IMPLEMENTS", interface, "INFERRED", INFERRED_SCORE,
                           explanation, self.file_of[candidate], info.start_line)

    # -- calls ------------------------------------------------------------------------------------
    def resolve_call(self, f: FileIndex, call: CallSite) -> list[Evidence]:
        if call.callee.startswith("new "):
            return super().resolve_call(f, call)
        if _CALL_RESULT in call.callee:
            return self._chained_call(f, call)
        through_variable = self._variable_call(f, call)
        if through_variable is not None:
            return through_variable
        receiver, _, member = call.callee.rpartition(".")
        if "." in receiver and not self.lookup(f, call.scope, receiver.partition(".")[0]):
            # `s.router.Use(…)`, `c.Request.Header.Set(…)`: field by field from a local. A type of
            # the repository without that method has it from an embedded library type: no edge.
            typed = self._copied(f, call.scope, receiver)
            if typed is not None and self.outside_type(*typed):
                return []
            classes = self.resolve_type(*typed) if typed is not None else []
            if classes and typed is not None:
                targets = self.on_classes(f, classes, member, f"through `{receiver}` declared as `{typed[2]}`")
                return self.classify(targets, f"call `{call.callee}(...)` at {f.path}:{call.line}")
        found = super().resolve_call(f, call)
        # `T(x)` converts; `Marshal(v)` with `var Marshal = json.Marshal` calls whatever function
        # value the variable holds: neither is a call of that definition.
        return [e for e in found if self.kinds.get(e.node_id) not in _NOT_CALLED]

    def _variable_call(self, f: FileIndex, call: CallSite) -> list[Evidence] | None:
        """`JSON.Bind(…)` / `binding.JSON.Bind(…)` with `var JSON Binding = …`: the method of the
        variable's type; None when the receiver is no typed package variable or the type has no
        such method (the caller's rules then apply)."""
        receiver, _, member = call.callee.rpartition(".")
        typed = self._variable_type(f, call.scope, receiver) if receiver else None
        if typed is None:
            return None
        where, type_text = typed
        if self.outside_type(where, "", type_text):
            return []
        via = f"through package variable `{receiver}` of type `{type_text}`"
        targets = self.on_classes(f, self.resolve_type(where, "", type_text), member, via)
        if not targets:
            return None
        return self.classify(targets, f"call `{call.callee}(...)` at {f.path}:{call.line}")

    def _variable_type(self, f: FileIndex, scope: str, dotted: str) -> tuple[FileIndex, str] | None:
        """The file and type of the typed package variable `dotted` names (`JSON`, `binding.JSON`)."""
        if _CALL_RESULT in dotted:
            return None
        found = self.resolve(f, scope, dotted)
        if len(found) != 1:
            return None
        return self.variable_types.get(found[0].target)

    def _chained_call(self, f: FileIndex, call: CallSite) -> list[Evidence]:
        """`r.NewRoute().Path(...)`: the method of the type the receiver call's signature returns;
        nothing when that type is unknown or from outside the repository."""
        receiver, _, member = call.callee.rpartition(".")
        if self.outside_type(f, call.scope, receiver):
            return []
        classes = self.resolve_type(f, call.scope, receiver)
        targets = self.on_classes(f, classes, member, f"through the result of `{receiver}`")
        return self.classify(targets, f"call `{call.callee}(...)` at {f.path}:{call.line}")

    def field_type(self, class_id: str, field: str) -> tuple[ClassInfo, str] | None:
        """A named field's declared type, or an embedded one's (`e.RouterGroup` is the embedded
        `RouterGroup`, `*pkg.RouterGroup` alike)."""
        found = super().field_type(class_id, FIELD + field)
        if found is not None:
            return found
        for owner in self.ancestors(class_id):
            info = self.classes[owner]
            for base in info.definition.bases:
                if base.rsplit(".", 1)[-1] == field:
                    return info, base
        return None

    def _copied(self, f: FileIndex, scope: str, dotted: str) -> tuple[FileIndex, str, str] | None:
        """Where and as what the value `dotted` names is typed (file, scope, type text): a typed
        package variable (`Query`, `binding.Query`), a typed local (`routes`), or a chain of
        fields from one (`s.routes`, `c.Request.Header`: the first field whose type is from
        outside the repository ends it); None when unknown."""
        variable = self._variable_type(f, scope, dotted)
        if variable is not None:
            return variable[0], "", variable[1]
        head, *fields = dotted.split(".")
        is_local, type_text = self.local_type(f, scope, head)
        if not is_local or not type_text:
            return None
        where, where_scope = f, scope
        for field in fields:
            if self.outside_type(where, where_scope, type_text):
                break
            found = (self.field_type(c.target, field) for c in self.resolve_type(where, where_scope, type_text))
            typed = next((t for t in found if t is not None), None)
            if typed is None:
                return None
            info, type_text = typed
            where, where_scope = info.file, info.definition.parent
        return where, where_scope, type_text

    def _once(self, question: tuple[str, str, str], ask: Callable[[], _Answer], unanswered: _Answer) -> _Answer:
        """`ask()`, or `unanswered` while the same question is being answered (a local typed by
        itself, `x := x.Next()`, a package variable copying another that copies it)."""
        if question in self._asking:
            return unanswered
        self._asking.add(question)
        try:
            return ask()
        finally:
            self._asking.discard(question)

    def resolve_type(self, f: FileIndex, scope: str, dotted: str) -> list[Sym]:
        if dotted.endswith(_CALL_RESULT):
            result = self._result_type(f, scope, dotted.removesuffix(_CALL_RESULT))
            if result is None:
                return []
            where, type_text = result
            return super().resolve_type(where, "", type_text)
        found = super().resolve_type(f, scope, dotted)
        if found:
            return found
        def copied() -> list[Sym]:  # `b := Query`, `for _, r := range routes`, `range s.routes`
            typed = self._copied(f, scope, dotted)
            return self.resolve_type(*typed) if typed else []

        return self._once((f.path, scope, "copy " + dotted), copied, [])

    def outside_type(self, f: FileIndex, scope: str, type_text: str) -> bool:
        if not type_text.endswith(_CALL_RESULT):
            if type_text in _PREDECLARED or super().outside_type(f, scope, type_text):
                return True

            def copied() -> bool:  # `var scratch bytes.Buffer`, `for _, b := range buffers`
                typed = self._copied(f, scope, type_text)
                return typed is not None and self.outside_type(*typed)

            return self._once((f.path, scope, "outside copy " + type_text), copied, False)
        function = type_text.removesuffix(_CALL_RESULT)
        result = self._result_type(f, scope, function)
        if result is None:  # `httptest.NewServer()`, `w.Header().Clone()`: outside's functions
            return super().outside_type(f, scope, function) or self._outside_receiver(f, scope, function)
        where, result_type = result
        return result_type in _PREDECLARED or super().outside_type(where, "", result_type)

    def _outside_receiver(self, f: FileIndex, scope: str, function: str) -> bool:
        """Whether `function` is a method of a value whose type is from outside the repository
        (`w.Header`, `req.Context().Done` with `w`, `req` typed by a library): such a method
        returns no type of the repository. A local typed by its own call (`x := x.Next()`) is
        asked about once at a time."""
        receiver, _, _member = function.rpartition(".")
        if not receiver:
            return False

        def outside() -> bool:
            if receiver.endswith(_CALL_RESULT):
                return self.outside_type(f, scope, receiver)
            is_local, type_text = self.local_type(f, scope, receiver) if "." not in receiver else (False, None)
            return bool(is_local and type_text and self.outside_type(f, scope, type_text))

        return self._once((f.path, scope, "outside " + receiver), outside, False)

    def _result_type(self, f: FileIndex, scope: str, function: str) -> tuple[FileIndex, str] | None:
        """The file of the one repository function or method `function` names (`F`, `pkg.F`,
        `x.M` on a typed local, a package variable holding one: `var Get = pool.Get`), and the
        first result type its signature declares (`*Mux` → `Mux`), or the type a conversion
        `T(x)` names; None when either is unknown. A local typed by its own call's result (`x :=
        x.Next()`) names nothing: each question is asked once at a time."""
        return self._once((f.path, scope, "result " + function), lambda: self._result(f, scope, function), None)

    def _result(self, f: FileIndex, scope: str, function: str) -> tuple[FileIndex, str] | None:
        targets = self._callees(f, scope, function)
        if len(targets) != 1:
            return None
        converted = self.classes.get(targets[0])
        if converted is not None:  # a conversion `Middlewares(x)`: a value of that type
            return converted.file, converted.definition.qualname
        held = self.variable_types.get(targets[0])
        if held is not None:  # `var Get = _pool.Get`: what the function value it holds returns
            return self._result_type(held[0], "", held[1])
        if targets[0] not in self.functions:
            return None
        where, definition = self.functions[targets[0]]
        result = _first_result(definition.signature)
        return (where, result) if result else None

    def _callees(self, f: FileIndex, scope: str, function: str) -> list[str]:
        receiver, _, member = function.rpartition(".")
        if receiver.endswith(_CALL_RESULT):  # a chain: `r.NewRoute().Path`
            found = [self.find_member(c.target, member) for c in self.resolve_type(f, scope, receiver)]
            return list(dict.fromkeys(i for hit in found if hit for i in hit[1]))
        typed = self._copied(f, scope, receiver) if receiver else None
        if typed is not None:  # `x.M`, `x.f.M`, `pkgVar.M`
            found = [self.find_member(c.target, member) for c in self.resolve_type(*typed)]
            return list(dict.fromkeys(i for hit in found if hit for i in hit[1]))
        return [s.target for s in self.resolve(f, scope, function)
                if self.kinds.get(s.target) in _RESULT_KINDS or s.target in self.variable_types]  # fmt: skip

    def owner_class(self, f: FileIndex, d) -> str | None:
        for s in self.members_of(f).get(d.parent, ()):
            if self.kinds.get(s.target) in CLASS_KINDS:
                return s.target
        return None

    def qualified_name(self, f: FileIndex, qualname: str) -> str:
        return f"{self.import_path[self.package_of[f.path]]}.{qualname}"

    def add_imports(self, f: FileIndex) -> None:
        path = f.path
        for fact in f.code.imports:
            directory = self.package(fact.module, f.path)
            if directory is None:
                continue
            explanation = f"`import {_quoted(fact)}` at {path}:{fact.line}"
            target = module_id(self.import_path[directory])
            self.edges.extracted(file_id(path), "IMPORTS", target, explanation, path, fact.line)

    def extra_nodes(self) -> list[Node]:
        nodes = []
        for directory, files in sorted(self.package_files.items()):
            import_path = self.import_path[directory]
            name = self.package_name.get(directory) or import_path.rsplit("/", 1)[-1]
            docstring = next((f.code.docstring for f in files if f.code.docstring), None)
            node_id = module_id(import_path)
            nodes.append(
                Node(
                    id=node_id,
                    kind="Module",
                    name=name,
                    qualified_name=import_path,
                    language="go",
                    docstring=docstring,
                )
            )
            for f in files:
                explanation = f"{f.path} belongs to Go package `{name}` ({import_path})"
                self.edges.extracted(node_id, "CONTAINS", file_id(f.path), explanation, f.path, 1)
        return nodes


def _first_result(signature: str) -> str | None:
    """The nominal type of a function's first result, from its signature: `func F[T any](…) (R,
    error)`, `func (m *Mux) With(…) Router`, an interface's `Route(…) Router`."""
    text = signature.strip().removeprefix("func").lstrip()
    if text.startswith("("):  # a method's receiver
        text = text[_group_end(text) :].lstrip()
    start = text.find("(")
    if start < 0 or not text[:start].split("[")[0].isidentifier():
        return None
    results = text[_group_end(text, start) :].strip().removesuffix("{").strip()
    if results.startswith("("):
        first = results[1:].split(",")[0].strip().removesuffix(")").split()
        results = first[-1] if first else ""  # a named result `(m *Mux, err error)`
    results = _ELEMENTS.sub("", results).lstrip("*")  # a collection's elements (as locals' types)
    if not results or results.startswith(("func", "chan", "map", "[", "interface", "struct")):
        return None
    return type_name(_TYPE_PARAMETERS.sub("", results))


def _group_end(text: str, start: int = 0) -> int:
    """The index just past the bracketed group opening at `start` (the text's end if unclosed)."""
    depth = 0
    for index in range(start, len(text)):
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(text[index], 0)
        if depth == 0:
            return index + 1
    return len(text)


def _quoted(fact: ImportFact) -> str:
    if fact.name == "*":
        return f'. "{fact.module}"'
    return f'{fact.alias} "{fact.module}"' if fact.alias else f'"{fact.module}"'


def _external_test(f: FileIndex) -> bool:
    return f.path.endswith("_test.go") and bool(f.namespace) and f.namespace.endswith("_test")
