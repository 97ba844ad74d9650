"""Phase 2 for Python: what a dotted name at some place in the repository refers to.

Resolution is static and conservative: a name is followed through its scopes' bindings, imports,
re-exports, submodules and class members (up the MRO). Anything that leaves the repository
(builtins, the standard library, third-party code) or depends on run-time values resolves to
nothing; callers count those instead of guessing.
"""

from __future__ import annotations

import builtins
import inspect
from typing import NamedTuple
from weakref import WeakMethod

from rhumbline.ingest.graph.ids import definition_id
from rhumbline.ingest.languages.python import signatures
from rhumbline.ingest.languages.python.classes import ClassInfo, ClassTable
from rhumbline.ingest.languages.python.namespace import DEF, IMPORT, MODULE, Binding, Namespaces
from rhumbline.ingest.languages.python.syntax import matchable_by_name

_BUILTIN_NAMES = frozenset(dir(builtins))


class Target(NamedTuple):
    node_id: str
    imported: bool  # reached through an import or an alias: a cross-module inference
    binding: Binding | None  # how the first name was bound (None for self/super)
    owner: str | None  # the class a member was found on, when inherited rather than its own


class Resolver:
    def __init__(self, namespaces: Namespaces) -> None:
        self.namespaces = namespaces
        # Weakly: a table holding the resolver would make all of phase 2 one reference cycle,
        # left for the cyclic collector instead of freed when the build returns.
        self.classes = ClassTable(WeakMethod(self._base_classes))
        self._methods_by_name: dict[str, list[str]] = {}
        self.properties: set[str] = set()  # methods read as attributes (@property and the like)
        self._headers: dict[str, tuple[str, bool]] = {}  # method → (its `def` header, bound)
        self._signatures: dict[str, inspect.Signature | None] = {}
        # (header, bound) → its signature: many methods share a header (`def get(self, request)`)
        self._parsed: dict[tuple[str, bool], inspect.Signature | None] = {}
        self._accepts: dict[tuple[str, str], bool] = {}
        # functions and methods a decorator may have made something else (`@click.group()`)
        self.decorated: set[str] = set()

    def add_function(self, node_id: str, decorators: tuple[str, ...]) -> None:
        if any(decorator not in _TRANSPARENT_DECORATORS for decorator in decorators):
            self.decorated.add(node_id)

    def add_method(self, name: str, node_id: str, decorators: tuple[str, ...] = (), signature: str = "") -> None:
        if any(_is_property(decorator) for decorator in decorators):
            # `obj.name` reads a property; `obj.name()` calls what it returns, never the method.
            self.properties.add(node_id)
            return
        self._methods_by_name.setdefault(name, []).append(node_id)
        if signature and all(decorator in _TRANSPARENT_DECORATORS for decorator in decorators):
            self._headers[node_id] = (signature, "staticmethod" not in decorators)

    def accepts(self, method_id: str, arguments: str) -> bool:
        """Whether a call passing `arguments` (CallSite.arguments) fits the method's signature."""
        key = (method_id, arguments)
        found = self._accepts.get(key)
        if found is None:
            if method_id not in self._signatures:
                header = self._headers.get(method_id)
                self._signatures[method_id] = self._signature(header) if header else None
            found = self._accepts[key] = signatures.fits(self._signatures[method_id], arguments)
        return found

    def _signature(self, header: tuple[str, bool]) -> inspect.Signature | None:
        if header not in self._parsed:
            self._parsed[header] = signatures.parse(header[0], bound=header[1])
        return self._parsed[header]

    def resolve(self, path: str, scope: str, dotted: str) -> list[Target]:
        """Definitions (class, function or method ids) `dotted` names in `scope` of `path`."""
        head, *rest = dotted.split(".")
        return self.resolve_bound(path, self.namespaces.lookup(path, scope, head), rest)

    def resolve_bound(self, path: str, bindings: list[Binding], rest: list[str]) -> list[Target]:
        """resolve, from the bindings lookup found for the first name (`rest`: the others)."""
        targets: list[Target] = []
        for binding in bindings:
            for symbol in self.namespaces.symbols(path, binding):
                frontier = [(symbol.kind, symbol.target, symbol.imported, None)]
                for attribute in rest:
                    frontier = self._members(frontier, attribute)
                targets.extend(
                    Target(target, imported, binding, owner)
                    for kind, target, imported, owner in frontier
                    if kind == DEF
                )
        return _unique(targets)

    def resolve_on_class(
        self, class_id: str, name: str, *, after_self: bool = False
    ) -> list[Target]:
        """`self.name` / `cls.name` (or `super().name` with after_self) from inside `class_id`."""
        found = self.classes.find_member(class_id, name, after_self=after_self)
        if found is None:
            return []
        owner, members = found
        imported = self.classes.classes[owner].path != self.classes.classes[class_id].path
        inherited = None if owner == class_id else owner
        return [Target(member, imported, None, inherited) for member in members]

    def by_method_name(self, name: str) -> list[str]:
        """Methods called `name` anywhere, for calls on receivers of unknown type."""
        if not matchable_by_name(name):
            return []
        return self._methods_by_name.get(name, [])

    def is_external(self, path: str, bindings: list[Binding], head: str) -> bool:
        """Whether `head`, bound by `bindings` (lookup's), names something outside the
        repository (an import of it, a builtin)."""
        if not bindings:
            return head in _BUILTIN_NAMES
        return all(
            binding.kind in (IMPORT, MODULE) and not self.namespaces.symbols(path, binding)
            for binding in bindings
        )

    def enclosing_class(self, path: str, scope: str) -> str | None:
        """The class of the method `scope` is in (a function nested in a method counts)."""
        namespace = self.namespaces.files[path]
        current = scope
        while current:
            parent = namespace.scope_parent.get(current, "")
            if namespace.scope_kind.get(current) == "Method":
                class_id = definition_id("Class", path, parent)
                # Broken code can leave a method whose class statement could not be named.
                return class_id if class_id in self.classes.classes else None
            current = parent
        return None

    def _members(
        self, frontier: list[tuple[str, str, bool, str | None]], attribute: str
    ) -> list[tuple[str, str, bool, str | None]]:
        found = []
        for kind, target, imported, _owner in frontier:
            if kind == MODULE:
                for symbol in self.namespaces.export(target, attribute):
                    found.append((symbol.kind, symbol.target, True, None))
            elif target in self.classes.classes:
                member = self.classes.find_member(target, attribute)
                if member is not None:
                    owner, ids = member
                    inherited = None if owner == target else owner
                    found.extend((DEF, node_id, imported, inherited) for node_id in ids)
        return found

    def _base_classes(self, info: ClassInfo) -> list[str]:
        bases = []
        for expression in info.bases:
            candidates = [t.node_id for t in self.resolve(info.path, info.parent, expression)]
            classes = [c for c in candidates if c in self.classes.classes]
            if classes:
                bases.append(classes[0])  # an ambiguous base: the MRO needs one, take the first
        return bases


_PROPERTIES = frozenset({"property", "cached_property", "functools.cached_property"})
# Decorators that leave a function a function of the same signature (or one the return
# annotation still describes: a context manager's Iterator[T]).
_TRANSPARENT_DECORATORS = frozenset(
    f"{prefix}{name}"
    for name in ("staticmethod", "classmethod", "abstractmethod", "overload", "override", "final",
                 "wraps", "cache", "lru_cache", "contextmanager", "asynccontextmanager",
                 "total_ordering", "dataclass", "fixture")
    for prefix in ("", "abc.", "functools.", "typing.", "t.", "contextlib.", "typing_extensions.",
                   "dataclasses.", "pytest.")
)  # fmt: skip


def _is_property(decorator: str) -> bool:
    return decorator in _PROPERTIES or decorator.endswith((".setter", ".getter", ".deleter"))


def _unique(targets: list[Target]) -> list[Target]:
    seen: dict[str, Target] = {}
    for target in targets:
        seen.setdefault(target.node_id, target)
    return list(seen.values())

