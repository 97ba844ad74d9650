"""What each name means in each Python scope, across modules.

A FileNamespace records one file's bindings: per scope (a function, a class body, or "" for the
module), the names bound there by `def`, `class`, assignment or import. Namespaces joins all files
and answers "what does `name` in module M refer to", following re-exports (`from .query import
QuerySet` in a package `__init__`), `import *` (honouring `__all__`), submodules and plain aliases
(`get = get_object`), with cycles cut.
"""

from __future__ import annotations

from typing import NamedTuple

from rhumbline.ingest.facts import CodeFacts, ImportFact, TypeHint
from rhumbline.ingest.graph.ids import definition_id, variable_id
from rhumbline.ingest.languages.python.hints import RETURNS
from rhumbline.ingest.languages.python.modules import ModuleIndex
from rhumbline.ingest.languages.python.syntax import is_secondary_site

DEF, VARIABLE, MODULE, IMPORT, PARAMETER = "def", "variable", "module", "import", "parameter"
# Methods whose first parameter is the class: by decorator, or implicitly by name.
_CLASS_DECORATORS = frozenset({"classmethod", "classproperty"})
_CLASS_METHODS = frozenset({"__new__", "__init_subclass__", "__class_getitem__"})
# A name a function or class body assigns a value a TypeHint describes (`client = Client()`).
ASSIGNED = "assigned"
# Namespaces.find's `where` for a name bound by a star import (no scope qualname contains "*").
STAR = "*"


class Binding(NamedTuple):
    kind: str  # DEF, VARIABLE, MODULE, IMPORT or PARAMETER
    target: str  # node id (DEF, VARIABLE, PARAMETER: its function) or module name (MODULE, IMPORT)
    name: str | None  # IMPORT: the name imported from `target`
    statement: str  # IMPORT/MODULE: the import, as it binds this name; VARIABLE: the aliased name
    line: int


class Symbol(NamedTuple):
    kind: str  # DEF or MODULE
    target: str  # node id or absolute module name
    imported: bool  # reached through at least one import or alias


class FileNamespace:
    def __init__(self, path: str, module: str, code: CodeFacts, index: ModuleIndex) -> None:
        self.path = path
        self.module = module
        self.exports = code.exports
        self.bindings: dict[tuple[str, str], list[Binding]] = {}
        self.stars: list[Binding] = []
        self.scope_kind: dict[str, str] = {}
        self.scope_parent: dict[str, str] = {}
        # method qualname → (its first parameter, "instance" or "class" for a classmethod);
        # absent for static methods
        self.receiver_parameter: dict[str, tuple[str, str]] = {}
        for definition in code.definitions:
            if definition.kind == "Method" and definition.parameters:
                decorators = {decorator.expression for decorator in definition.decorators}
                if "staticmethod" not in decorators:
                    by_class = decorators & _CLASS_DECORATORS or definition.name in _CLASS_METHODS
                    how = "class" if by_class else "instance"
                    self.receiver_parameter[definition.qualname] = (definition.parameters[0], how)
            self.scope_kind.setdefault(definition.qualname, definition.kind)
            self.scope_parent.setdefault(definition.qualname, definition.parent)
            node_id = definition_id(definition.kind, path, definition.qualname)
            if not is_secondary_site(definition.qualname):
                binding = Binding(DEF, node_id, None, "", definition.start_line)
                self._bind(definition.parent, definition.name, binding)
            # A parameter hides an outer name of the same spelling; its value is unknown.
            for parameter in definition.parameters:
                local = Binding(PARAMETER, node_id, None, "", definition.start_line)
                self._bind(definition.qualname, parameter, local)
        # Hints, by (scope, name): a `self.x` hint of a method under (its class, `x`); each with
        # the scope it is evaluated in (receivers.py).
        self.hints: dict[tuple[str, str], list[TypeHint]] = {}
        for hint in code.hints:
            name = hint.name
            if name.startswith("self."):
                owner = self.scope_parent.get(hint.scope)
                if owner is None or self.scope_kind.get(hint.scope) != "Method":
                    continue
                self.hints.setdefault((owner, name[5:]), []).append(hint)
                continue
            self.hints.setdefault((hint.scope, name), []).append(hint)
            # A local value hides an outer name of the same spelling (parameters are bound above,
            # most module-level names as variables below).
            if name != RETURNS and (hint.scope, name) not in self.bindings:
                self._bind(hint.scope, name, Binding(ASSIGNED, "", None, "", hint.line))
        for variable in code.variables:
            node_id = variable_id(path, variable.name)
            binding = Binding(VARIABLE, node_id, None, variable.alias_of or "", variable.start_line)
            bound = self.bindings.get(("", variable.name))
            if bound and bound[0].kind == ASSIGNED:  # the variable stands for its hints too
                del self.bindings[("", variable.name)]
            self._bind("", variable.name, binding)
        for fact in code.imports:
            if fact.name is None:
                # `import a.b.c` binds `a`; `import a.b as c` binds `c` to a.b itself.
                bound = fact.alias or fact.module.split(".")[0]
                target = fact.module if fact.alias else bound
                binding = Binding(MODULE, target, None, _quoted(fact), fact.line)
                self._bind(fact.scope, bound, binding)
                continue
            absolute = index.absolute(path, fact.module, fact.level)
            if absolute is None:
                continue
            binding = Binding(IMPORT, absolute, fact.name, _quoted(fact), fact.line)
            if fact.name == "*":
                self.stars.append(binding)
            else:
                self._bind(fact.scope, fact.alias or fact.name, binding)

    def _bind(self, scope: str, name: str, binding: Binding) -> None:
        self.bindings.setdefault((scope, name), []).append(binding)


def _quoted(fact: ImportFact) -> str:
    """The import as it binds this one name (a long `from m import (a, b, ...)` shrinks to it)."""
    alias = f" as {fact.alias}" if fact.alias else ""
    if fact.name is None:
        return f"import {fact.module}{alias}"
    return f"from {'.' * fact.level}{fact.module} import {fact.name}{alias}"


class LazyFiles(dict[str, FileNamespace]):
    """path → FileNamespace, each built on first use: resolving one file's names touches few
    others (an incremental rebuild resolves a handful of files against the whole repository)."""

    def __init__(self, index: ModuleIndex, codes: dict[str, CodeFacts]) -> None:
        super().__init__()
        self.index = index
        self.codes = codes

    def __missing__(self, path: str) -> FileNamespace:
        namespace = FileNamespace(path, self.index.name_of[path], self.codes[path], self.index)
        self[path] = namespace
        return namespace


class Namespaces:
    def __init__(self, index: ModuleIndex, codes: dict[str, CodeFacts]) -> None:
        """`codes`: every Python file's facts, by path."""
        self.index = index
        self.files = LazyFiles(index, codes)
        self._module_paths = {index.name_of[path]: path for path in codes if index.owns_module(path)}
        self._exports: dict[tuple[str, str], list[Symbol]] = {}
        self._resolving: set[tuple[str, str]] = set()
        self._aliasing: set[str] = set()  # variables being followed, so `a = b; b = a` ends

    def lookup(self, path: str, scope: str, name: str) -> list[Binding]:
        """Bindings of `name` seen from `scope` of file `path`, by Python's scoping rules.

        Enclosing function scopes are searched innermost first; a class body is visible only to
        code directly in it (methods do not see class attributes as bare names).
        """
        return self.find(path, scope, name)[1]

    def find(self, path: str, scope: str, name: str) -> tuple[str | None, list[Binding]]:
        """(where, bindings): lookup's bindings, and where they were found: the scope binding
        `name` ("" for the module), STAR for a star import, None when nothing binds it. Two
        scopes of a file with the same `where` see the same bindings of `name`, so whatever is
        resolved from them is the same (calls.py shares it)."""
        namespace = self.files[path]
        current, innermost = scope, True
        while current:
            if innermost or namespace.scope_kind.get(current) != "Class":
                found = namespace.bindings.get((current, name))
                if found:
                    return current, found
            innermost = False
            current = namespace.scope_parent.get(current, "")
        found = namespace.bindings.get(("", name))
        if found:
            return "", found
        for star in namespace.stars:
            if self._star_provides(star.target, name):
                return STAR, [Binding(IMPORT, star.target, name, star.statement, star.line)]
        return None, []

    def symbols(self, path: str, binding: Binding) -> list[Symbol]:
        """What a binding in file `path` refers to, inside the repository; [] when external."""
        if binding.kind == DEF:
            return [Symbol(DEF, binding.target, False)]
        if binding.kind == MODULE:
            if not self.index.in_repository(binding.target):
                return []  # `import os`
            return [Symbol(MODULE, binding.target, True)]
        if binding.kind == IMPORT:
            found = self.export(binding.target, binding.name or "")
        elif binding.kind == PARAMETER:
            return []
        elif binding.statement and binding.target not in self._aliasing:  # `get = get_object`
            self._aliasing.add(binding.target)
            try:
                found = self.resolve_in_module(path, binding.statement)
            finally:
                self._aliasing.discard(binding.target)
        else:
            return []
        return [Symbol(symbol.kind, symbol.target, True) for symbol in found]

    def export(self, module: str, name: str) -> list[Symbol]:
        """What `from module import name` gives, following re-exports; [] when not in the repo."""
        key = (module, name)
        cached = self._exports.get(key)
        if cached is not None:
            return cached
        if key in self._resolving:
            return []  # an import cycle: the other path around it decides
        self._resolving.add(key)
        try:
            result = self._export(module, name)
        finally:
            self._resolving.discard(key)
        self._exports[key] = result
        return result

    def module_namespace(self, module: str) -> FileNamespace | None:
        path = self._module_paths.get(module)
        return self.files[path] if path is not None else None

    def _export(self, module: str, name: str) -> list[Symbol]:
        namespace = self.module_namespace(module)
        bound = namespace.bindings.get(("", name), []) if namespace is not None else []
        symbols = [symbol for binding in bound for symbol in self.symbols(namespace.path, binding)]
        if symbols:
            return _unique(symbols)
        # A submodule: also what `from . import sub` in a package's __init__ binds (that binding
        # leads back here). It beats a star import: importing it sets the attribute after the
        # star ran (django.contrib.gis.db.models.functions, not django.db.models.functions).
        submodule = f"{module}.{name}"
        if submodule in self.index.path_of:
            return [Symbol(MODULE, submodule, False)]
        if namespace is not None and not bound:
            for star in namespace.stars:
                if self._star_provides(star.target, name):
                    symbols.extend(self.export(star.target, name))
        return _unique(symbols)

    def resolve_in_module(self, path: str, dotted: str) -> list[Symbol]:
        """A dotted name at module level of `path`, through modules only (no class members)."""
        head, *rest = dotted.split(".")
        symbols = [s for b in self.lookup(path, "", head) for s in self.symbols(path, b)]
        for attribute in rest:
            symbols = [
                Symbol(found.kind, found.target, True)
                for symbol in symbols
                if symbol.kind == MODULE
                for found in self.export(symbol.target, attribute)
            ]
        return symbols

    def _star_provides(self, module: str, name: str) -> bool:
        namespace = self.module_namespace(module)
        if namespace is None:
            return False
        if namespace.exports is not None:
            return name in namespace.exports
        return not name.startswith("_")


def _unique(symbols: list[Symbol]) -> list[Symbol]:
    seen: dict[str, Symbol] = {}
    for symbol in symbols:
        seen.setdefault(symbol.target, symbol)
    return list(seen.values())
