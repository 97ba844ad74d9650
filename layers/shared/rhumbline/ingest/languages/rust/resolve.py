"""Phase 2 for Rust: crates and their module trees.

A crate is the directory of the nearest Cargo.toml with a `[package]` (its `name`, `-` read as
`_`; the ingest root's name when there is no manifest). Inside `src/`, a file's module path
follows the file layout: `src/lib.rs` and `src/main.rs` are the crate root, `src/a.rs` and
`src/a/mod.rs` are `a`, `src/a/b.rs` is `a::b`; inline `mod m { … }` blocks are submodules of
their file. Other roots (`src/bin/x.rs`, `tests/`, `examples/`, `benches/`, `build.rs`) are crates
of their own. `mod x;` finds `x.rs` or `x/mod.rs` next to its file (or in the directory named after
a non-root file).

Paths in `use` and calls start at `crate::`, `self::`, `super::`, a crate of the repository by
name, or the current module (items, `use` bindings and submodules); each later segment is a
submodule, an item, or an associated function / method of a type (impl blocks anywhere in the
repository attach to their type). Every `use` counts as visible from other modules (`pub use`
re-exports are followed; private ones are too — lenient). `std`, `core` and dependencies are
outside the repository.

Qualified names: `<crate>::<module path>::<qualname>` (`shop::money::Money::render`). IMPORTS
edges: File → File, for `mod x;` declarations and for `use` of repository items and modules.
"""

from __future__ import annotations

import posixpath
import re

from rhumbline.ingest.facts import ImportFact
from rhumbline.ingest.graph.ids import file_id
from rhumbline.ingest.languages.polyglot.resolve import Family
from rhumbline.ingest.languages.polyglot.symbols import DEF, UNIT, FileIndex, Sym, shared_directories

_PACKAGE_NAME = re.compile(
    r"^\[package\][^\[]*?^\s*name\s*=\s*\"([^\"]+)\"", re.MULTILINE | re.DOTALL
)
_MOD_DECLARATION = 1
_ROOT_FILES = ("lib.rs", "main.rs", "mod.rs")

_BUILTIN_METHODS = frozenset(
    """
    clone to_string to_owned into from as_ref as_mut borrow borrow_mut unwrap expect unwrap_or
    unwrap_or_else unwrap_or_default ok err ok_or ok_or_else map map_err and_then or_else iter
    iter_mut into_iter collect push pop insert remove get get_mut contains contains_key len
    is_empty is_some is_none is_ok is_err extend drain clear sort sort_by sort_unstable dedup
    join split trim starts_with ends_with lock read write send recv fmt eq ne cmp partial_cmp
    hash default new with_capacity filter filter_map fold any all find position enumerate zip
    chain rev take skip next last count sum max min as_str as_slice as_bytes chars bytes lines
    format parse entry or_insert or_insert_with keys values first split_at replace spawn await
    """.split()
)


class RustFamily(Family):
    separator = "::"
    builtin_methods = _BUILTIN_METHODS

    def prepare(self) -> None:
        self._manifests: dict[str, str | None] = {}
        # crate name → (its directory, its root unit) of each crate so named: a crate copied
        # into several places of the tree is named by each, and a file reaches the nearest
        self.crates: dict[str, list[tuple[str, str]]] = {}
        self.unit_of: dict[str, str] = {}  # file → unit key
        self.segments_of: dict[str, list[str]] = {}  # file → module path segments
        self.crate_name_of: dict[str, str] = {}  # file → crate name
        self.unit_file: dict[str, str] = {}  # unit key → file defining it
        self.unit_members: dict[str, dict[str, list[Sym]]] = {}
        self._resolving: set[tuple[str, str]] = set()
        for path in self.files:
            crate_dir, crate_name = self._crate(path)
            root, segments = self._module(path, crate_dir)
            key = _key(root, segments)
            self.unit_of[path] = key
            self.segments_of[path] = segments
            self.crate_name_of[path] = crate_name
            self.unit_file.setdefault(key, path)
            if not segments and root == crate_dir:
                self.crates.setdefault(crate_name.replace("-", "_"), []).append((crate_dir, key))
            # the module tree by layout: each file's module is a member of its parent module
            for depth in range(len(segments)):
                parent = _key(root, segments[:depth])
                child = Sym(UNIT, _key(root, segments[: depth + 1]), path)
                self._add(parent, segments[depth], child)
        for path, f in self.files.items():
            key = self.unit_of[path]
            for d, node_id in zip(f.code.definitions, f.ids, strict=True):
                if d.parent:
                    continue
                inner, _, name = d.qualname.rpartition("::")
                unit = key
                if inner:  # inside inline `mod a { mod b { … } }`
                    for part in inner.split("::"):
                        child = f"{unit}::{part}" if not unit.endswith("|") else f"{unit}{part}"
                        self._add(unit, part, Sym(UNIT, child, path))
                        self.unit_file.setdefault(child, path)
                        unit = child
                self._add(unit, name, Sym(DEF, node_id, path))
            for name, node_id in f.variables.items():
                self._add(key, name, Sym(DEF, node_id, path))

    def _add(self, unit: str, name: str, symbol: Sym) -> None:
        members = self.unit_members.setdefault(unit, {}).setdefault(name, [])
        if symbol not in members:
            members.append(symbol)

    def _crate(self, path: str) -> tuple[str, str]:
        directory = posixpath.dirname(path)
        while True:
            name = self._manifest(directory)
            if name is not None:
                return directory, name
            if not directory:
                return "", self.root.name.replace("-", "_")
            directory = posixpath.dirname(directory)

    def _manifest(self, directory: str) -> str | None:
        if directory not in self._manifests:
            name = None
            try:
                text = (self.root / directory / "Cargo.toml").read_text("utf-8", "replace")
            except OSError:
                text = ""
            match = _PACKAGE_NAME.search(text)
            if match:
                name = match.group(1).replace("-", "_")
            self._manifests[directory] = name
        return self._manifests[directory]

    def _module(self, path: str, crate_dir: str) -> tuple[str, list[str]]:
        """(root key, module segments) of a file."""
        relative = path[len(crate_dir) :].lstrip("/") if crate_dir else path
        if relative.startswith("src/") and not relative.startswith("src/bin/"):
            parts = relative[len("src/") :].split("/")
            if parts[-1] in _ROOT_FILES:
                parts = parts[:-1]
            else:
                parts[-1] = parts[-1].removesuffix(".rs")
            if len(parts) == 0 or relative in ("src/lib.rs", "src/main.rs"):
                return crate_dir, []
            return crate_dir, parts
        # a root of its own: a binary, a test, an example, a build script, a loose file
        stem = relative.removesuffix(".rs")
        if stem.endswith("/mod") or stem.endswith("/main"):
            stem = stem.rsplit("/", 1)[0]
        return f"{crate_dir}#{stem}", []

    # -- paths ------------------------------------------------------------------------------------
    def parent_unit(self, unit: str) -> str | None:
        root, _, module = unit.partition("|")
        if not module:
            return None
        return _key(root, module.split("::")[:-1])

    def resolve_path(self, f: FileIndex, segments: list[str], via: str) -> list[Sym]:
        """Symbols a `::` path names from file `f`."""
        first, rest = segments[0], segments[1:]
        if first == "crate":
            symbols = [Sym(UNIT, self._crate_root(f), via)]
        elif first in ("self", "super"):
            unit: str | None = self.unit_of[f.path]
            index = 1 if first == "self" else 0
            while index < len(segments) and segments[index] == "super" and unit is not None:
                unit = self.parent_unit(unit)
                index += 1
            if unit is None:
                return []
            symbols, rest = [Sym(UNIT, unit, via)], segments[index:]
        else:
            key = (f.path, first)
            if key in self._resolving:
                return []
            self._resolving.add(key)
            try:
                found = self.lookup(f, "", first)
                symbols = [s._replace(via=via) for s in found if s.kind != "external"]
            finally:
                self._resolving.discard(key)
        for segment in rest:
            symbols = self.members(symbols, segment)
        return symbols

    def _crate_root(self, f: FileIndex) -> str:
        return self.unit_of[f.path].split("|", 1)[0] + "|"

    def mod_target(self, path: str, name: str) -> str | None:
        """The file `mod name;` in `path` loads."""
        directory, filename = posixpath.split(path)
        if filename not in _ROOT_FILES and not self.unit_of[path].split("|", 1)[0].count("#"):
            stem = filename.removesuffix(".rs")
            if self.segments_of[path]:  # `a.rs` declares `a/x.rs`
                directory = posixpath.join(directory, stem)
        for candidate in (f"{name}.rs", f"{name}/mod.rs"):
            target = posixpath.join(directory, candidate) if directory else candidate
            if target in self.files:
                return target
        return None

    # -- hooks ------------------------------------------------------------------------------------
    def binding_name(self, f: FileIndex, fact: ImportFact) -> str | None:
        if fact.name == "*":
            return "*"
        return fact.alias or fact.name

    def import_symbols(self, f: FileIndex, fact: ImportFact) -> list[Sym]:
        via = f"through `{fact.statement}`"
        if fact.level == _MOD_DECLARATION:
            target = self.mod_target(f.path, fact.module)
            if target is not None:
                return [Sym(UNIT, self.unit_of[target], via)]
            child = f"{self.unit_of[f.path]}::{fact.module}".replace("|::", "|")
            return [Sym(UNIT, child, via)] if child in self.unit_members else []
        segments = [*(fact.module.split("::") if fact.module else []), fact.name or ""]
        return self.resolve_path(f, segments, via)

    def unit_lookup(self, f: FileIndex, scope: str, name: str) -> list[Sym]:
        own = self.unit_members.get(self.unit_of[f.path], {}).get(name)
        if own:
            return [s._replace(via=None if s.via == f.path else "in the same module") for s in own]
        for star in f.stars:
            via = f"through `{star.statement}`"
            for unit in self.resolve_path(f, star.module.split("::"), via):
                if unit.kind == UNIT:
                    found = self.unit_member(unit.target, name, via)
                    if found:
                        return found
        if name in ("crate", "super", "self"):
            return self.resolve_path(f, [name], "by its path")
        crates = self.crates.get(name)
        if crates:
            nearest = max(crates, key=lambda crate: shared_directories(f.path, crate[0] + "/"))
            return [Sym(UNIT, nearest[1], f"in crate `{name}`")]
        return []

    def unit_member(self, unit: str, name: str, via: str | None) -> list[Sym]:
        found = [s._replace(via=via) for s in self.unit_members.get(unit, {}).get(name, ())]
        if found:
            return found
        # `use` bindings of that module's file: re-exports (`pub use`)
        path = self.unit_file.get(unit)
        if path is None or unit != self.unit_of.get(path):
            return []
        f = self.files[path]
        facts = f.bindings.get(("", name))
        if not facts:
            return []
        return [s._replace(via=via) for s in self._imported(f, facts, name) if s.kind != "external"]

    def qualified_name(self, f: FileIndex, qualname: str) -> str:
        parts = [self.crate_name_of[f.path], *self.segments_of[f.path], qualname]
        return "::".join(parts)

    def add_imports(self, f: FileIndex) -> None:
        path = f.path
        source = file_id(path)
        for fact in f.code.imports:
            explanation = f"`{fact.statement}` at {path}:{fact.line}"
            if fact.level == _MOD_DECLARATION:
                target = self.mod_target(path, fact.module)
                targets = {target} if target else set()
            else:
                module = fact.module.split("::") if fact.module else []
                segments = module if fact.name == "*" else [*module, fact.name or ""]
                targets = set()
                for s in self.resolve_path(f, segments, ""):
                    if s.kind == UNIT:
                        targets.add(self.unit_file.get(s.target))
                    elif s.kind == DEF:
                        targets.add(self.file_of.get(s.target))
            for target in sorted(t for t in targets if t and t != path):
                self.edges.extracted(
                    source, "IMPORTS", file_id(target), explanation, path, fact.line
                )


def _key(root: str, segments: list[str]) -> str:
    return f"{root}|{'::'.join(segments)}"
