"""Names and classes for the tree-sitter languages: what a name means in a scope, and a class's
bases, ancestors and members."""

from __future__ import annotations

from rhumbline.ingest.facts import ImportFact
from rhumbline.ingest.languages.polyglot.extract import CLASS_KINDS
from rhumbline.ingest.languages.polyglot.symbols import (
    DEF,
    EXTERNAL,
    UNIT,
    FileIndex,
    Sym,
    nearest_copies,
    unique_symbols,
)


class Lookups:
    """Mixed into `Family`, whose tables (`classes`, `files`, `qualified`, `_ancestors`) and
    language hooks (`resolve_type`, `unit_lookup`, `unit_member`, `import_symbols`) it reads."""

    # The line of the call site being resolved: which of module-level code's locals of one name
    # it sees (the callback declared last before it).
    site_line = 0
    # The file whose records the current per-file step draws (Family._per_file): the site of
    # every reference `classify` decides, nearest to which a copied definition is taken.
    site = ""

    # -- classes ------------------------------------------------------------------------------
    def bases(self, class_id: str) -> list[str]:
        info = self.classes[class_id]
        if info.bases is None:
            info.bases = []  # a base expression leading back here resolves to nothing
            found: list[str] = []
            d = info.definition
            for base in d.bases:
                candidates = [
                    s.target
                    for s in self.resolve_type(info.file, d.parent, base)
                    if s.target != class_id and s.target in self.classes
                ]
                if candidates:
                    found.append(candidates[0])  # an ambiguous base: lookups need one
            info.bases = list(dict.fromkeys(found))
        return info.bases

    def ancestors(self, class_id: str) -> list[str]:
        """The class, then its ancestors depth-first, left to right, without repeats."""
        cached = self._ancestors.get(class_id)
        if cached is not None:
            return cached
        if class_id in self._linearizing:
            return [class_id]
        self._linearizing.add(class_id)
        try:
            order = [class_id]
            for base in self.bases(class_id):
                order.extend(self.ancestors(base))
            order = list(dict.fromkeys(order))
        finally:
            self._linearizing.discard(class_id)
        self._ancestors[class_id] = order
        return order

    def find_member(
        self, class_id: str, name: str, *, after_self: bool = False
    ) -> tuple[str, list[str]] | None:
        order = self.ancestors(class_id)
        for owner in order[1:] if after_self else order:
            members = self.classes[owner].members.get(name)
            if members:
                return owner, members
        return None

    def enclosing_class(self, f: FileIndex, scope: str) -> str | None:
        """The class-like whose method (or nested function of one) `scope` is."""
        current = scope
        while current:
            found = f.by_qualname.get(current)
            if found is None:
                return None
            node_id, d = found
            if d.kind in CLASS_KINDS:
                return node_id
            if d.kind == "Method":
                return self._owner(f, d)
            current = d.parent
        return None

    def enclosing_classes(self, f: FileIndex, scope: str) -> list[str]:
        """The class-like enclosing `scope`, then the classes lexically around it, innermost
        first (through methods too: an anonymous class's methods are declared in one)."""
        found: list[str] = []
        first = self.enclosing_class(f, scope)
        if first is not None:
            found.append(first)
        current = scope
        while current:
            hit = f.by_qualname.get(current)
            if hit is None:
                break
            node_id, d = hit
            if d.kind in CLASS_KINDS and node_id not in found:
                found.append(node_id)
            current = d.parent
        return found

    def nearest(self, site: str, targets: list[Sym]) -> list[Sym]:
        """`targets` without the copies of a definition farther from the file `site` than another
        copy (symbols.nearest_copies)."""
        if len(targets) < 2:
            return targets
        kept = nearest_copies(site, [t.target for t in targets], self.qualified, self.file_of)
        if len(kept) == len(targets):
            return targets
        wanted = set(kept)
        return [t for t in targets if t.target in wanted]

    # -- names --------------------------------------------------------------------------------
    def lookup(self, f: FileIndex, scope: str, name: str) -> list[Sym]:
        """What `name` means in `scope` of file `f`: nested definitions, imports, locals (which
        hide everything outside), the file's top level, then the language's wider scopes."""
        current, innermost = scope, True
        while current:
            found = f.by_qualname.get(current)
            kind = found[1].kind if found else None
            # A scope no definition of this file declares is the type of a method declared
            # outside its type's body (a Go receiver's type in another file): a class body,
            # whose members are no bare names.
            if innermost or found is not None:
                ids = f.children.get((current, name))
                if ids and kind in CLASS_KINDS:
                    # A class body's names are its nested types: its methods are reached through
                    # `this` (a constructor is no name for its class), its fields are no definitions.
                    ids = [i for i in ids if self.kinds.get(i) in CLASS_KINDS]
                if ids:
                    return [Sym(DEF, i, None) for i in ids]
            facts = f.bindings.get((current, name))
            if facts:
                return self._imported(f, facts, name)
            local = f.locals.get(current)
            if local is not None and name in local:
                return []  # a parameter or local variable: its value is not a definition
            innermost = False
            current = found[1].parent if found else ""
        ids = f.children.get(("", name))
        if ids:
            return [Sym(DEF, i, None) for i in ids]
        facts = f.bindings.get(("", name))
        if facts:
            return self._imported(f, facts, name)
        variable = f.variables.get(name)
        if variable is not None:
            return [Sym(DEF, variable, None)]
        return self.nearest(f.path, self.unit_lookup(f, scope, name))

    def _imported(self, f: FileIndex, facts: list[ImportFact], name: str) -> list[Sym]:
        # Re-exports can lead back to the binding being resolved (a Rust `pub use crate::m::X`
        # seen again through `mod tests { use crate::m::X; }`): a binding in progress names
        # nothing, so every chain of bindings ends, whatever path syntax the language uses.
        key = (f.path, facts[0].scope, name)
        if key in self._importing:
            return []
        self._importing.add(key)
        try:
            symbols = [s for fact in facts for s in self.import_symbols(f, fact)]
        finally:
            self._importing.discard(key)
        found = self.nearest(f.path, unique_symbols(symbols))
        return found or [Sym(EXTERNAL, name, f"through `{facts[0].statement}`")]

    def local_type(self, f: FileIndex, scope: str, name: str) -> tuple[bool, str | None]:
        """(whether `name` is a local of an enclosing function, its declared type)."""
        current = scope
        while current:
            local = f.locals.get(current)
            if local is not None and name in local:
                return True, local[name]
            current = f.parent_of(current)
        declared = f.module_locals.get(name)
        if declared:  # in module-level code: the one declared last before the call site
            before = [type_text for line, type_text in declared if line <= self.site_line]
            return True, before[-1] if before else declared[0][1]
        return False, None

    def resolve(self, f: FileIndex, scope: str, dotted: str) -> list[Sym]:
        """Definitions (DEF symbols) a dotted name refers to; [] when unknown or external."""
        head, *rest = dotted.split(".")
        symbols = self.lookup(f, scope, head)
        for attribute in rest:
            symbols = self.nearest(f.path, self.members(symbols, attribute))
            if not symbols:
                return []
        return [s for s in symbols if s.kind == DEF]

    def members(self, symbols: list[Sym], attribute: str) -> list[Sym]:
        found: list[Sym] = []
        for s in symbols:
            if s.kind == UNIT:
                found.extend(self.unit_member(s.target, attribute, s.via))
            elif s.kind == DEF and s.target in self.classes:
                member = self.find_member(s.target, attribute)
                if member is not None:
                    owner, ids = member
                    inherited = owner if owner != s.target else None
                    here = self.file_of.get(s.target)  # the site's file when s.via is None
                    for i in ids:
                        via = s.via
                        if via is None and self.file_of.get(i) != here:
                            via = f"as a member of `{self.qualified[owner]}`"
                        found.append(Sym(DEF, i, via, inherited))
        return unique_symbols(found)
