"""CALLS edges of one Python file: each call site, from its enclosing function, method or class
(or the File, for module-level code) to the function, method or class it calls.

Resolution order for `a.b.m(...)`:
  1. `super().m` → the next class in the enclosing class's MRO that defines m;
  2. `self.m` / `cls.m` in a method → the enclosing class's m, else up its MRO, across files
     (and nothing else: the receiver's type is known);
  3. otherwise the name through scopes, imports, re-exports and class members (resolve.py);
  4. still nothing: the receiver's values by local type inference (receivers.py: `client =
     Client()`, annotations, `with ... as`, `self.x = ...`, return annotations, `cls`, aliases).
     A typed receiver links to its class's method, builtin-like names (`get`, `close`) included,
     or to nothing when the method is not the class's own or the receiver is external;
  5. still unknown, and the receiver is not external: the call is matched by method name — the
     candidates narrowed (library code never reaches test code when a library method has the
     name; methods that all override one are that one), the only one INFERRED at a low score,
     two to five AMBIGUOUS, more dropped.
Bare names never fall back (an unknown `f()` is a builtin or a local), nor do names of builtin
types' methods (`x.append()`) or properties (`x.name()` calls what the property returns).
"""

from __future__ import annotations

import builtins
import re

from rhumbline.ingest.facts import CodeFacts
from rhumbline.ingest.graph.edges import INFERRED_SCORE, MAX_CANDIDATES, NAME_MATCH_SCORE, EdgeSet
from rhumbline.ingest.graph.ids import definition_id, file_id
from rhumbline.ingest.languages.python.evidence import Evidence, classify_tails
from rhumbline.ingest.languages.python.hints import ANNOTATED
from rhumbline.ingest.languages.python.namespace import Binding
from rhumbline.ingest.languages.python.receivers import (
    CLASS,
    EXTERNAL,
    FUNCTION,
    INSTANCE,
    MODULE,
    Receivers,
    Value,
    describe,
)
from rhumbline.ingest.languages.python.resolve import Target

_SUPER = "super()."
_HEAD = re.compile(r"[^\W\d]\w*")
_TEST_DIRECTORIES = frozenset({"tests", "test", "testing"})
# More methods of one name than this are not narrowed (by arguments, as a family): the call is
# dropped, as it would be after narrowing but for rare luck.
_FAMILY_LIMIT = 4 * MAX_CANDIDATES
# typing's aliases of builtin types, by the name they are imported as
_TYPING_BUILTINS = {"List": "list", "Dict": "dict", "Set": "set", "FrozenSet": "frozenset",
                    "Tuple": "tuple", "Text": "str", "Type": "type"}  # fmt: skip


def add_calls(
    path: str,
    code: CodeFacts,
    receivers: Receivers,
    qualified: dict[str, str],
    edges: EdgeSet,
) -> int:
    """Add the file's CALLS edges; return how many call sites stayed unresolved."""
    resolver = receivers.resolver
    namespace = resolver.namespaces.files[path]
    callers: dict[str, str] = {"": file_id(path)}
    calls = FileCalls(path, receivers, qualified)
    by_site, evidence, by_name = calls.by_site, calls.evidence, calls.by_name
    unresolved = code.dynamic_calls
    for call in code.calls:
        # by_site first: most sites repeat a (scope, callee) (sdist: 161k sites, 111k pairs).
        found = by_site.get((call.scope, call.callee))
        if found is None:
            found = evidence(call.scope, call.callee)
        if found.__class__ is str:  # matched by this method name, narrowed by what is passed
            found = by_name(found, call.arguments)
        if not found:
            unresolved += 1
            continue
        source = callers.get(call.scope)
        if source is None:
            source = definition_id(namespace.scope_kind[call.scope], path, call.scope)
            callers[call.scope] = source
        site = f"call `{_shown(call.callee)}(...)` at {path}:{call.line}"
        for node_id, confidence, score, tail in found:
            edges.add(source, "CALLS", node_id, confidence, score, site + tail, path, call.line)
    return unresolved


def _shown(chain: str) -> str:
    """A chain as a reader would write it: `Client(...).get`, `clients[...].close`, `super().m`."""
    if chain.startswith(_SUPER) or not ("(" in chain or "[" in chain):
        return chain
    return chain.replace("()", "(...)").replace("[]", "[...]")


def is_test_path(path: str) -> bool:
    """Test code by the conventions pytest and unittest discover."""
    parts = path.split("/")
    name = parts[-1]
    return (
        name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
        or not _TEST_DIRECTORIES.isdisjoint(parts[:-1])
    )


class FileCalls:
    """The call sites of one file resolved, each explanation without its first part, the site
    (`call `f(...)` at path:line`), which the caller puts in front.

    A scope calls the same name again and again (`self.assertEqual` forty times in one test), and
    a file's scopes call the same names (`Author.objects.create` in every test method): each
    (scope, callee) is looked at once, and each callee resolved once per what decides its result,
    the enclosing class for `self.m` / `super().m`, else the scope whose bindings the first name
    comes from (Namespaces.find). Within one phase 2 a resolution asked again gives the same
    answer (every memo it reads is final once read), so sharing it changes no edge."""

    def __init__(self, path: str, receivers: Receivers, qualified: dict[str, str]) -> None:
        self.path = path
        self.receivers = receivers
        self.resolver = receivers.resolver
        self.qualified = qualified
        self.in_tests = is_test_path(path)
        # (scope, callee) → its evidence, or the method name when it is matched by name (then
        # each site's arguments narrow it: by_name)
        self.by_site: dict[tuple[str, str], list[Evidence] | str] = {}
        self._by_decider: dict[tuple[str | None, str, str], list[Evidence] | str] = {}
        self._classes: dict[str, str | None] = {}

    def evidence(self, scope: str, callee: str) -> list[Evidence] | str:
        key = (scope, callee)
        found = self.by_site.get(key)
        if found is None:
            found = self.by_site[key] = self._resolve(scope, callee)
        return found

    def _resolve(self, scope: str, callee: str) -> list[Evidence] | str:
        bindings: list[Binding] = []
        head, _, rest = callee.partition(".")
        if callee.startswith(_SUPER):
            class_id = self._enclosing_class(scope)
            if class_id is None:
                return []
        elif head in ("self", "cls") and rest and "." not in rest:
            class_id = self._enclosing_class(scope)
        else:
            class_id = None
        if class_id is not None:
            decider: tuple[str | None, str, str] = (head, class_id, callee)
        else:
            match = _HEAD.match(callee)
            if match is None:
                return []
            where, bindings = self.resolver.namespaces.find(self.path, scope, match.group())
            # `self` and `cls` are typed by the class around the scope that binds them
            decider = (where, "", callee)
        found = self._by_decider.get(decider)
        if found is None:
            if class_id is not None:
                found = self._on_class(class_id, callee)
            else:
                found = self._by_bindings(scope, bindings, callee)
            self._by_decider[decider] = found
        return found

    def _enclosing_class(self, scope: str) -> str | None:
        if scope not in self._classes:
            self._classes[scope] = self.resolver.enclosing_class(self.path, scope)
        return self._classes[scope]

    def _on_class(self, class_id: str, callee: str) -> list[Evidence]:
        if callee.startswith(_SUPER):
            targets = self.resolver.resolve_on_class(class_id, callee[len(_SUPER) :], after_self=True)
        else:
            # Not found up the MRO: an external base's method or a callable attribute. The type
            # is known, so matching by name elsewhere would only add noise.
            targets = self.resolver.resolve_on_class(class_id, callee.partition(".")[2])
        targets = [t for t in targets if t.node_id not in self.resolver.properties]
        return _classified(targets, self.qualified)

    def _by_bindings(self, scope: str, bindings: list[Binding], callee: str) -> list[Evidence] | str:
        resolver = self.resolver
        chained = "(" in callee or "[" in callee
        head, *rest = callee.split(".")
        if not chained:
            targets = resolver.resolve_bound(self.path, bindings, rest)
            targets = [t for t in targets if t.node_id not in resolver.properties]
            if targets:
                return _classified(targets, self.qualified)
        first = _HEAD.match(callee)
        if first is None or self.receivers.outside(first.group(), bindings):
            return []  # `os.path.join`, `str.join`: never repository code
        typed = self._typed(scope, callee) if self.receivers.may_hold(self.path, first.group(), bindings) else None
        if typed is not None:
            return typed
        if chained or not rest:
            return []
        if head not in ("self", "cls") and resolver.is_external(self.path, bindings, head):
            return []
        return rest[-1] if self.resolver.by_method_name(rest[-1]) else []

    def _typed(self, scope: str, callee: str) -> list[Evidence] | None:
        """The targets on the receiver's inferred values; None when its values are unknown."""
        receiver, _, method = callee.rpartition(".")
        values = self.receivers.values(self.path, scope, receiver or callee)
        if not values:
            return None
        # A declared union with an outside class (`x: "io.BytesIO | Conn"`) links the repository
        # members, as a type checker lists them; an outside value that an assignment gives may be
        # all the name holds where the call runs (flow-insensitive: `isinstance` is not seen).
        declared = all(v.origin is not None and v.origin[1].how == ANNOTATED for v in values)
        if receiver and not declared and any(self._external_may_have(value, method) for value in values):
            return []  # maybe an external object: never link it to repository code
        found: dict[str, Value] = {}  # target → the value it was found on
        for value in values:
            for node_id in self._members(value, method) if receiver else self._callable(value):
                found.setdefault(node_id, value)
        if not found or len(found) > MAX_CANDIDATES:
            return []
        shown = f"receiver `{_shown(receiver)}`" if receiver else f"`{callee}`"
        module_of = self.resolver.namespaces.index.name_of
        if len(found) == 1:
            ((node_id, value),) = found.items()
            why = describe(value, shown, self._type_name(value), self.path, module_of)
            outside = next((v.target for v in values if v.kind == EXTERNAL), None)
            if outside is not None:
                why += f", or an outside value (from `{outside.strip('`')}`)"
            return [Evidence(node_id, "INFERRED", INFERRED_SCORE, f" resolved to `{self.qualified[node_id]}`: {why}")]
        names = ", ".join(sorted(self.qualified[node_id] for node_id in found))
        types = " | ".join(sorted({self._type_name(v) for v in values}))
        tail = f" has {len(found)} candidates: {names}; {describe(values[0], shown, types, self.path, module_of)}"
        return [Evidence(node_id, "AMBIGUOUS", 1 / len(found), tail) for node_id in found]

    def _members(self, value: Value, method: str) -> list[str]:
        if value.kind in (INSTANCE, CLASS):
            member = self.resolver.classes.find_member(value.target, method)
            members = member[1] if member is not None else []
        elif value.kind == MODULE:
            found = self.resolver.namespaces.export(value.target, method)
            members = [s.target for s in found if s.target.partition(":")[0] in ("class", "function")]
        else:
            return []
        return [m for m in members if m not in self.resolver.properties]

    @staticmethod
    def _external_may_have(value: Value, method: str) -> bool:
        """Whether an external value could have `method`: a builtin type that lacks it cannot."""
        if value.kind != EXTERNAL:
            return False
        name = value.target.rsplit(" ", 1)[-1].strip("`")
        builtin = getattr(builtins, _TYPING_BUILTINS.get(name, name), None)
        return not isinstance(builtin, type) or hasattr(builtin, method)

    @staticmethod
    def _callable(value: Value) -> list[str]:
        """What calling a value bound to a name runs: a class (`cls(...)`), a function."""
        return [value.target] if value.kind in (CLASS, FUNCTION) else []

    def _type_name(self, value: Value) -> str:
        if value.kind in (INSTANCE, CLASS, FUNCTION):
            return self.qualified.get(value.target, value.target)
        return value.target

    def by_name(self, name: str, arguments: str) -> list[Evidence]:
        """Matched by method name alone (the receiver's type unknown), narrowed: the same for
        every such call from library code (or from tests) passing the same arguments, so asked
        once per build."""
        key = (name, self.in_tests, arguments)
        found = self.receivers.by_name.get(key)
        if found is None:
            found = self.receivers.by_name[key] = self._matched(name, arguments)
        return found

    def _matched(self, name: str, arguments: str) -> list[Evidence]:
        narrowed, tail = self._narrowed(self.resolver.by_method_name(name), name, arguments)
        if not narrowed or len(narrowed) > MAX_CANDIDATES:
            return []
        if len(narrowed) > 1:
            targets = [Target(c, True, None, None) for c in narrowed]
            unknown = " (receiver type unknown)"
            return [e._replace(explanation=unknown + e.explanation) for e in classify_tails(targets, self.qualified)]
        return [Evidence(narrowed[0], "INFERRED", NAME_MATCH_SCORE, tail)]

    def _narrowed(self, candidates: list[str], name: str, arguments: str) -> tuple[list[str], str]:
        """The candidates left, and (when one is) the explanation of why it is the one."""
        where = " in the repository"
        if not self.in_tests:
            library = [c for c in candidates if not is_test_path(c.split(":", 2)[1])]
            if library and len(library) < len(candidates):
                candidates, where = library, " outside the tests"
        if len(candidates) > _FAMILY_LIMIT:
            return [], ""  # a name this many classes define says nothing of the receiver
        fitting = [c for c in candidates if self.resolver.accepts(c, arguments)]
        if len(fitting) < len(candidates):  # none fits: a method of something outside the repository
            candidates, where = fitting, f"{where} that these arguments fit"
        unknown = ": the receiver's type is unknown; "
        if len(candidates) == 1:
            return candidates, f"{unknown}`{self.qualified[candidates[0]]}` is the only method named `{name}`{where}"
        root = self._family_root(tuple(candidates))
        if root is not None:
            overriding = f"the {len(candidates)} methods named `{name}`{where}"
            return [root], f"{unknown}{overriding} all override `{self.qualified[root]}`"
        return candidates, ""

    def _family_root(self, candidates: tuple[str, ...]) -> str | None:
        """The candidate every other one overrides (its class is in theirs' MRO), if any."""
        roots = self.receivers.family_roots
        if candidates not in roots:
            roots[candidates] = self._find_family_root(candidates)
        return roots[candidates]

    def _find_family_root(self, candidates: tuple[str, ...]) -> str | None:
        classes = self.resolver.classes
        owners = {}
        for candidate in candidates:
            _, path, qualname = candidate.split(":", 2)
            owner = definition_id("Class", path, qualname.rpartition(".")[0])
            if owner not in classes.classes:
                return None
            owners[candidate] = owner
        for candidate, owner in owners.items():
            if all(owner in classes.mro(other) for other in owners.values()):
                return candidate
        return None


def _classified(targets: list[Target], qualified: dict[str, str]) -> list[Evidence]:
    """Targets resolved through names (not by method name alone)."""
    if not targets or len(targets) > MAX_CANDIDATES:
        return []
    return classify_tails(targets, qualified)
