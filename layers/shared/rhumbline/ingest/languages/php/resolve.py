"""Phase 2 for PHP: namespaces, `use` imports, includes.

The Java/Kotlin resolver (java/resolve.py) with PHP's rules: a file's namespace is its first
`namespace` declaration; names are looked up in the file, then its `use` imports (`use A\\B\\C`,
`use A\\B\\C as D`, group and function uses), then its own namespace, then the global namespace
(where PHP falls back for functions); fully qualified names (`\\App\\Util\\Money`) work from
anywhere. `$this->m()`, `self::` / `static::` resolve on the enclosing class and its parents and
traits; a typed property (`private Money $total`) types `$this->total->m()`.

Nodes: each namespace is a Module (`module:App\\Models`) which CONTAINS its files. IMPORTS edges:
File → File for a `use` of a repository class or function and for `require` / `include`
(`__DIR__ . '/x.php'` next to the file; a plain path next to the file, then from the root).
Qualified names: `App\\Models\\Cart::add`.
"""

from __future__ import annotations

import posixpath

from rhumbline.ingest.facts import ImportFact
from rhumbline.ingest.graph.ids import file_id
from rhumbline.ingest.languages.java.resolve import JvmFamily
from rhumbline.ingest.languages.polyglot.symbols import FileIndex

_RELATIVE = 1

# PHP values have no methods of their own: only the magic methods are everybody's.
_BUILTIN_METHODS = frozenset(
    "__construct __destruct __toString __invoke __get __set __isset __unset __call __callStatic"
    .split()
)


class PhpFamily(JvmFamily):
    implicit_this = False
    builtin_methods = _BUILTIN_METHODS
    package_word = "namespace"
    package_keyword = "namespace"

    def visible_packages(self, package: str) -> list[str]:
        return [package, ""] if package else [""]

    def binding_name(self, f: FileIndex, fact: ImportFact) -> str | None:
        if fact.name is None:
            return None  # require / include
        return super().binding_name(f, fact)

    def qualified_name(self, f: FileIndex, qualname: str) -> str:
        package = self.package_of[f.path]
        return f"{self.package_display(package)}\\{qualname}" if package else qualname

    def included(self, path: str, fact: ImportFact) -> str | None:
        directory = posixpath.dirname(path)
        candidates = [posixpath.normpath(posixpath.join(directory, fact.module))]
        if fact.level != _RELATIVE:
            candidates.append(posixpath.normpath(fact.module))
        return next((c for c in candidates if c in self.files), None)

    def add_import(self, f: FileIndex, fact: ImportFact) -> None:
        if fact.name is not None:
            super().add_import(f, fact)
            return
        target = self.included(f.path, fact)
        if target is not None and target != f.path:
            explanation = f"`{fact.statement}` at {f.path}:{fact.line}"
            self.edges.extracted(file_id(f.path), "IMPORTS", file_id(target), explanation,
                                 f.path, fact.line)

    def package_display(self, package: str) -> str:
        return package.replace(".", "\\")
