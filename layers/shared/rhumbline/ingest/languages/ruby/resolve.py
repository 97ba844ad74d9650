"""Phase 2 for Ruby: one global namespace of constants, classes reopened across files.

Constants (classes, modules) are looked up the way Ruby does lexically: from inside
`Shop::Cart#add`, `Money` is tried as `Shop::Cart::Money`, `Shop::Money`, then `Money`, in every
file of the repository (Ruby code rarely requires what it uses: autoloading and the load path do).
A class opened in several files (`class Cart` in cart.rb and again in cart/pricing.rb) is one
class: each piece's methods are visible through every piece, and references go to the piece that
declares the superclass (else the one with the most methods, else the first path). `include`,
`extend` and `prepend`ed modules are ancestors (INHERITS), so their methods resolve on the class.
A bare `m` in a method is `self.m` first; top-level `def`s are visible everywhere.

IMPORTS edges: File → File for `require_relative` (next to the file) and `require` (from the
repository root or `lib/`, else the only file ending with that path). Qualified names are the
qualnames (`Shop::Cart#add`).
"""

from __future__ import annotations

import posixpath

from rhumbline.ingest.graph.ids import file_id
from rhumbline.ingest.languages.polyglot.extract import CLASS_KINDS
from rhumbline.ingest.languages.polyglot.resolve import Family
from rhumbline.ingest.languages.polyglot.symbols import DEF, FileIndex, Sym

_RELATIVE = 1

_BUILTIN_METHODS = frozenset(
    """
    each map select reject push pop shift unshift include? to_s to_i to_f to_a to_h to_sym inspect
    puts print p pp raise new call send public_send respond_to? freeze frozen? dup clone nil?
    empty? any? all? none? size length count first last keys values merge merge! fetch dig join
    split strip gsub sub upcase downcase each_with_index each_with_object inject reduce sort
    sort_by min max sum find detect compact flatten uniq key? is_a? kind_of? instance_of? tap
    then format sprintf require attr_accessor attr_reader attr_writer delete update save! valid?
    where find_by order limit create create! present? blank? try << == === eql? equal? hash clear
    """.split()
)


class RubyFamily(Family):
    implicit_this = True
    builtin_methods = _BUILTIN_METHODS

    def prepare(self) -> None:
        self.constants: dict[str, list[str]] = {}  # qualname → ids of class and module pieces
        self.functions: dict[str, list[str]] = {}  # top-level def name → ids
        self._requires: dict[tuple[str, str, int], str | None] = {}
        self._piece_bases: dict[str, list[str]] = {}
        self._by_suffix: dict[str, list[str]] = {}
        for path, f in self.files.items():
            self._by_suffix.setdefault(posixpath.basename(path), []).append(path)
            for d, node_id in zip(f.code.definitions, f.ids, strict=True):
                if d.kind in CLASS_KINDS:
                    self.constants.setdefault(d.qualname, []).append(node_id)
                elif not d.parent:
                    self.functions.setdefault(d.name, []).append(node_id)
            for name, node_id in f.variables.items():
                self.constants.setdefault(name, []).append(node_id)

    def members_attached(self) -> None:
        self.share_members([ids for ids in self.constants.values() if len(ids) > 1])
        self.canonical = {
            qualname: self._canonical(ids) for qualname, ids in self.constants.items()
        }

    def piece(self, qualname: str) -> str | None:
        """The node that stands for a class or module opened in several places."""
        canonical = getattr(self, "canonical", None)
        if canonical is not None:
            return canonical.get(qualname)
        ids = self.constants.get(qualname)
        return ids[0] if ids else None  # members are still being attached: any piece will do

    def bases(self, class_id: str) -> list[str]:
        """A reopened class has the superclass and mixins of all its pieces."""
        qualname = self.qualified.get(class_id, "")
        pieces = self.constants.get(qualname, ())
        if len(pieces) < 2:
            return super().bases(class_id)
        cached = self._piece_bases.get(qualname)
        if cached is None:
            self._piece_bases[qualname] = []  # a base leading back here resolves to nothing
            found = [
                base
                for piece in pieces
                if piece in self.classes
                for base in Family.bases(self, piece)
                if base not in pieces
            ]
            cached = self._piece_bases[qualname] = list(dict.fromkeys(found))
        return cached

    def _canonical(self, ids: list[str]) -> str:
        def rank(node_id: str) -> tuple:
            info = self.classes.get(node_id)
            has_superclass = bool(info and info.definition.bases)
            methods = len(info.members) if info else 0
            return (not has_superclass, -methods, self.file_of.get(node_id, ""))

        return min(ids, key=rank)

    # -- names ------------------------------------------------------------------------------------
    def unit_lookup(self, f: FileIndex, scope: str, name: str) -> list[Sym]:
        namespace = scope.split("#", 1)[0]
        if "." in namespace:  # a singleton method: `Shop::Cart.create`
            namespace = namespace.rsplit(".", 1)[0]
        if namespace and f.kind_of(namespace) not in CLASS_KINDS:
            namespace = namespace.rsplit("::", 1)[0] if "::" in namespace else ""
        parts = namespace.split("::") if namespace else []
        for end in range(len(parts), -1, -1):
            qualname = "::".join([*parts[:end], name])
            if qualname in self.constants:
                target = self.piece(qualname)
                via = None if self.file_of.get(target) == f.path else "by constant lookup"
                return [Sym(DEF, target, via)]
        ids = [i for i in self.functions.get(name, ()) if self.file_of.get(i) != f.path]
        return [Sym(DEF, i, "as a top-level method") for i in ids]

    def members(self, symbols: list[Sym], attribute: str) -> list[Sym]:
        found = super().members(symbols, attribute)
        # `Shop::Util` names the canonical piece of that class, whichever piece declared it
        return [
            s._replace(target=self.piece(self.qualified[s.target]) or s.target)
            if self.kinds.get(s.target) in CLASS_KINDS
            else s
            for s in found
        ]

    # -- requires ---------------------------------------------------------------------------------
    def required(self, path: str, module: str, level: int) -> str | None:
        key = (posixpath.dirname(path), module, level)
        if key in self._requires:
            return self._requires[key]
        name = module if module.endswith(".rb") else f"{module}.rb"
        if level == _RELATIVE:
            candidates = [posixpath.normpath(posixpath.join(key[0], name))]
        else:
            candidates = [name, f"lib/{name}"]
        found = next((c for c in candidates if c in self.files), None)
        if found is None and level != _RELATIVE:
            matches = [
                p for p in self._by_suffix.get(posixpath.basename(name), ())
                if p.endswith("/" + name)
            ]
            found = matches[0] if len(matches) == 1 else None
        self._requires[key] = found
        return found

    def add_imports(self, f: FileIndex) -> None:
        path = f.path
        for fact in f.code.imports:
            target = self.required(path, fact.module, fact.level)
            if target is not None and target != path:
                explanation = f"`{fact.statement}` at {path}:{fact.line}"
                self.edges.extracted(file_id(path), "IMPORTS", file_id(target), explanation,
                                     path, fact.line)

    def binding_name(self, f: FileIndex, fact) -> str | None:
        return None  # a require binds no name: constants are global
