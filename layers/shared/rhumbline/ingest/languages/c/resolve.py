"""Phase 2 for C and C++, resolved together (C++ calls C; headers are shared).

Includes: `#include "x.h"` is looked up next to the including file, then from the repository root,
then in any `include/` directory, then as the only repository file ending with `/x.h`;
`#include <x.h>` the same way minus the first step (a system header is simply not found).

C and C++ link by name, so every non-`static` function, class, struct and enum is visible from
every file by its qualified name (`shop::Cart`, `helper`): a name not defined in the file resolves
to the repository's definitions of that name — preferring those in the files the current file
includes (and the sources next to them: `cart.h` → `cart.c`) — one is INFERRED, two to five are
AMBIGUOUS. `ns::f()` and `Class::f()` walk namespaces and classes; inside a method a bare `m()`
is `this->m()` first; declarations in a class body give way to their definitions.

Qualified names are the qualnames (`shop::Cart::add`), namespaces included. IMPORTS edges:
File → File for each repository include.
"""

from __future__ import annotations

import posixpath

from rhumbline.ingest.facts import Definition, ImportFact
from rhumbline.ingest.graph.ids import file_id
from rhumbline.ingest.languages.polyglot.extract import CLASS_KINDS
from rhumbline.ingest.languages.polyglot.resolve import Family
from rhumbline.ingest.languages.polyglot.symbols import DEF, UNIT, FileIndex, Sym, nearest_copies, nearest_paths

_QUOTED = 1
_SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".cxx")

_BUILTIN_METHODS = frozenset(
    """
    size length empty begin end cbegin cend rbegin rend push_back pop_back emplace_back front
    back insert erase find count clear reserve resize data c_str str substr append at swap get
    reset release lock unlock load store first second what value has_value value_or
    """.split()
)


class CFamily(Family):
    implicit_this = True
    separator = "::"
    builtin_methods = _BUILTIN_METHODS

    def prepare(self) -> None:
        self.by_qualname: dict[str, list[str]] = {}  # global: qualname → ids
        self.by_name: dict[str, list[str]] = {}  # global: simple name → ids of top-level names
        self.namespaces: set[str] = set()
        self.declarations: set[str] = set()
        self._includes: dict[tuple[str, str, int], str | None] = {}
        self._included: dict[str, set[str]] = {}
        self._by_basename: dict[str, list[str]] = {}
        for path in self.files:
            self._by_basename.setdefault(posixpath.basename(path), []).append(path)
        for f in self.files.values():
            for d, node_id in zip(f.code.definitions, f.ids, strict=True):
                if d.signature.endswith(";"):
                    self.declarations.add(node_id)
                if d.signature.startswith("static ") and not d.parent:
                    continue  # file-local
                self.by_qualname.setdefault(d.qualname, []).append(node_id)
                if not d.parent and d.kind != "Method":
                    self.by_name.setdefault(d.name, []).append(node_id)
                scope = d.qualname.rsplit("::", 1)[0] if "::" in d.qualname else ""
                while scope:
                    self.namespaces.add(scope)
                    scope = scope.rsplit("::", 1)[0] if "::" in scope else ""
            for name, node_id in f.variables.items():
                self.by_name.setdefault(name, []).append(node_id)

    # -- includes ---------------------------------------------------------------------------------
    def include(self, path: str, header: str, level: int) -> str | None:
        key = (posixpath.dirname(path), header, level)
        if key in self._includes:
            return self._includes[key]
        candidates = []
        if level == _QUOTED:
            candidates.append(posixpath.normpath(posixpath.join(key[0], header)))
        candidates.append(posixpath.normpath(header))
        found = next((c for c in candidates if c in self.files), None)
        if found is None:
            suffix = "/" + header.lstrip("./")
            same_name = self._by_basename.get(posixpath.basename(header), ())
            matches = [p for p in same_name if p.endswith(suffix) or p == header]
            # Of several (a project copied into several places of the tree), the nearest.
            include_dirs = nearest_paths(path, [p for p in matches if f"include{suffix}" in p])
            matches = nearest_paths(path, matches)
            if len(include_dirs) == 1:
                found = include_dirs[0]
            elif len(matches) == 1:
                found = matches[0]
        self._includes[key] = found
        return found

    def included(self, path: str) -> dict[str, str]:
        """Files `path` includes and the sources of those headers (`money.h` → any `money.c`),
        each with the include statement that brings it."""
        found = self._included.get(path)
        if found is None:
            found = {}
            for fact in self.files[path].code.imports:
                header = self.include(path, fact.module, fact.level)
                if header is None:
                    continue
                found.setdefault(header, fact.statement)
                stem = posixpath.splitext(posixpath.basename(header))[0]
                for suffix in _SOURCE_SUFFIXES:
                    for source in nearest_paths(header, self._by_basename.get(stem + suffix, [])):
                        found.setdefault(source, fact.statement)
            self._included[path] = found
        return found

    # -- names ------------------------------------------------------------------------------------
    def unit_lookup(self, f: FileIndex, scope: str, name: str) -> list[Sym]:
        ids = [i for i in self.by_name.get(name, ()) if self.file_of.get(i) != f.path]
        if not ids:
            for namespace in _enclosing_namespaces(scope):  # `helper()` inside namespace shop
                ids = self.by_qualname.get(f"{namespace}::{name}", [])
                if ids:
                    break
        if ids:
            return self._linked(f, ids)
        if name in self.namespaces:
            return [Sym(UNIT, name, None)]
        return []

    def _linked(self, f: FileIndex, ids: list[str]) -> list[Sym]:
        ids = self._prefer_definitions(ids)
        included = self.included(f.path)
        near = [i for i in ids if self.file_of.get(i) in included]
        symbols = []
        for i in near or ids:
            path = self.file_of.get(i)
            if path == f.path:
                how = None
            elif near:
                how = f"through `{included[path]}`"
            else:
                how = "by name across the repository"
            symbols.append(Sym(DEF, i, how))
        return symbols

    def _prefer_definitions(self, ids: list[str]) -> list[str]:
        defined = [i for i in ids if i not in self.declarations]
        return defined or ids

    def unit_member(self, unit: str, name: str, via: str | None) -> list[Sym]:
        qualname = f"{unit}::{name}"
        ids = self._prefer_definitions(self.by_qualname.get(qualname, []))
        if ids:
            return [Sym(DEF, i, via or f"in namespace `{unit}`") for i in ids]
        if qualname in self.namespaces:
            return [Sym(UNIT, qualname, via)]
        return []

    def find_member(self, class_id: str, name: str, *, after_self: bool = False):
        found = super().find_member(class_id, name, after_self=after_self)
        if found is None:
            return None
        owner, ids = found
        return owner, self._prefer_definitions(ids)

    def members_attached(self) -> None:
        # A method declared in its class and defined elsewhere is one method for name matching.
        for name, ids in self.methods_by_name.items():
            if len(ids) > 1:
                qualnames = {}
                for i in ids:
                    qualnames.setdefault(self.qualified[i], []).append(i)
                kept = [
                    i
                    for group in qualnames.values()
                    for i in self._prefer_definitions(group)
                ]
                if len(kept) != len(ids):
                    self.methods_by_name[name] = kept

    def owner_class(self, f: FileIndex, d: Definition) -> str | None:
        candidates = self._prefer_definitions(self.by_qualname.get(d.parent, []))
        for node_id in nearest_copies(f.path, candidates, self.qualified, self.file_of):
            if self.kinds.get(node_id) in CLASS_KINDS:
                return node_id
        return super().owner_class(f, d)

    def binding_name(self, f: FileIndex, fact: ImportFact) -> str | None:
        return None  # an include binds no name: everything is global

    def add_imports(self, f: FileIndex) -> None:
        path = f.path
        for fact in f.code.imports:
            target = self.include(path, fact.module, fact.level)
            if target is not None and target != path:
                explanation = f"`{fact.statement}` at {path}:{fact.line}"
                self.edges.extracted(file_id(path), "IMPORTS", file_id(target), explanation,
                                     path, fact.line)


def _enclosing_namespaces(scope: str) -> list[str]:
    parts = scope.split("::")[:-1]
    return ["::".join(parts[:end]) for end in range(len(parts), 0, -1)]
