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

from rhumbline.ingest.edges import MAX_CANDIDATES, NAME_MATCH_SCORE, EdgeSet
from rhumbline.ingest.facts import CallSite, CodeFacts
from rhumbline.ingest.ids import definition_id, file_id
from rhumbline.ingest.python.evidence import Evidence, classify_tails
from rhumbline.ingest.python.resolve import Resolver, Target

_SUPER = "super()."


def add_calls(
    path: str, code: CodeFacts, resolver: Resolver, qualified: dict[str, str], edges: EdgeSet
) -> int:
    """Add the file's CALLS edges; return how many call sites stayed unresolved."""
    namespace = resolver.namespaces.files[path]
    callers: dict[str, str] = {"": file_id(path)}
    # A scope calls the same name again and again (`self.assertEqual` forty times in one test):
    # resolve each (scope, callee) once, explanations but for the site included.
    memo: dict[tuple[str, str], list[Evidence]] = {}
    unresolved = code.dynamic_calls
    for call in code.calls:
        found = resolve_call(path, call, resolver, qualified, memo)
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


def resolve_call(
    path: str,
    call: CallSite,
    resolver: Resolver,
    qualified: dict[str, str],
    memo: dict[tuple[str, str], list[Evidence]],
) -> list[Evidence]:
    """The call's targets, each explanation without its first part, the site (`call `f(...)` at
    path:line`), which the caller puts in front. `memo`: per (scope, callee), for one file."""
    key = (call.scope, call.callee)
    found = memo.get(key)
    if found is None:
        found = memo[key] = _evidence(path, call, resolver, qualified)
    return found


def _evidence(path: str, call: CallSite, resolver: Resolver, qualified: dict[str, str]) -> list[Evidence]:
    targets, by_name = _targets(path, call, resolver)
    if not targets or len(targets) > MAX_CANDIDATES:
        return []
    if not by_name:
        return classify_tails(targets, qualified)
    if len(targets) > 1:
        unknown = " (receiver type unknown)"
        return [e._replace(explanation=unknown + e.explanation) for e in classify_tails(targets, qualified)]
    only = targets[0].node_id
    name = call.callee.rsplit(".", 1)[1]
    tail = (
        f": the receiver's type is unknown; `{qualified[only]}` is the only method named "
        f"`{name}` in the repository"
    )
    return [Evidence(only, "INFERRED", NAME_MATCH_SCORE, tail)]


def _targets(path: str, call: CallSite, resolver: Resolver) -> tuple[list[Target], bool]:
    """Candidate targets, and whether they were matched by method name alone."""
    callee = call.callee
    if callee.startswith(_SUPER):
        class_id = resolver.enclosing_class(path, call.scope)
        if class_id is None:
            return [], False
        return resolver.resolve_on_class(class_id, callee[len(_SUPER) :], after_self=True), False
    head, _, rest = callee.partition(".")
    if head in ("self", "cls") and rest and "." not in rest:
        class_id = resolver.enclosing_class(path, call.scope)
        if class_id is not None:
            # Not found up the MRO: an external base's method or a callable attribute. The type
            # is known, so matching by name elsewhere would only add noise.
            return resolver.resolve_on_class(class_id, rest), False
    targets = resolver.resolve(path, call.scope, callee)
    if targets:
        return targets, False
    if not rest or (head not in ("self", "cls") and resolver.is_external(path, call.scope, head)):
        return [], False
    candidates = resolver.by_method_name(callee.rsplit(".", 1)[1])
    return [Target(c, True, None, None) for c in candidates[: MAX_CANDIDATES + 1]], True
