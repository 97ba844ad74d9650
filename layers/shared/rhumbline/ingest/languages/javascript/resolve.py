"""Phase 2 for JavaScript, TypeScript and TSX, resolved together (a TS file may import a JS one).

Modules are files. A relative specifier (`./cart`, `../util/index.js`) is looked up as written,
then with each extension (`.ts .tsx .d.ts .js .jsx .mjs .cjs .mts .cts`), then as a directory's
`index` file; `./x.js` also finds `x.ts` (TypeScript's ESM convention). Bare specifiers (`react`,
`lodash/fp`) and path aliases from tsconfig are outside the repository here.

`import {a} from "./m"` follows m's exports: its own `export` declarations and clauses, CommonJS
`module.exports` / `exports.x`, re-exports (`export {a} from`, `export * from`, `export * as ns`)
through any number of index files, with cycles cut. `import * as ns` and a whole-module `require`
bind the module itself, so `ns.f()` is resolved as m's export `f`; `require` of a file that sets
`module.exports = X` binds X.

Qualified names: `<path without extension, an index file by its directory>:<qualname>`, e.g.
`src/models/cart:Cart.addItem`, `src/models:Cart` for `src/models/index.ts`.
IMPORTS edges: File → File, for every import, re-export and require of a repository file.
"""

from __future__ import annotations

import posixpath
import re

from rhumbline.ingest.facts import CallSite, Definition, ImportFact
from rhumbline.ingest.graph.edges import INFERRED_SCORE
from rhumbline.ingest.graph.ids import file_id, variable_id
from rhumbline.ingest.languages.javascript.syntax import (
    CALL_RESULT,
    CALLBACK_TYPE,
    CAST,
    CONTEXTUAL_TYPE,
    THIS,
    TYPE_ALIAS,
)
from rhumbline.ingest.languages.polyglot.extract import CLASS_KINDS
from rhumbline.ingest.languages.polyglot.resolve import Family
from rhumbline.ingest.languages.polyglot.symbols import (
    DEF,
    EXTERNAL,
    UNIT,
    Evidence,
    FileIndex,
    Sym,
    unique_symbols,
)
from rhumbline.ingest.languages.polyglot.type_names import type_name

_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
_JS_EXTENSIONS = (".js", ".jsx", ".mjs", ".cjs")
_RE_EXPORT = 1
# A declared return type at the end of a signature: `function f(x: A): Observable<T>`.
_RETURN_TYPE = re.compile(r"\)\s*:\s*([\w.$]+(?:<.*>)?)\s*(?:=>\s*)?$")
_LIBRARY_TYPE = re.compile(r"[A-Z]\w*[a-z]\w*")
_TYPE_PARAMETER = re.compile(r"T[A-Z0-9]\w*")
_UTILITY_TYPES = frozenset(
    "Awaited Exclude Extract NonNullable Omit Partial Pick Readonly Required ReturnType".split()
)

# Methods of the standard library and the DOM: an unknown receiver calling one of these is almost
# surely not calling the repository's method of the same name.
_BUILTIN_METHODS = frozenset(
    """
    push pop shift unshift slice splice map filter reduce reduceRight forEach find findIndex
    findLast some every includes indexOf lastIndexOf join concat sort reverse keys values entries
    get set has delete add clear then catch finally toString valueOf hasOwnProperty call apply bind
    split replace replaceAll trim trimStart trimEnd toLowerCase toUpperCase startsWith endsWith
    match matchAll test exec log error warn info debug trace addEventListener removeEventListener
    querySelector querySelectorAll getElementById getElementsByClassName getElementsByTagName
    appendChild removeChild replaceChild insertBefore cloneNode setAttribute getAttribute
    removeAttribute hasAttribute preventDefault stopPropagation json text on off once emit next
    resolve reject assign freeze stringify parse charAt charCodeAt substring substr padStart padEnd
    flat flatMap fill localeCompare toFixed focus blur click closest contains remove append prepend
    dispatchEvent toggle item send open close write read now floor ceil round max min abs random
    isArray from of create defineProperty getPrototypeOf setTimeout clearTimeout setInterval
    clearInterval requestAnimationFrame fetch alert confirm prompt
    """.split()
)


class JavaScriptFamily(Family):
    builtin_methods = _BUILTIN_METHODS
    name_match_limit = 2

    def library_type(self, type_text: str) -> bool:
        # A capitalised type the repository neither defines nor imports is a global of the
        # runtime's library (`Response`, `HTMLElement`, `Map`); `T`, `TData` are type parameters,
        # and a utility type (`Exclude<X, Y>`) stands for a type it was given.
        head = type_text.split(".", 1)[0]
        return (
            bool(_LIBRARY_TYPE.fullmatch(head))
            and not _TYPE_PARAMETER.fullmatch(head)
            and head not in _UTILITY_TYPES
        )

    def contextual_classes(self, f: FileIndex, scope: str, type_text: str) -> list[Sym] | None:
        """`@operate#0.1`: the second parameter of the callback passed as operate's first
        argument, typed by operate's declared parameter `init: (source: A, sink: B) => void`
        (for `new C(…)`, C's constructor), the type resolved where the callee declares it;
        `@createSlice#0:extraReducers.0`, a callback given as property `extraReducers` of the
        object passed first, by that property of the parameter's declared type (a field of
        function type, or a method)."""
        if not type_text.startswith(CONTEXTUAL_TYPE):
            return None
        callee, _, place = type_text[len(CONTEXTUAL_TYPE) :].rpartition("#")
        where, _, index = place.rpartition(".")
        position, _, member = where.partition(":")
        argument, parameter = int(position), int(index)
        found: list[Sym] = []
        for owner, d in self._callee_definitions(f, scope, callee):
            written = [p for p in d.parameters if not p.startswith((f"{THIS}.", f"{THIS}:"))]
            declared = written[argument].partition(":")[2] if argument < len(written) else ""
            places = [(owner, d.qualname, declared)] if not member else self._property_types(owner, d.qualname, declared, member)
            for file, qualname, declared_type in places:
                file, qualname, callback = self._function_alias(file, qualname, declared_type)
                if not callback.endswith(CALLBACK_TYPE):
                    continue
                parts = callback[1 : -len(CALLBACK_TYPE) - 1].split(",")
                if parameter < len(parts) and parts[parameter]:
                    found.extend(self.resolve_type(file, qualname, parts[parameter]))
        return unique_symbols(found)

    def _function_alias(self, f: FileIndex, scope: str, type_text: str) -> tuple[FileIndex, str, str]:
        """A type alias of a function type (`Handler` for `type Handler = (c: Context) => void`)
        as its `(Context)=>`, with the file and scope it is written in: declared around `scope`
        or imported (through re-exports); `type_text` itself when it names no such alias."""
        pending = [(f, scope, type_text)]
        seen: set[tuple[str, str]] = set()
        while pending:  # each (file, name) once: an import cycle ends
            where, within, name = pending.pop()
            if "." in name or (where.path, name) in seen:
                continue
            seen.add((where.path, name))
            is_local, written = self.local_type(where, within, f"{TYPE_ALIAS}{name}")
            if is_local:
                return (where, within, written) if written else (f, scope, type_text)
            for fact in where.bindings.get(("", name), ()):
                target = self.specifier(where.path, fact.module)
                if target is not None and fact.name not in (None, "*"):
                    pending.append((self.files[target], "", fact.name))
            local = self.exported.get(where.path, {}).get(name)
            if local is not None and local != name:
                pending.append((where, "", local))
            for fact in self.re_exports.get(where.path, ()):
                target = self.specifier(where.path, fact.module)
                if target is not None and fact.name == "*" and fact.alias is None:
                    pending.append((self.files[target], "", name))
                elif target is not None and fact.alias == name and fact.name not in (None, "*"):
                    pending.append((self.files[target], "", fact.name))
        return f, scope, type_text

    def _callee_definitions(self, f: FileIndex, scope: str, callee: str) -> list[tuple[FileIndex, Definition]]:
        """The functions a call's callee names (for `new C`, C's constructor), with their files."""
        name = callee.removeprefix("new ")
        found: list[tuple[FileIndex, Definition]] = []
        for s in self.resolve(f, scope, name):
            if self.kinds.get(s.target) in CLASS_KINDS:
                member = self.find_member(s.target, "constructor") if name != callee else None
                ids = member[1] if member else []
            else:
                ids = [s.target]
            found.extend(declared for declared in map(self.declared, ids) if declared is not None)
        return found

    def _property_types(
        self, f: FileIndex, scope: str, type_text: str, member: str
    ) -> list[tuple[FileIndex, str, str]]:
        """Property `member` of a declared type as a function type `(A,B)=>`, with the file and
        scope its parameter types are written in: a field of function type, or a method."""
        found: list[tuple[FileIndex, str, str]] = []
        for cls in self.resolve_type(f, scope, type_text) if type_text else []:
            typed = self.field_type(cls.target, member)
            if typed is not None:
                info, field_text = typed
                found.append((info.file, info.definition.qualname, field_text))
                continue
            hit = self.find_member(cls.target, member)
            for declared in map(self.declared, hit[1] if hit else []):
                if declared is not None:
                    owner, d = declared
                    types = [p.partition(":")[2] for p in d.parameters if not p.startswith(f"{THIS}")]
                    found.append((owner, d.qualname, f"({','.join(types)}){CALLBACK_TYPE}"))
        return found

    def outside_type(self, f: FileIndex, scope: str, type_text: str) -> bool:
        # A callback passed to a function from outside the repository, or a value it returned:
        # of that package's types, whose members are not ours.
        if type_text.startswith(CONTEXTUAL_TYPE):
            function = type_text[len(CONTEXTUAL_TYPE) :].rpartition("#")[0].removeprefix("new ")
        elif type_text.endswith(CALL_RESULT) and CALL_RESULT not in type_text.removesuffix(CALL_RESULT):
            function = type_text.removesuffix(CALL_RESULT)
        else:
            return super().outside_type(f, scope, type_text)
        head = function.split(".")[0]
        symbols = self.lookup(f, scope, head)
        if symbols or "." not in function:
            return bool(symbols) and all(s.kind == EXTERNAL for s in symbols)
        # `x.m()` on a local: outside when x's own type is (`x = createStore()`); a type met
        # again while it is being asked about (`x = x.next()`) is not
        is_local, local_text = self.local_type(f, scope, head)
        question = (f.path, scope, f"outside {type_text}")
        if not is_local or not local_text or question in self._typing:
            return False
        self._typing.add(question)
        try:
            return self.outside_type(f, scope, local_text)
        finally:
            self._typing.discard(question)

    def resolve_call(self, f: FileIndex, call: CallSite) -> list[Evidence]:
        callee = call.callee
        if callee.startswith(f"{THIS}.") and "." not in callee[len(THIS) + 1 :]:
            typed = self._declared_this(f, call.scope)
            if typed is not None:  # `this.schedule()` in `function (this: SchedulerAction)`
                via = f"through `this` declared as `{typed[0]}`"
                targets = self.on_classes(f, typed[1], callee[len(THIS) + 1 :], via)
                return self.classify(targets, f"call `{callee}(...)` at {f.path}:{call.line}")
        if not callee.startswith(CAST):
            return self._through_aliases(super().resolve_call(f, call))
        # `(source as Subject).next()`: the member of the type it is cast to, as a declared type
        type_text, _, member = call.callee[len(CAST) :].partition(").")
        if self.outside_type(f, call.scope, type_text):
            return []
        classes = self.resolve_type(f, call.scope, type_text)
        targets = self.on_classes(f, classes, member, f"through the cast to `{type_text}`")
        return self.classify(targets, f"call `{call.callee}(...)` at {f.path}:{call.line}")

    def resolve_type(self, f: FileIndex, scope: str, dotted: str) -> list[Sym]:
        """Besides written types, a local's type as phase 1 wrote it from its value: `f()` (what
        f declares it returns), `this` (the enclosing class) and `this.a` (its field a's type).
        A type met again while it is being resolved (`x = x.next()`) names nothing."""
        computed = dotted.endswith(CALL_RESULT) or dotted == THIS or dotted.startswith(f"{THIS}.")
        if not computed:
            return super().resolve_type(f, scope, dotted)
        question = (f.path, scope, dotted)
        if question in self._typing:
            return []
        self._typing.add(question)
        try:
            if dotted.endswith(CALL_RESULT):
                return self.returned_classes(f, scope, dotted.removesuffix(CALL_RESULT))
            class_id = self.enclosing_class(f, scope)
            if class_id is None:
                return []
            if dotted == THIS:
                return [Sym(DEF, class_id, None if self.file_of.get(class_id) == f.path else "as the enclosing class")]
            typed = self.field_type(class_id, dotted.removeprefix(f"{THIS}."))
            if typed is None:
                return []
            info, type_text = typed
            return self.resolve_type(info.file, info.definition.qualname, type_text)
        finally:
            self._typing.discard(question)

    def _through_aliases(self, found: list[Evidence]) -> list[Evidence]:
        """A call of a module-level variable that names another function (`const g = f`, `const
        getProto = Object.getPrototypeOf`) calls that function: ours when the name resolves where
        the variable is declared, else one of the runtime's or a package's (no edge). One holding
        what a package's function returned (`const action = createAction("a")`) calls that
        package's code (no edge)."""
        if not any(e.node_id in self.aliases for e in found):
            return found
        kept: list[Evidence] = []
        for evidence in found:
            alias = self.aliases.get(evidence.node_id)
            if alias is None:
                kept.append(evidence)
                continue
            where, name = alias
            if name.endswith(CALL_RESULT):  # `const action = createAction("a")`: what f returned
                if not self.outside_type(where, "", name):
                    kept.append(evidence)  # ours, or unknown: the variable stands for it
                continue
            for s in self.resolve(where, "", name):
                if self.kinds.get(s.target) in ("Function", "Method"):
                    explanation = f"{evidence.explanation}, which holds `{name}`: `{self.qualified[s.target]}`"
                    if s.via is None:
                        kept.append(evidence._replace(node_id=s.target, explanation=explanation))
                    else:  # the name is imported where the variable is declared
                        kept.append(Evidence(s.target, "INFERRED", INFERRED_SCORE, explanation))
        return kept

    def _declared_this(self, f: FileIndex, scope: str) -> tuple[str, list[Sym]] | None:
        """Outside a class, the type a function's `this` parameter declares (`function (this:
        SchedulerAction<T>)`) and its classes; None when not declared (inside a class, `this` is it)."""
        if self.enclosing_class(f, scope) is not None:
            return None
        is_local, type_text = self.local_type(f, scope, THIS)
        if not is_local or not type_text:
            return None
        return type_text, self.resolve_type(f, scope, type_text)

    def return_type(self, definition: Definition) -> str | None:
        returned = _RETURN_TYPE.search(definition.signature or "")
        return type_name(returned.group(1)) if returned else None

    def prepare(self) -> None:
        self._specifiers: dict[tuple[str, str], str | None] = {}
        self._exports: dict[tuple[str, str], list[Sym]] = {}
        self._resolving: set[tuple[str, str]] = set()
        self._typing: set[tuple[str, str, str]] = set()  # computed types being resolved
        self.exported: dict[str, dict[str, str]] = {}
        self.aliases: dict[str, tuple[FileIndex, str]] = {}
        self.re_exports: dict[str, list[ImportFact]] = {}
        for path, f in self.files.items():
            pairs = (entry.partition("=") for entry in f.code.exports or ())
            self.exported[path] = {exported: local for exported, _, local in pairs}
            self.re_exports[path] = [fact for fact in f.code.imports if fact.level == _RE_EXPORT]
            for v in f.code.variables:
                if v.alias_of is not None:  # `const g = f`: variable id → (its file, the name it holds)
                    self.aliases[variable_id(path, v.name)] = (f, v.alias_of)

    # -- modules ----------------------------------------------------------------------------------
    def specifier(self, path: str, spec: str) -> str | None:
        """The repository file a module specifier in `path` names, or None."""
        key = (posixpath.dirname(path), spec)
        if key in self._specifiers:
            return self._specifiers[key]
        found = None
        if spec.startswith("."):
            base = posixpath.normpath(posixpath.join(key[0], spec))
            candidates = [base, *(base + ext for ext in _EXTENSIONS)]
            candidates.extend(f"{base}/index{ext}" for ext in _EXTENSIONS)
            stem, extension = posixpath.splitext(base)
            if extension in _JS_EXTENSIONS:
                candidates.extend(stem + ext for ext in (".ts", ".tsx", ".mts", ".cts", ".d.ts"))
            found = next((c for c in candidates if c in self.files), None)
        self._specifiers[key] = found
        return found

    def export(self, path: str, name: str) -> list[Sym]:
        """What module `path` exports as `name` (via None: callers say how they got here)."""
        key = (path, name)
        cached = self._exports.get(key)
        if cached is not None:
            return cached
        if key in self._resolving:
            return []  # an export cycle: the other way around decides
        self._resolving.add(key)
        try:
            found = self._export(path, name)
        finally:
            self._resolving.discard(key)
        self._exports[key] = found
        return found

    def _export(self, path: str, name: str) -> list[Sym]:
        f = self.files[path]
        local = self.exported[path].get(name)
        if local is not None:
            symbols = [s for s in self.lookup(f, "", local) if s.kind != EXTERNAL]
            if symbols:
                return [s._replace(via=None) if s.kind == DEF else s for s in symbols]
        symbols: list[Sym] = []
        stars = []
        for fact in self.re_exports[path]:
            target = self.specifier(path, fact.module)
            if target is None:
                continue
            if fact.name == "*" and fact.alias is None:
                stars.append(target)
            elif fact.alias == name:
                if fact.name == "*":
                    symbols.append(Sym(UNIT, target, None))
                else:
                    symbols.extend(self.export(target, fact.name))
        if not symbols and name != "default":
            for target in stars:
                symbols.extend(self.export(target, name))
        return symbols

    # -- hooks ------------------------------------------------------------------------------------
    def binding_name(self, f: FileIndex, fact: ImportFact) -> str | None:
        if fact.level == _RE_EXPORT:
            return None  # a re-export binds nothing in the file itself
        return fact.alias or (fact.name if fact.name not in (None, "*") else None)

    def import_symbols(self, f: FileIndex, fact: ImportFact) -> list[Sym]:
        target = self.specifier(f.path, fact.module)
        if target is None:
            return []
        via = f"through `{fact.statement}`"
        if fact.name == "*":
            return [Sym(UNIT, target, via)]
        if fact.name is None:  # require(): the module, or what `module.exports =` set
            if "default" in self.exported[target]:
                found = self.export(target, "default")
                if found:
                    return [s._replace(via=via) for s in found]
            return [Sym(UNIT, target, via)]
        return [s._replace(via=via) for s in self.export(target, fact.name)]

    def unit_member(self, unit: str, name: str, via: str | None) -> list[Sym]:
        return [s._replace(via=via) for s in self.export(unit, name)]

    def qualified_name(self, f: FileIndex, qualname: str) -> str:
        module = module_name(f.path)
        return f"{module}:{qualname}"

    def add_imports(self, f: FileIndex) -> None:
        path = f.path
        for fact in f.code.imports:
            target = self.specifier(path, fact.module)
            if target is not None and target != path:
                explanation = f"`{fact.statement}` at {path}:{fact.line}"
                self.edges.extracted(
                    file_id(path), "IMPORTS", file_id(target), explanation, path, fact.line
                )


def module_name(path: str) -> str:
    """`src/cart.ts` → `src/cart`; `src/models/index.ts` → `src/models`; `a.d.ts` → `a`."""
    stem = path[: -len(".d.ts")] if path.endswith(".d.ts") else posixpath.splitext(path)[0]
    if stem.endswith("/index"):
        return stem[: -len("/index")]
    return stem
