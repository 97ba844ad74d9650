"""Classes across files: their members, resolved bases and method resolution order.

Bases are resolved lazily through a callback (the resolver, which itself needs class members for
`Outer.Inner`), memoized, with inheritance cycles cut. The MRO is the C3 linearization over the
bases found in the repository; external bases (`object`, third-party) simply do not appear. When C3
has no solution (inconsistent hierarchies, or a partial one because a base is external) a
depth-first, left-to-right order without duplicates is used instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from rhumbline.ingest.facts import Definition
from rhumbline.ingest.languages.python.syntax import is_secondary_site


class ClassInfo(NamedTuple):
    node_id: str
    path: str
    qualname: str
    parent: str  # scope the class statement runs in: where its bases are looked up
    bases: tuple[str, ...]
    members: dict[str, list[str]]  # name → ids of methods and nested classes defined in the body


BaseResolver = Callable[[ClassInfo], list[str]]


class ClassTable:
    def __init__(self, resolve_bases: Callable[[], BaseResolver | None]) -> None:
        """`resolve_bases()`: the resolver's callback (a weakref.WeakMethod)."""
        self._resolve_bases = resolve_bases
        self.classes: dict[str, ClassInfo] = {}
        self._bases: dict[str, list[str]] = {}
        self._mro: dict[str, list[str]] = {}
        self._linearizing: set[str] = set()

    def add_file(self, path: str, definitions: tuple[Definition, ...], ids: list[str]) -> None:
        """Register a file's classes; `ids` are the node ids of `definitions`, in order."""
        by_qualname: dict[str, ClassInfo] = {}
        for definition, node_id in zip(definitions, ids, strict=True):
            if definition.kind == "Class":
                info = ClassInfo(
                    node_id, path, definition.qualname, definition.parent, definition.bases, {}
                )
                self.classes[node_id] = info
                by_qualname.setdefault(definition.qualname, info)
        for definition, node_id in zip(definitions, ids, strict=True):
            owner = by_qualname.get(definition.parent)
            if owner is not None and not is_secondary_site(definition.qualname):
                owner.members.setdefault(definition.name, []).append(node_id)

    def bases(self, class_id: str) -> list[str]:
        """Resolved in-repo base classes, in declaration order (never the class itself)."""
        found = self._bases.get(class_id)
        if found is None:
            self._bases[class_id] = []  # a base expression that leads back here resolves to nothing
            resolve = self._resolve_bases()
            if resolve is None:
                raise RuntimeError("a class table outlived its resolver")
            found = [b for b in resolve(self.classes[class_id]) if b != class_id]
            self._bases[class_id] = list(dict.fromkeys(found))
        return self._bases[class_id]

    def mro(self, class_id: str) -> list[str]:
        cached = self._mro.get(class_id)
        if cached is not None:
            return cached
        if class_id in self._linearizing:
            return [class_id]  # an inheritance cycle (only possible through odd imports)
        self._linearizing.add(class_id)
        try:
            bases = self.bases(class_id)
            sequences = [self.mro(base) for base in bases]
            merged = _c3_merge([*sequences, list(bases)])
            if merged is None:
                merged = list(dict.fromkeys(c for sequence in sequences for c in sequence))
            order = [class_id, *(c for c in merged if c != class_id)]
        finally:
            self._linearizing.discard(class_id)
        self._mro[class_id] = order
        return order

    def find_member(
        self, class_id: str, name: str, *, after_self: bool = False
    ) -> tuple[str, list[str]] | None:
        """(owning class, member ids) of the first class in the MRO that defines `name`."""
        order = self.mro(class_id)
        for owner in order[1:] if after_self else order:
            members = self.classes[owner].members.get(name)
            if members:
                return owner, members
        return None


def _c3_merge(sequences: list[list[str]]) -> list[str] | None:
    pending = [list(sequence) for sequence in sequences if sequence]
    result: list[str] = []
    while pending:
        for sequence in pending:
            head = sequence[0]
            if not any(head in other[1:] for other in pending):
                break
        else:
            return None
        result.append(head)
        pending = [[c for c in sequence if c != head] for sequence in pending]
        pending = [sequence for sequence in pending if sequence]
    return result
