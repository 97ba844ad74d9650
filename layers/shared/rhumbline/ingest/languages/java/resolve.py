"""Phase 2 for Java and Kotlin, resolved together: they share packages and call each other.

A file's package is its `package` declaration (the default package when none). A file sees, in
this order: its own definitions, its imports (`import a.b.C` finds C among the top-level types of
package a.b, or a Kotlin top-level function; `import static a.b.C.m` finds member m of class C;
nested types `a.b.Outer.Inner`), the other files of its package, its star imports (`a.b.*`: a
package's types, or a class's static members), then fully qualified names (`com.shop.Money`).
`java.lang` and other libraries are outside the repository: a receiver declared with a type the
repository neither defines nor imports (`String`, `Number`), or a class name it does not know
(`Integer.parseInt`), is the library's, never matched by name to a repository method.

Bare calls inside a class mean `this.m()` first (implicit this, up the superclasses and
interfaces). Fields and locals carry their declared types, so `items.add()` on a `List` field
stays unresolved rather than matched by name.

Nodes: each package is a Module (`module:com.shop.model`) which CONTAINS its files. IMPORTS
edges: File → File for an imported type or function (the file declaring it), File → Module for a
star import of a repository package. Qualified names: `<package>.<qualname>`.
"""

from __future__ import annotations

from rhumbline.ingest.facts import Definition, ImportFact
from rhumbline.ingest.graph.ids import file_id, module_id
from rhumbline.ingest.languages.polyglot.extract import CLASS_KINDS
from rhumbline.ingest.languages.polyglot.resolve import Family
from rhumbline.ingest.languages.polyglot.symbols import DEF, UNIT, FileIndex, Sym
from rhumbline.ingest.languages.polyglot.type_names import type_name
from rhumbline.stores.graph.model import Node

_BUILTIN_METHODS = frozenset(
    """
    equals hashCode toString getClass get set add addAll remove removeAll contains containsAll
    containsKey containsValue put putAll putIfAbsent getOrDefault size isEmpty clear iterator
    stream map filter collect forEach reduce sorted distinct limit findFirst findAny orElse
    orElseGet orElseThrow isPresent ifPresent of ofNullable valueOf length charAt substring indexOf
    trim split format println print printf append insert build apply let also run takeIf
    takeUnless isNotEmpty isNullOrEmpty orEmpty first last firstOrNull lastOrNull toList toSet
    toMap toMutableList toTypedArray joinToString keys values entries compareTo close start join
    lock unlock wait notify notifyAll sleep name ordinal asList sort getName getMessage
    printStackTrace
    """.split()
)


# Accessors of `java.util` containers returning one element (a map's value): `xs.get(0).m()`.
_ELEMENT_ACCESSORS = frozenset(
    """
    get next previous nextElement orElse orElseGet orElseThrow getFirst getLast first last peek
    poll pop element remove peekFirst peekLast pollFirst pollLast getOrDefault ceiling floor
    higher lower
    """.split()
)


class JvmFamily(Family):
    implicit_this = True
    builtin_methods = _BUILTIN_METHODS
    name_match_limit = 2
    package_word = "the same package"
    package_keyword = "package"

    def return_type(self, definition: Definition) -> str | None:
        # `public static Builder builder()`: the word before the name (Kotlin writes `: T` after
        # the parameters, which this does not read).
        before, found, _ = (definition.signature or "").partition(f" {definition.name}(")
        words = before.split()
        return type_name(words[-1]) if found and words and definition.kind == "Method" else None

    def element_classes(self, f: FileIndex, scope: str, function: str) -> list[Sym]:
        # `xs.get(0)` / `this.xs.get(0)`: the element type phase 1 recorded as the local `xs[]`.
        holder, _, accessor = function.rpartition(".")
        if accessor not in _ELEMENT_ACCESSORS:
            return []
        field = holder.removeprefix("this.")
        if not field or "." in field:
            return []
        written: str | None = None
        where, where_scope = f, scope
        if field == holder:
            written = self.local_type(f, scope, f"{field}[]")[1]
        if written is None:
            class_id = self.enclosing_class(f, scope)
            typed = self.field_type(class_id, f"{field}[]") if class_id is not None else None
            if typed is not None:
                info, written = typed
                where, where_scope = info.file, info.definition.qualname
        return self.resolve_type(where, where_scope, written) if written else []

    def library_type(self, type_text: str) -> bool:
        # A capitalised name the repository neither defines nor imports is `java.lang`'s (or
        # Kotlin's default imports'); a one- or two-capital name is rather a type parameter, and
        # Kotlin's `Any` is usually smart-cast (`if (x is Cart) x.add()`) to a type of ours.
        head = type_text.split(".", 1)[0]
        return head[:1].isupper() and not head.isupper() and head != "Any"

    def prepare(self) -> None:
        self.package_of: dict[str, str] = {}
        self.package_files: dict[str, list[FileIndex]] = {}
        self.package_members: dict[str, dict[str, list[Sym]]] = {}
        for path, f in self.files.items():
            package = f.namespace or ""
            self.package_of[path] = package
            self.package_files.setdefault(package, []).append(f)
            table = self.package_members.setdefault(package, {})
            for d, node_id in zip(f.code.definitions, f.ids, strict=True):
                if not d.parent:
                    table.setdefault(d.name, []).append(Sym(DEF, node_id, path))
            for name, node_id in f.variables.items():
                table.setdefault(name, []).append(Sym(DEF, node_id, path))
        # Every package and each of its prefixes (`com`, `com.shop`): fully qualified names.
        self.prefixes = {
            package.rsplit(".", depth)[0]
            for package in self.package_members
            if package
            for depth in range(package.count(".") + 1)
        }

    # -- names ------------------------------------------------------------------------------------
    def fully_qualified(self, dotted: str) -> list[Sym]:
        """A fully qualified name (`com.shop.Money`, `com.shop.Money.Line`) in the repository."""
        parts = dotted.split(".")
        for split in range(len(parts) - 1, -1, -1):
            package = ".".join(parts[:split])
            if package not in self.package_members or split == len(parts):
                continue
            symbols = self.unit_member(package, parts[split], None)
            for attribute in parts[split + 1 :]:
                symbols = self.members(symbols, attribute)
            if symbols:
                return symbols
        return []

    def binding_name(self, f: FileIndex, fact: ImportFact) -> str | None:
        if fact.name == "*":
            return "*"
        return fact.alias or fact.name

    def import_symbols(self, f: FileIndex, fact: ImportFact) -> list[Sym]:
        via = f"through `{fact.statement}`"
        symbols = self.fully_qualified(f"{fact.module}.{fact.name}") if fact.module else []
        return [s._replace(via=via) for s in symbols]

    def package_display(self, package: str) -> str:
        """A package as the language writes it (keys are dotted whatever the language)."""
        return package

    def visible_packages(self, package: str) -> list[str]:
        """Packages whose names a file of `package` sees unqualified (C#: the enclosing ones)."""
        return [package]

    def unit_lookup(self, f: FileIndex, scope: str, name: str) -> list[Sym]:
        for package in self.visible_packages(self.package_of[f.path]):
            found = [
                s for s in self.package_members.get(package, {}).get(name, ()) if s.via != f.path
            ]
            if found:
                where = (
                    f"in {self.package_word} `{self.package_display(package)}`"
                    if package
                    else "in the default package"
                )
                return [Sym(DEF, s.target, where) for s in found]
        for star in f.stars:
            via = f"through `{star.statement}`"
            if star.module in self.package_members:
                symbols = self.unit_member(star.module, name, via)
            else:  # a static star import of a class's members
                found = self.members(self.fully_qualified(star.module), name)
                symbols = [s._replace(via=via) for s in found]
            if symbols:
                return symbols
        if name in self.prefixes:
            return [Sym(UNIT, name, "by its fully qualified name")]
        return []

    def unit_member(self, unit: str, name: str, via: str | None) -> list[Sym]:
        found = [Sym(DEF, s.target, via) for s in self.package_members.get(unit, {}).get(name, ())]
        if found:
            return found
        child = f"{unit}.{name}" if unit else name
        if child in self.prefixes:
            return [Sym(UNIT, child, via)]
        return []

    def owner_class(self, f: FileIndex, d) -> str | None:
        # An extension function's receiver type, as the file sees it.
        for s in self.resolve_type(f, "", d.parent):
            if self.kinds.get(s.target) in CLASS_KINDS:
                return s.target
        return None

    def qualified_name(self, f: FileIndex, qualname: str) -> str:
        package = self.package_of[f.path]
        return f"{package}.{qualname}" if package else qualname

    # -- edges and nodes --------------------------------------------------------------------------
    def add_imports(self, f: FileIndex) -> None:
        for fact in f.code.imports:
            self.add_import(f, fact)

    def add_import(self, f: FileIndex, fact: ImportFact) -> None:
        path = f.path
        source = file_id(path)
        explanation = f"`{fact.statement}` at {path}:{fact.line}"
        if fact.name == "*" and fact.module in self.package_members:
            target = module_id(self.package_display(fact.module))
            self.edges.extracted(source, "IMPORTS", target, explanation, path, fact.line)
            return
        dotted = fact.module if fact.name == "*" else f"{fact.module}.{fact.name}"
        targets = {self.file_of[s.target] for s in self.nearest(path, self.fully_qualified(dotted)) if s.kind == DEF}
        for target_path in sorted(targets - {path}):
            target = file_id(target_path)
            self.edges.extracted(source, "IMPORTS", target, explanation, path, fact.line)

    def extra_nodes(self) -> list[Node]:
        nodes = []
        for package, files in sorted(self.package_files.items()):
            if not package:
                continue
            display = self.package_display(package)
            node_id = module_id(display)
            languages = sorted({f.language for f in files if f.language})
            nodes.append(
                Node(
                    id=node_id,
                    kind="Module",
                    name=package.rsplit(".", 1)[-1],
                    qualified_name=display,
                    language=languages[0] if len(languages) == 1 else None,
                )
            )
            for f in files:
                explanation = f"{f.path} declares `{self.package_keyword} {display}`"
                self.edges.extracted(node_id, "CONTAINS", file_id(f.path), explanation, f.path, 1)
        return nodes
