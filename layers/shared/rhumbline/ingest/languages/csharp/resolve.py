"""Phase 2 for C#: namespaces, usings, partial classes.

The Java/Kotlin resolver (java/resolve.py) with C#'s rules: a file's namespace is its first
namespace declaration; code in `A.B` also sees the types of `A` unqualified; `using A.B;` imports a
namespace's types (a star import), `using X = A.B.C;` an alias, `using static A.B.C;` a class's
static members; `partial` classes of one name share their members across files.

Nodes: each namespace is a Module (`module:Shop.Models`) which CONTAINS its files. IMPORTS edges:
File → Module for `using` a repository namespace, File → File for an alias or static using of a
repository type. Qualified names: `<namespace>.<qualname>`.
"""

from __future__ import annotations

from rhumbline.ingest.languages.java.resolve import JvmFamily

_BUILTIN_METHODS = frozenset(
    """
    ToString Equals GetHashCode GetType Add AddRange Remove RemoveAt Insert Contains ContainsKey
    TryGetValue Clear Count Select Where First FirstOrDefault Last LastOrDefault Any All ToList
    ToArray ToDictionary OrderBy OrderByDescending GroupBy Sum Max Min Aggregate Skip Take Join
    Split Trim Substring Replace StartsWith EndsWith IndexOf Format WriteLine Write ReadLine
    Dispose Wait Result ConfigureAwait GetAwaiter Invoke Parse TryParse CompareTo Append
    """.split()
)


class CSharpFamily(JvmFamily):
    builtin_methods = _BUILTIN_METHODS
    package_word = "namespace"
    package_keyword = "namespace"

    def visible_packages(self, package: str) -> list[str]:
        parts = package.split(".") if package else []
        return [".".join(parts[:end]) for end in range(len(parts), -1, -1)]

    def members_attached(self) -> None:
        """`partial class Cart` in several files: one set of members, shared."""
        groups: dict[str, list[str]] = {}
        for class_id, info in self.classes.items():
            if " partial " in f" {info.definition.signature} ":
                groups.setdefault(self.qualified[class_id], []).append(class_id)
        self.share_members(list(groups.values()))
