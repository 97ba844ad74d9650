"""CALLS for the tree-sitter languages: one call site → the definitions it may reach.

`super.m` and `this.m` go to the enclosing class and its ancestors, `new C` to the class, bare
names to members first in languages with an implicit `this`, then scopes, imports and packages; a
receiver whose type is declared (`c: Cart`, `c := &Cart{}`, a Go receiver) is looked up on that
type; an unknown receiver falls back to the methods of that name in the family (one: INFERRED at a
low score, two up to the family's `name_match_limit`, five by default: AMBIGUOUS, more:
unresolved).
"""

from __future__ import annotations

from rhumbline.ingest.facts import CallSite, Definition
from rhumbline.ingest.graph.edges import (
    EXTRACTED_SCORE,
    INFERRED_SCORE,
    MAX_CANDIDATES,
    NAME_MATCH_SCORE,
)
from rhumbline.ingest.graph.ids import file_id
from rhumbline.ingest.languages.polyglot.extract import CLASS_KINDS
from rhumbline.ingest.languages.polyglot.symbols import (
    DEF,
    EXTERNAL,
    ClassInfo,
    Evidence,
    FileIndex,
    Sym,
    nearest_copies,
    unique_symbols,
)

_THIS, _SUPER, _NEW, _QUALIFIED_THIS = "this.", "super.", "new ", ".this."
_CALL_RESULT = "()."  # a method of a call's result: `innerFrom().subscribe`


class CallResolution:
    """Mixed into `Family`, whose tables (`classes`, `qualified`, `kinds`, `file_of`,
    `methods_by_name`) and lookups (`lookup`, `resolve`, `members`, `ancestors`, `find_member`,
    `enclosing_class`, `local_type`) it reads; kept apart because call resolution is the largest
    single concern of phase 2."""

    def _add_calls(self, f: FileIndex) -> None:
        path = f.path
        callers: dict[str, str] = {"": file_id(path)}
        memo: dict[tuple[str, str, int], list[Evidence]] = {}
        unresolved = f.code.dynamic_calls
        for call in f.code.calls:
            # Module-level code's locals depend on the line (several callbacks, one name each).
            key = (call.scope, call.callee, 0 if call.scope or not f.module_locals else call.line)
            found = memo.get(key)
            if found is None:
                self.site_line = call.line
                found = memo[key] = self.resolve_call(f, call)
            if not found:
                unresolved += 1
                continue
            source = callers.get(call.scope)
            if source is None:
                owner = f.by_qualname.get(call.scope)
                source = owner[0] if owner else file_id(path)
                callers[call.scope] = source
            for evidence in found:
                # The first site's line is in the explanation memoized for this (scope, callee).
                explanation = evidence.explanation
                self.edges.add(source, "CALLS", evidence.node_id, evidence.confidence,
                               evidence.score, explanation, path, call.line)
        self.unresolved += unresolved

    def resolve_call(self, f: FileIndex, call: CallSite) -> list[Evidence]:
        callee = call.callee
        what = f"call `{callee}(...)` at {f.path}:{call.line}"
        receiver, chained, member = callee.rpartition(_CALL_RESULT)
        if chained:  # `innerFrom(x).subscribe()`, `Cmd.builder().build()`
            classes = self.returned_classes(f, call.scope, receiver) or self.element_classes(f, call.scope, receiver)
            return self.classify(self.on_classes(f, classes, member, f"through the result of `{receiver}()`"), what)
        if callee.startswith(_NEW):
            what = f"`{callee}(...)` at {f.path}:{call.line}"
            name = callee[len(_NEW) :]
            if name == "this":  # Ruby's bare `new` in a class method
                class_id = self.enclosing_class(f, call.scope)
                if class_id is None:
                    return []
                via = None if self.file_of.get(class_id) == f.path else "as the enclosing class"
                return self.classify([Sym(DEF, class_id, via)], what)
            targets = [
                s
                for s in self.resolve(f, call.scope, name)
                if self.kinds.get(s.target) in CLASS_KINDS or self.kinds.get(s.target) == "Function"
            ]
            return self.classify(targets, what)
        if callee == "super":  # a constructor's call of its base class's constructor
            class_id = self.enclosing_class(f, call.scope)
            bases = self.bases(class_id)[:1] if class_id else []
            via = "as the base class of the enclosing class"
            return self.classify([Sym(DEF, b, via) for b in bases], what)
        if callee.startswith(_SUPER):
            class_id = self.enclosing_class(f, call.scope)
            member = callee[len(_SUPER) :]
            if class_id is None or "." in member:
                return []
            found = self.find_member(class_id, member, after_self=True)
            if found is None:
                return []
            owner, ids = found
            return self.classify([Sym(DEF, i, None, owner) for i in ids], what)
        outer, qualified_this, member = callee.partition(_QUALIFIED_THIS)
        if qualified_this and "." not in member:  # Java's `Outer.this.m()`
            classes = self.resolve_type(f, call.scope, outer)
            return self.classify([s for c in classes for s in self._on_class(f, c.target, member)], what)
        if callee.startswith(_THIS):
            member = callee[len(_THIS) :]
            class_id = self.enclosing_class(f, call.scope)
            if "." not in member:
                if class_id is not None:
                    return self.classify(self._on_class(f, class_id, member), what)
                return []
            field, _, rest = member.partition(".")
            typed = self.field_type(class_id, field) if class_id and "." not in rest else None
            if typed is not None:  # `this.total.render()` with `private Money total;`
                info, type_text = typed
                classes = self.resolve_type(info.file, info.definition.parent, type_text)
                if classes:
                    via = f"through field `{field}` declared as `{type_text}`"
                    targets = [
                        s._replace(via=via) if s.owner is None else s
                        for cls in classes
                        for s in self._on_class(f, cls.target, rest)
                    ]
                    return self.classify(targets, what)
            return self._by_name(f, callee, what)  # the field's type is unknown
        if self.implicit_this and "." not in callee:
            # The enclosing class first, then the classes around it (an inner or anonymous class
            # calls its outer instance's methods by their bare names) once no method of that name
            # is declared in between (an anonymous class's own, declared in an enclosing method).
            first = self.enclosing_class(f, call.scope)
            if first is not None and self.find_member(first, callee) is not None:
                return self.classify(self._on_class(f, first, callee), what)
            outer = [c for c in self.enclosing_classes(f, call.scope) if c != first]
            if outer:
                lexical = [s for s in self.lookup(f, call.scope, callee) if self.kinds.get(s.target) == "Method"]
                if lexical:
                    return self.classify(lexical, what)
            for class_id in outer:
                if self.find_member(class_id, callee) is not None:
                    return self.classify(self._on_class(f, class_id, callee), what)
        head, _, rest = callee.partition(".")
        symbols = heads = self.lookup(f, call.scope, head)
        if rest:
            typed = not symbols and self.local_type(f, call.scope, head)
            if typed and typed[0]:
                type_text = typed[1]
                contextual = self.contextual_classes(f, call.scope, type_text) if type_text else None
                if contextual is not None:  # a callback's parameter, typed by its callee
                    if self.outside_type(f, call.scope, type_text):
                        return []  # the callee is from outside the repository: so are its types
                    if not contextual:  # the callee's parameter type is not one we read: no guess among several
                        return self._by_name(f, callee, what, limit=1)
                    if "." in rest:
                        return self._by_name(f, callee, what)
                    via = f"through callback parameter `{head}`, typed by the parameter it is passed for"
                    targets = [s._replace(via=via) if s.owner is None else s
                               for cls in contextual for s in self._on_class(f, cls.target, rest)]  # fmt: skip
                    return self.classify(unique_symbols(targets), what)
                if type_text is not None and self.outside_type(f, call.scope, type_text):
                    return []  # a declared type from outside the repository: no member is ours
                if type_text is None:
                    return self._by_name(f, callee, what)
                if "." in rest:  # `x.total.render()`: through a field of x's type
                    return self._through_field(f, call.scope, head, type_text, rest, what)
                classes = self.resolve_type(f, call.scope, type_text)
                targets: list[Sym] = []
                for cls in classes:
                    targets.extend(
                        s._replace(via=_typed_via(head, type_text, s.via, cls.via))
                        for s in self._on_class(f, cls.target, rest)
                    )
                if classes:
                    return self.classify(unique_symbols(targets), what)
                if self.library_type(type_text):
                    return []  # the language's own library (Java's `String`): no member is ours
                # A type the repository does not define nor import: a type parameter, a builtin
                # or prelude type. As good as unknown (builtin method names stay unmatched).
                return self._by_name(f, callee, what)
            if not symbols and self.library_type(head):
                return []  # `Integer.parseInt(…)`: a class of the language's library
            attributes = rest.split(".")
            for index, attribute in enumerate(attributes):
                found = self.members(symbols, attribute)
                if not found and index < len(attributes) - 1:
                    found = self._field_values(symbols, attribute)
                symbols = found
        targets = [s for s in symbols if s.kind == DEF]
        if targets:
            return self.classify(targets, what)
        if rest and all(self.kinds.get(s.target) == "Variable" for s in heads):
            # An unknown name (a local, a global of the runtime) or a module-level variable: the
            # receiver's type is unknown. An import or a class of that name would have said.
            return self._by_name(f, callee, what)
        return []

    def returned_classes(self, f: FileIndex, scope: str, function: str) -> list[Sym]:
        """The repository classes the functions or methods `function` names (`f`, `X.f`, `x.m`
        on a typed local, a bare method of the enclosing classes, a chain `a().b`) declare they
        return; [] when unknown."""
        found: list[Sym] = []
        for node_id in self._callees(f, scope, function):
            declared = self.declared(node_id)
            if declared is None:
                continue
            index, definition = declared
            written = self.return_type(definition)
            if written:
                found.extend(self.resolve_type(index, definition.qualname, written))
        return unique_symbols(found)

    def _callees(self, f: FileIndex, scope: str, function: str) -> list[str]:
        receiver, chained, member = function.rpartition(_CALL_RESULT)
        if chained:  # each step is a shorter name: the recursion ends
            hits = [self.find_member(c.target, member) for c in self.returned_classes(f, scope, receiver)]
            return [i for hit in hits if hit for i in hit[1]]
        if function.startswith(_THIS) and "." not in function[len(_THIS) :]:  # `this.make().m()`
            class_id = self.enclosing_class(f, scope)
            hit = self.find_member(class_id, function[len(_THIS) :]) if class_id is not None else None
            return list(hit[1]) if hit else []
        if "." not in function and self.implicit_this:
            for class_id in self.enclosing_classes(f, scope):
                hit = self.find_member(class_id, function)
                if hit is not None:
                    return list(hit[1])
        head, _, rest = function.partition(".")
        if rest and "." not in rest:
            is_local, type_text = self.local_type(f, scope, head)
            if is_local:
                classes = self.resolve_type(f, scope, type_text) if type_text else []
                hits = [self.find_member(c.target, rest) for c in classes]
                return [i for hit in hits if hit for i in hit[1]]
        return [s.target for s in self.resolve(f, scope, function) if self.kinds.get(s.target) in ("Function", "Method")]

    def element_classes(self, f: FileIndex, scope: str, function: str) -> list[Sym]:
        """The repository classes a library container's accessor returns (Java's `xs.get(0)`
        on a `List<Item>`: its element type); [] when unknown or not read in the language."""
        return []

    def return_type(self, definition: Definition) -> str | None:
        """The type a function's signature declares it returns (None: not declared, or the
        language's hook is not written)."""
        return None

    def declared(self, node_id: str) -> tuple[FileIndex, Definition] | None:
        """The file and definition of a node id."""
        path = self.file_of.get(node_id)
        owner = self.files.get(path) if path is not None else None
        if owner is None:
            return None
        for d, i in zip(owner.code.definitions, owner.ids, strict=True):
            if i == node_id:
                return owner, d
        return None

    def _through_field(
        self, f: FileIndex, scope: str, head: str, type_text: str, rest: str, what: str
    ) -> list[Evidence]:
        """`x.total.render()` with `x` declared as a type whose field `total` is declared: the
        member of the field's type; nothing when that type is from outside the repository."""
        field, _, member = rest.partition(".")
        callee = f"{head}.{rest}"
        if "." in member:
            return self._by_name(f, callee, what)
        targets: list[Sym] = []
        for cls in self.resolve_type(f, scope, type_text):
            typed = self.field_type(cls.target, field)
            if typed is None:
                continue
            info, field_text = typed
            if self.outside_type(info.file, info.definition.parent, field_text):
                return []
            via = f"through `{head}.{field}` declared as `{field_text}`"
            for found in self.resolve_type(info.file, info.definition.parent, field_text):
                targets.extend(s._replace(via=via) if s.owner is None else s
                               for s in self._on_class(f, found.target, member))  # fmt: skip
        if targets:
            return self.classify(unique_symbols(targets), what)
        return self._by_name(f, callee, what)

    # At most this many same-named methods are offered as AMBIGUOUS targets of a receiver of
    # unknown type: beyond it, each candidate is more likely wrong than right.
    name_match_limit = MAX_CANDIDATES

    def contextual_classes(self, f: FileIndex, scope: str, type_text: str) -> list[Sym] | None:
        """The classes a local typed by its place in a call stands for (TypeScript's callback
        parameters); None when `type_text` is a written type."""
        return None

    def library_type(self, type_text: str) -> bool:
        """Whether a type name the repository neither defines nor imports is the language's own
        library's (implicitly imported: Java's `java.lang`), whose members are never ours."""
        return False

    def _field_values(self, symbols: list[Sym], attribute: str) -> list[Sym]:
        """`Style.PRETTY` / `X.INSTANCE`: a static field of a class as a value of its declared
        type (an enum's constant is of the enum), so a call on it is looked up on that type."""
        found: list[Sym] = []
        for s in symbols:
            if s.kind != DEF or s.target not in self.classes:
                continue
            typed = self.field_type(s.target, attribute)
            if typed is not None:
                info, type_text = typed
                via = f"through `{self.qualified[s.target]}.{attribute}` declared as `{type_text}`"
                found.extend(c._replace(via=via)
                             for c in self.resolve_type(info.file, info.definition.qualname, type_text))  # fmt: skip
            elif self.kinds.get(s.target) == "Enum" and attribute.isupper():
                found.append(Sym(DEF, s.target, f"through enum constant `{self.qualified[s.target]}.{attribute}`"))
        return unique_symbols(found)

    def outside_type(self, f: FileIndex, scope: str, type_text: str) -> bool:
        """Whether a declared type is imported from outside the repository (its head names an
        import of no repository module)."""
        type_head = type_text.split(".")[0]
        return any(s.kind == EXTERNAL for s in self.lookup(f, scope, type_head))

    def field_type(self, class_id: str, field: str) -> tuple[ClassInfo, str] | None:
        """The declared type of a field of the class or an ancestor (fields are recorded as
        typed locals of their class)."""
        for owner in self.ancestors(class_id):
            info = self.classes[owner]
            qualname = info.definition.qualname
            fields = info.file.locals.get(qualname)
            if fields and field in fields:
                type_text = fields[field]
                return (info, type_text) if type_text else None
            assigned = info.file.fields.get(qualname)
            if assigned and field in assigned:
                return info, assigned[field]
        return None

    def on_classes(self, f: FileIndex, classes: list[Sym], member: str, via: str) -> list[Sym]:
        """`member` on each of `classes`, reached `via` (one inherited names its owner instead)."""
        return unique_symbols([s._replace(via=via) if s.owner is None else s
                               for cls in classes for s in self._on_class(f, cls.target, member)])  # fmt: skip

    def _on_class(self, f: FileIndex, class_id: str, member: str) -> list[Sym]:
        found = self.find_member(class_id, member)
        if found is None:
            return []
        owner, ids = found
        inherited = owner if owner != class_id else None
        return [
            Sym(DEF, i, None if self.file_of.get(i) == f.path else f"on `{self.qualified[owner]}`",
                inherited)
            for i in ids
        ]

    def name_candidates(self, f: FileIndex, name: str) -> list[str]:
        """The methods named `name` that a call in `f` on a receiver of unknown type may reach
        (the language may rule some out: Go's unexported methods of other packages)."""
        named: list[str] = self.methods_by_name.get(name, [])
        return named

    def _by_name(self, f: FileIndex, callee: str, what: str, limit: int | None = None) -> list[Evidence]:
        name = callee.rsplit(".", 1)[1]
        if name in self.builtin_methods:
            return []
        limit = self.name_match_limit if limit is None else limit
        candidates = self.name_candidates(f, name)
        if len(candidates) > limit and len({self.qualified.get(c, c) for c in candidates}) > limit:
            return []  # too many, whichever copies a call would reach
        candidates = nearest_copies(f.path, candidates, self.qualified, self.file_of)
        if not candidates or len(candidates) > limit:
            return []
        if len(candidates) > 1:
            return self.classify(
                [Sym(DEF, c, "by name") for c in candidates], f"{what} (receiver type unknown)"
            )
        only = candidates[0]
        explanation = (
            f"{what}: the receiver's type is unknown; `{self.qualified[only]}` is the only "
            f"method named `{name}` in the repository"
        )
        return [Evidence(only, "INFERRED", NAME_MATCH_SCORE, explanation)]

    def classify(self, targets: list[Sym], what: str) -> list[Evidence]:
        targets = unique_symbols([t for t in targets if t.kind == DEF and t.target in self.qualified])
        targets = self.nearest(self.site, targets)
        if not targets or len(targets) > MAX_CANDIDATES:
            return []
        if len(targets) > 1:
            names = ", ".join(sorted(self.qualified[t.target] for t in targets))
            explanation = f"{what} has {len(targets)} candidates: {names}"
            return [Evidence(t.target, "AMBIGUOUS", 1 / len(targets), explanation) for t in targets]
        target = targets[0]
        name = self.qualified[target.target]
        if target.owner is not None:
            owner = self.qualified[target.owner]
            explanation = f"{what} resolved to `{name}`, inherited from `{owner}`"
        elif target.via is not None:
            explanation = f"{what} resolved {target.via} to `{name}`"
        else:
            explanation = f"{what} resolves to `{name}` in the same file"
            return [Evidence(target.target, "EXTRACTED", EXTRACTED_SCORE, explanation)]
        return [Evidence(target.target, "INFERRED", INFERRED_SCORE, explanation)]



def _typed_via(
    head: str, type_text: str, member_via: str | None, type_via: str | None
) -> str | None:
    """None (explicit: EXTRACTED) when the declared type and its member are in the same file."""
    if member_via is None and type_via is None:
        return None
    if type_text.endswith("()"):  # a local holding a call's result (Go's extractor marks it so)
        via = f"through receiver `{head}` typed by the result of `{type_text}`"
    else:
        via = f"through receiver `{head}` declared as `{type_text}`"
    if type_via and type_via.startswith("through "):
        via += f" ({type_via.removeprefix('through ')})"
    return via

