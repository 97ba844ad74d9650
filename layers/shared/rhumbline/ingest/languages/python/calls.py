"""CALLS edges of one Python file: each call site, from its enclosing function, method or class
(or the File, for module-level code) to the function, method or class it calls.

Resolution order for `a.b.m(...)`:
  1. `super().m` → the next class in the enclosing class's MRO that defines m;
  2. `self.m` / `cls.m` in a method → the enclosing class's m, else up its MRO, across files
     (and nothing else: the receiver's type is known);
  3. otherwise the name through scopes, imports, re-exports and class members (resolve.py);
  4. still nothing, and the receiver is not external: the receiver's type is unknown, so the call
     is matched by method name — the only method of that name is INFERRED at a low score, two to
     five are AMBIGUOUS, more are dropped.
Bare names never fall back (an unknown `f()` is a builtin or a local), nor do names of builtin
types' methods (`x.append()`).
"""

from __future__ import annotations

from rhumbline.ingest.facts import CodeFacts
from rhumbline.ingest.graph.edges import MAX_CANDIDATES, NAME_MATCH_SCORE, EdgeSet
from rhumbline.ingest.graph.ids import definition_id, file_id
from rhumbline.ingest.languages.python.evidence import Evidence, classify_tails
from rhumbline.ingest.languages.python.namespace import Binding
from rhumbline.ingest.languages.python.resolve import Resolver, Target

_SUPER = "super()."


def add_calls(
    path: str, code: CodeFacts, resolver: Resolver, qualified: dict[str, str], edges: EdgeSet
) -> int:
    """Add the file's CALLS edges; return how many call sites stayed unresolved."""
    namespace = resolver.namespaces.files[path]
    callers: dict[str, str] = {"": file_id(path)}
    calls = FileCalls(path, resolver, qualified)
    by_site, evidence = calls.by_site, calls.evidence
    unresolved = code.dynamic_calls
    for call in code.calls:
        # by_site first: most sites repeat a (scope, callee) (sdist: 161k sites, 111k pairs).
        found = by_site.get((call.scope, call.callee))
        if found is None:
            found = evidence(call.scope, call.callee)
        if not found:
            unresolved += 1
            continue
        source = callers.get(call.scope)
        if source is None:
            source = definition_id(namespace.scope_kind[call.scope], path, call.scope)
            callers[call.scope] = source
        site = f"call `{call.callee}(...)` at {path}:{call.line}"
        for node_id, confidence, score, tail in found:
            edges.add(source, "CALLS", node_id, confidence, score, site + tail, path, call.line)
    return unresolved


class FileCalls:
    """The call sites of one file resolved, each explanation without its first part, the site
    (`call `f(...)` at path:line`), which the caller puts in front.

    A scope calls the same name again and again (`self.assertEqual` forty times in one test), and
    a file's scopes call the same names (`Author.objects.create` in every test method): each
    (scope, callee) is looked at once, and each callee resolved once per what decides its result,
    the enclosing class for `self.m` / `super().m`, else the scope whose bindings the first name
    comes from (Namespaces.find). Within one phase 2 a resolution asked again gives the same
    answer (every memo it reads is final once read), so sharing it changes no edge."""

    def __init__(self, path: str, resolver: Resolver, qualified: dict[str, str]) -> None:
        self.path = path
        self.resolver = resolver
        self.qualified = qualified
        self.by_site: dict[tuple[str, str], list[Evidence]] = {}
        self._by_decider: dict[tuple[str | None, str, str], list[Evidence]] = {}
        self._classes: dict[str, str | None] = {}

    def evidence(self, scope: str, callee: str) -> list[Evidence]:
        key = (scope, callee)
        found = self.by_site.get(key)
        if found is None:
            found = self.by_site[key] = self._resolve(scope, callee)
        return found

    def _resolve(self, scope: str, callee: str) -> list[Evidence]:
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
            where, bindings = self.resolver.namespaces.find(self.path, scope, head)
            decider = (where, "", callee)
        found = self._by_decider.get(decider)
        if found is None:
            if class_id is not None:
                found = self._on_class(class_id, callee)
            else:
                found = self._by_bindings(bindings, callee)
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
        return _classified(targets, False, callee, self.qualified)

    def _by_bindings(self, bindings: list[Binding], callee: str) -> list[Evidence]:
        head, *rest = callee.split(".")
        resolver = self.resolver
        targets = resolver.resolve_bound(self.path, bindings, rest)
        if targets:
            return _classified(targets, False, callee, self.qualified)
        if not rest or (head not in ("self", "cls") and resolver.is_external(self.path, bindings, head)):
            return []
        candidates = resolver.by_method_name(rest[-1])
        by_name = [Target(c, True, None, None) for c in candidates[: MAX_CANDIDATES + 1]]
        return _classified(by_name, True, callee, self.qualified)


def _classified(
    targets: list[Target], by_name: bool, callee: str, qualified: dict[str, str]
) -> list[Evidence]:
    """`by_name`: the targets were matched by method name alone (the receiver's type unknown)."""
    if not targets or len(targets) > MAX_CANDIDATES:
        return []
    if not by_name:
        return classify_tails(targets, qualified)
    if len(targets) > 1:
        unknown = " (receiver type unknown)"
        return [e._replace(explanation=unknown + e.explanation) for e in classify_tails(targets, qualified)]
    only = targets[0].node_id
    name = callee.rsplit(".", 1)[1]
    tail = (
        f": the receiver's type is unknown; `{qualified[only]}` is the only method named "
        f"`{name}` in the repository"
    )
    return [Evidence(only, "INFERRED", NAME_MATCH_SCORE, tail)]
