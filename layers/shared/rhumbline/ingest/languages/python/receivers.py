"""Phase 2 for Python: what a receiver expression holds, by local, flow-insensitive inference.

A name's values are the union of what every hint of it says (hints.py: assignments, `with`/`except
... as`, `for`, annotations), whatever the order the statements run in; a method's first
parameter (`self`) is an instance of its class, a classmethod's (`cls`) the class itself; an
attribute of an instance is looked up in its class's MRO (methods, nested classes, properties'
return annotations, then what the class body and its methods assign to `self.x`); a call of a
class makes an instance, a call of a function gives its return annotation. A value is one of

- INSTANCE / CLASS: of a repository class (its id);
- FUNCTION: a repository function or method (its id), e.g. a bound method held in a variable;
- MODULE: a repository module;
- EXTERNAL: something outside the repository (the standard library, a third-party package, a
  builtin): calls on it never link to repository code.

No value at all means unknown: the caller falls back to matching by name.
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Callable, Iterable
from typing import NamedTuple

from rhumbline.ingest.facts import TypeHint
from rhumbline.ingest.languages.python.hints import (
    ALIASED,
    ANNOTATED,
    ENTERED,
    ITERATED,
    RETURNS,
    split_outside_brackets,
)
from rhumbline.ingest.languages.python.namespace import (
    ASSIGNED,
    DEF,
    IMPORT,
    MODULE,
    PARAMETER,
    VARIABLE,
    Binding,
    Namespaces,
)
from rhumbline.ingest.languages.python.resolve import Resolver

INSTANCE, CLASS, FUNCTION, EXTERNAL = "instance", "class", "function", "external"
# External callables whose result may be a repository object (`cast(Client, c)`, `copy(self)`):
# their result is unknown rather than external.
_PASSTHROUGH = frozenset(
    {"cast", "copy", "deepcopy", "next", "iter", "getattr", "max", "min", "sorted", "reversed",
     "partial", "wraps", "proxy", "ref", "super", "type", "TypeVar", "NewType", "field",
     "dataclass", "lru_cache", "cache", "cached_property", "property", "classmethod",
     "staticmethod", "fixture", "setdefault", "get", "pop", "popitem"}
)  # fmt: skip
_BUILTIN_NAMES = frozenset(dir(builtins))
# External callables and views whose items may be repository objects.
_CONTAINERS = frozenset(
    {"list", "tuple", "set", "frozenset", "dict", "enumerate", "zip", "filter", "map", "chain",
     "values", "items", "keys", "List", "Tuple", "Set", "Dict", "Sequence", "Iterable",
     "Iterator", "deque", "defaultdict", "OrderedDict", "Counter", "islice", "groupby"}
)  # fmt: skip
# A mapping's views, as the generic arguments they iterate (`dict[K, V].values()` gives V).
_TYPE_OF = frozenset({"type", "Type"})  # `type[C]` / `typing.Type[C]` annotate the class C
_VIEWS = {"values": lambda parts: parts[-1], "keys": lambda parts: parts[0]}
_SELF_TYPES = frozenset({"Self", "typing.Self", "typing_extensions.Self", "te.Self", "t.Self"})
_STEP = re.compile(r"\.?([^\W\d]\w*)|(\(\))|\[(\d*)\]")
_MAX_DEPTH = 12


class Value(NamedTuple):
    kind: str  # INSTANCE, CLASS, FUNCTION, MODULE or EXTERNAL
    target: str  # class or function id, module name, or what the external thing is
    origin: tuple[str, TypeHint] | None  # (path, hint) that gave it, for the explanation
    # A generic's arguments, where to evaluate them: (path, scope, `str,Client`); its items are
    # instances of the last argument, iterating it gives the first (a dict's keys).
    items: tuple[str, str, str] | None = None


def steps(expression: str) -> list[tuple[str, str]] | None:
    """A chain (`a.b()[].c`) as [("name", "a"), ("name", "b"), ("call", ""), ("item", ""),
    ("name", "c")] (`[1]`: ("item", "1")), or None when it is not one."""
    found: list[tuple[str, str]] = []
    position = 0
    for match in _STEP.finditer(expression):
        if match.start() != position:
            return None
        name, call, index = match.groups()
        if name is not None:
            found.append(("name", name))
        else:
            found.append(("call", "") if call else ("item", index))
        position = match.end()
    if position != len(expression) or not found or found[0][0] != "name":
        return None
    return found


class Receivers:
    def __init__(self, resolver: Resolver) -> None:
        self.resolver = resolver
        self.namespaces: Namespaces = resolver.namespaces
        self._steps: dict[str, list[tuple[str, str]] | None] = {}
        self._names: dict[tuple[str, str | None, str, str], list[Value]] = {}
        self._hints: dict[tuple[str, TypeHint], list[Value]] = {}
        self._attributes: dict[tuple[str, str], list[Value]] = {}
        self._returns: dict[str, list[Value]] = {}
        self._iterated: dict[Value, list[Value]] = {}
        self._active: set[object] = set()
        # Set when a cycle was cut under the current evaluation: its result then depends on where
        # the evaluation started, so it is not memoized (memos stay order-independent: a partial
        # rebuild resolves files in another order and must give the same edges).
        self._cut = False
        # (method name, from test code, CallSite.arguments) → the by-name evidence of a call on
        # an unknown receiver (calls.py), shared by every file of the build
        self.by_name: dict[tuple[str, bool, str], list] = {}
        self.family_roots: dict[tuple[str, ...], str | None] = {}  # candidates → the one overridden

    def _memoized(self, memo: dict, key: object, compute: Callable[[], list[Value]]) -> list[Value]:
        """memo[key], computed once unless a cycle was cut under it (then every time)."""
        cached = memo.get(key)
        if cached is not None:
            return cached
        active = (id(memo), key)
        if active in self._active or len(self._active) > _MAX_DEPTH:
            self._cut = True
            return []
        outer_cut, self._cut = self._cut, False
        self._active.add(active)
        try:
            found = compute()
        finally:
            self._active.discard(active)
            cut, self._cut = self._cut, outer_cut or self._cut
        if not cut:
            memo[key] = found
        return found

    def outside(self, name: str, bindings: list[Binding]) -> bool:
        """Whether `name`, bound by `bindings`, is surely outside the repository: a builtin, or
        imports of modules not in it (a cheap answer before evaluating anything)."""
        if not bindings:
            return name in _BUILTIN_NAMES
        in_repository = self.namespaces.index.in_repository
        return all(b.kind in (IMPORT, MODULE) and not in_repository(b.target) for b in bindings)

    def may_hold(self, path: str, name: str, bindings: list[Binding]) -> bool:
        """False when `name`, bound by `bindings` (Namespaces.find's, in `path`), is surely
        unknown: only parameters without annotations, not a method's receiver (most unresolved
        calls in unannotated code: a cheap answer before evaluating anything)."""
        if not bindings or any(binding.kind != PARAMETER for binding in bindings):
            return True
        namespace = self.namespaces.files[path]
        for binding in bindings:
            scope = binding.target.split(":", 2)[2]  # the function's id → its qualname
            receiver = namespace.receiver_parameter.get(scope)
            if (receiver is not None and receiver[0] == name) or (scope, name) in namespace.hints:
                return True
        return False

    # ---- expressions ---------------------------------------------------------------------

    def values(self, path: str, scope: str, expression: str) -> list[Value]:
        """What `expression` (chain syntax) holds in `scope` of `path`; [] when unknown."""
        parsed = self._steps.get(expression, False)
        if parsed is False:  # most expressions recur (`self.client`, `request.user`)
            parsed = self._steps[expression] = steps(expression)
        if parsed is None:
            return []
        return self._walk(path, scope, parsed)

    def _walk(self, path: str, scope: str, parsed: list[tuple[str, str]]) -> list[Value]:
        found = self.name(path, scope, parsed[0][1])
        for kind, name in parsed[1:]:
            if not found:
                return []
            if kind == "name":
                found = _unique(v for value in found for v in self.attribute(value, name))
            elif kind == "call":
                found = _unique(v for value in found for v in self.called(value))
            else:
                found = _unique(v for value in found for v in self.item(value, name))
        return found

    def name(self, path: str, scope: str, name: str) -> list[Value]:
        where, bindings = self.namespaces.find(path, scope, name)
        if where and bindings and bindings[0].kind == PARAMETER:
            first = self.namespaces.files[path].receiver_parameter.get(where)
            if first is not None and first[0] == name:  # `self`, `cls`, `def forward(this)`
                class_id = self.resolver.enclosing_class(path, where)
                if class_id is not None:
                    return [Value(first[1], class_id, None)]
        key = (path, where, name, scope if where is None else "")
        return self._memoized(self._names, key, lambda: self._named(path, where, name, bindings))

    def _named(self, path: str, where: str | None, name: str, bindings: list[Binding]) -> list[Value]:
        if not bindings:
            return [Value(EXTERNAL, f"builtin `{name}`", None)] if name in _BUILTIN_NAMES else []
        if len(bindings) == 1:
            return self._bound(path, where or "", name, bindings[0])
        found = []
        for binding in bindings:
            found.extend(self._bound(path, where or "", name, binding))
        return _unique(found)

    def _bound(self, path: str, where: str, name: str, binding: Binding) -> list[Value]:
        kind = binding.kind
        if kind == DEF:
            return self._definition(binding.target)
        if kind in (IMPORT, MODULE):
            symbols = self.namespaces.symbols(path, binding)
            if symbols:
                return [v for s in symbols for v in self._symbol(s.kind, s.target)]
            if kind == IMPORT and self.namespaces.index.in_repository(binding.target):
                # `from .console import console`: a module-level value of a repository module
                return self._module_level(binding.target, binding.name or name)
            if kind == MODULE and self.namespaces.index.in_repository(binding.target):
                return []
            return [Value(EXTERNAL, binding.statement, None)]
        if kind == VARIABLE:
            found = [v for s in self.namespaces.symbols(path, binding) for v in self._symbol(s.kind, s.target)]
            return found + self._hinted(path, "", name)
        if kind in (PARAMETER, ASSIGNED):
            return self._hinted(path, where, name)
        return []

    def _module_level(self, module: str, name: str) -> list[Value]:
        namespace = self.namespaces.module_namespace(module)
        if namespace is None or ("", name) not in namespace.hints:
            return []
        return self._hinted(namespace.path, "", name)

    def _hinted(self, path: str, scope: str, name: str) -> list[Value]:
        hints = self.namespaces.files[path].hints.get((scope, name), ())
        return _unique(v for hint in hints for v in self.hint(path, hint))

    def hint(self, path: str, hint: TypeHint) -> list[Value]:
        """The values one hint gives its name."""
        return self._memoized(self._hints, (path, hint), lambda: self._hint(path, hint))

    def _hint(self, path: str, hint: TypeHint) -> list[Value]:
        if hint.how in (ANNOTATED, ALIASED):
            found = self._annotation(path, hint)
            if hint.how == ALIASED:  # the alias names the classes themselves
                found = [_class(value) for value in found]
        else:
            found = self.values(path, hint.scope, hint.expression)
            if hint.how == ENTERED:
                # `with f() as x` where f is a @contextmanager annotated `Iterator[X]`
                found = [v for value in found for v in (self.iterated(value) if value.items else [_instance(value)])]
            elif hint.how == ITERATED:
                found = [v for value in found for v in self.iterated(value)]
        return _unique(value._replace(origin=(path, hint)) for value in found)

    def _annotation(self, path: str, hint: TypeHint) -> list[Value]:
        # Names in a signature are evaluated around the function: its parent scope.
        scope = hint.scope
        if hint.name == RETURNS or self.namespaces.files[path].scope_kind.get(scope) in ("Function", "Method"):
            scope = self.namespaces.files[path].scope_parent.get(scope, "")
        return self.annotated(path, scope, hint.expression, hint.scope)

    def annotated(self, path: str, scope: str, members: str, inside: str = "") -> list[Value]:
        """Instances of the `|`-joined annotation members, evaluated in `scope` (`inside`: the
        scope whose class `Self` is)."""
        found: list[Value] = []
        for member in split_outside_brackets(members, "|"):
            member = member.strip().strip("'\"").strip()
            if member == "None":
                continue
            if member in _SELF_TYPES:
                class_id = self.resolver.enclosing_class(path, inside or scope)
                if class_id is not None:
                    found.append(Value(INSTANCE, class_id, None))
                continue
            head, _, arguments = member.partition("[")
            if arguments and head.rsplit(".", 1)[-1] in _TYPE_OF:  # `type[C]`: the class C itself
                found.extend(_class(value) for value in self.annotated(path, scope, arguments[:-1], inside))
                continue
            values = self.values(path, scope, head)
            if arguments:
                values = [v._replace(items=(path, scope, arguments[:-1])) for v in values]
            found.extend(_instance(value) for value in values)
        return found

    def _definition(self, node_id: str) -> list[Value]:
        """A class, or a function unless a decorator made it something else (`@click.group()`
        turns a function into a Group): unknown then."""
        if node_id.startswith("class:"):
            return [Value(CLASS, node_id, None)]
        return [] if node_id in self.resolver.decorated else [Value(FUNCTION, node_id, None)]

    def _symbol(self, kind: str, target: str) -> list[Value]:
        return self._definition(target) if kind == DEF else [Value(MODULE, target, None)]

    # ---- steps ---------------------------------------------------------------------------

    def attribute(self, value: Value, name: str) -> list[Value]:
        if value.kind == EXTERNAL:
            if value.items is not None and name in _VIEWS:  # `d.values()`: iterates the items
                path, scope, arguments = value.items
                parts = split_outside_brackets(arguments, ",")
                return [Value(EXTERNAL, f"{value.target}.{name}", value.origin, (path, scope, _VIEWS[name](parts)))]
            return [Value(EXTERNAL, value.target, value.origin)]
        if value.kind == MODULE:
            found = [v for s in self.namespaces.export(value.target, name) for v in self._symbol(s.kind, s.target)]
            return found or self._module_level(value.target, name)
        if value.kind not in (INSTANCE, CLASS):
            return []
        key = (value.target, name) if value.kind == INSTANCE else (value.target, "." + name)
        return self._memoized(self._attributes, key, lambda: self._class_attribute(value, name))

    def _class_attribute(self, value: Value, name: str) -> list[Value]:
        classes = self.resolver.classes
        member = classes.find_member(value.target, name)
        if member is not None:
            found = []
            for node_id in member[1]:
                if node_id in self.resolver.properties and value.kind == INSTANCE:
                    found.extend(self.returned(node_id))
                else:
                    found.extend(self._definition(node_id))
            return found
        for owner in classes.mro(value.target):
            info = classes.classes[owner]
            namespace = self.namespaces.files[info.path]
            if (info.qualname, name) in namespace.hints:
                return self._hinted(info.path, info.qualname, name)
        return []

    def item(self, value: Value, position: str = "") -> list[Value]:
        """`value[k]`: a generic's last argument, or for an unpacking target (`position`) the
        argument at its position when there are several (`tuple[A, B]`); a repository class's
        `__getitem__` return."""
        if value.items is not None:
            path, scope, arguments = value.items
            parts = [part.strip() for part in split_outside_brackets(arguments, ",")]
            if position and len(parts) > 1 and "..." not in parts:
                return self.annotated(path, scope, parts[int(position)]) if int(position) < len(parts) else []
            return self.annotated(path, scope, parts[-1])
        if value.kind == EXTERNAL:  # `listener.accept()[0]`: the library's socket, never the project's
            return _external_items(value)
        return self._dunder(value, "__getitem__")

    def iterated(self, value: Value) -> list[Value]:
        """What `for x in value` gives x: a generic's first argument (a dict's keys, a list's items;
        an iterator's return annotation is one), a repository class's `__iter__` items."""
        # Memoized like every other step that can lead back to itself: an `__iter__` annotated
        # to return its own class (`-> Self`) iterates to the same value, a cycle that is cut.
        return self._memoized(self._iterated, value, lambda: self._iterated_values(value))

    def _iterated_values(self, value: Value) -> list[Value]:
        if value.items is not None:
            path, scope, arguments = value.items
            return self.annotated(path, scope, split_outside_brackets(arguments, ",")[0])
        if value.kind == EXTERNAL:
            return _external_items(value)
        return [v for iterator in self._dunder(value, "__iter__") if iterator.items for v in self.iterated(iterator)]

    def _dunder(self, value: Value, name: str) -> list[Value]:
        if value.kind != INSTANCE:
            return []
        member = self.resolver.classes.find_member(value.target, name)
        return [v for node_id in member[1] for v in self.returned(node_id)] if member else []

    def called(self, value: Value) -> list[Value]:
        if value.kind == CLASS:
            return [value._replace(kind=INSTANCE)]
        if value.kind == FUNCTION:
            return self.returned(value.target)
        if value.kind == INSTANCE:  # a callable object (a factory Protocol): its __call__'s return
            return self._dunder(value, "__call__")
        if value.kind == EXTERNAL:
            last = value.target.rsplit(" ", 1)[-1].rsplit(".", 1)[-1].strip("`")
            return [] if last in _PASSTHROUGH else [value]
        return []

    def returned(self, function_id: str) -> list[Value]:
        """What calling a repository function gives, by its return annotation."""
        _kind, path, qualname = function_id.split(":", 2)
        if path not in self.namespaces.files.codes:
            return []
        return self._memoized(self._returns, function_id, lambda: self._hinted(path, qualname, RETURNS))


def _external_items(value: Value) -> list[Value]:
    """An outside value's items (`re.finditer(...)`'s, `sock.accept()[0]`) are outside values too;
    those of a container or a pass-through (`sorted(x)`, `list(x)`) are x's, unknown here."""
    last = value.target.rsplit(" ", 1)[-1].rsplit(".", 1)[-1].strip("`")
    return [] if last in _PASSTHROUGH or last in _CONTAINERS else [value]


def _instance(value: Value) -> Value:
    return value._replace(kind=INSTANCE) if value.kind == CLASS else value


def _class(value: Value) -> Value:
    return value._replace(kind=CLASS) if value.kind == INSTANCE else value


def _unique(values: Iterable[Value]) -> list[Value]:
    seen: dict[tuple[str, str, object], Value] = {}
    for value in values:
        seen.setdefault((value.kind, value.target, value.items), value)
    return list(seen.values())


_PROVENANCE = {ANNOTATED: "the annotation", ENTERED: "the `as`", ITERATED: "the `for`", ALIASED: "the type alias"}


def describe(value: Value, shown: str, type_name: str, path: str, module_of: dict[str, str]) -> str:
    """`receiver `client` typed `pkg.Client` by the assignment at line 12` (`shown`: the receiver,
    or the called name itself for `handler(...)`). Another file's hint is named by its scope, not
    its line: an edit there must not change this file's edges."""
    if value.origin is None:
        return f"{shown} is `{type_name}`"
    origin_path, hint = value.origin
    what = _PROVENANCE.get(hint.how, "the assignment")
    if hint.name == RETURNS:
        what = "the return annotation"
    if origin_path == path:
        return f"{shown} typed `{type_name}` by {what} at line {hint.line}"
    place = f"{module_of[origin_path]}.{hint.scope}" if hint.scope else module_of[origin_path]
    return f"{shown} typed `{type_name}` by {what} in `{place}`"
