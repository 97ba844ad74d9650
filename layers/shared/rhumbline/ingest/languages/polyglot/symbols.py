"""The vocabulary of tree-sitter phase 2: what a name resolves to (`Sym`), why an edge exists
(`Evidence`), one file's definitions arranged for lookups (`FileIndex`) and a class's table
entry (`ClassInfo`). Shared by the `Family` core, its call resolution and every language."""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from rhumbline.ingest.facts import Definition, ImportFact, SourceFile
from rhumbline.ingest.graph.ids import definition_id, variable_id
from rhumbline.stores.graph.model import Confidence

DEF, UNIT, EXTERNAL = "def", "unit", "external"
INTERFACE_KINDS = frozenset({"Interface", "Trait"})



class Sym(NamedTuple):
    kind: str  # DEF (a node id), UNIT (a module / package / namespace key) or EXTERNAL
    target: str
    via: str | None  # how the name reached the site ("through `import …`"); None: same file
    owner: str | None = None  # DEF members: the ancestor class they were found on


class Evidence(NamedTuple):
    node_id: str
    confidence: Confidence
    score: float
    explanation: str


class FileIndex:
    """One parsed file's definitions, arranged for lookups."""

    def __init__(self, source: SourceFile) -> None:
        code = source.code
        self.source = source
        self.path = source.path
        self.language = source.language
        self.code = code
        self.namespace = code.namespace
        self.ids = [definition_id(d.kind, self.path, d.qualname) for d in code.definitions]
        self.by_qualname: dict[str, tuple[str, Definition]] = {}
        self.children: dict[tuple[str, str], list[str]] = {}
        self.locals: dict[str, dict[str, str | None]] = {}
        # class qualname → field → type, from `this.x = new X()` and TS parameter properties
        self.fields: dict[str, dict[str, str]] = {}
        for d, node_id in zip(code.definitions, self.ids, strict=True):
            self.by_qualname.setdefault(d.qualname, (node_id, d))
            self.children.setdefault((d.parent, d.name), []).append(node_id)
            if d.parameters:
                names = self.locals.setdefault(d.qualname, {})
                for parameter in d.parameters:
                    name, _, type_text = parameter.partition(":")
                    if name.startswith("this."):
                        if type_text and d.parent:
                            self.fields.setdefault(d.parent, {}).setdefault(name[5:], type_text)
                    elif type_text or name not in names:
                        names[name] = type_text or None
        # Typed locals of module-level code (TypeScript's callbacks in top-level calls): name →
        # (line, type) in source order, several callbacks may reuse a name.
        self.module_locals: dict[str, list[tuple[int, str]]] = {}
        for hint in code.hints:
            self.module_locals.setdefault(hint.name, []).append((hint.line, hint.expression))
        self.variables = {v.name: variable_id(self.path, v.name) for v in code.variables}
        # (scope, bound name) → import facts; star imports apart
        self.bindings: dict[tuple[str, str], list[ImportFact]] = {}
        self.stars: list[ImportFact] = []

    def kind_of(self, qualname: str) -> str | None:
        found = self.by_qualname.get(qualname)
        return found[1].kind if found else None

    def parent_of(self, qualname: str) -> str:
        found = self.by_qualname.get(qualname)
        return found[1].parent if found else ""


class ClassInfo:
    __slots__ = ("node_id", "file", "definition", "members", "bases")

    def __init__(self, node_id: str, file: FileIndex, definition: Definition) -> None:
        self.node_id = node_id
        self.file = file
        self.definition = definition
        self.members: dict[str, list[str]] = {}
        self.bases: list[str] | None = None  # resolved lazily



def unique_symbols(symbols: list[Sym]) -> list[Sym]:
    """Each (kind, target) once, the first seen kept (it carries the nearest evidence)."""
    seen: dict[tuple[str, str], Sym] = {}
    for symbol in symbols:
        seen.setdefault((symbol.kind, symbol.target), symbol)
    return list(seen.values())


def shared_directories(a: str, b: str) -> int:
    """How many leading directories two repository paths have in common."""
    count = 0
    for left, right in zip(_directories(a), _directories(b)):
        if left != right:
            break
        count += 1
    return count


@lru_cache(maxsize=65_536)  # a family's files are compared with each other, again and again
def _directories(path: str) -> tuple[str, ...]:
    return tuple(path.split("/")[:-1])


def nearest_paths(site: str, paths: list[str]) -> list[str]:
    """The `paths` that share the most leading directories with `site`, in order."""
    if len(paths) < 2:
        return paths
    depths = [shared_directories(site, path) for path in paths]
    nearest = max(depths)
    return [path for path, depth in zip(paths, depths, strict=True) if depth == nearest]


def nearest_copies(site: str, ids: list[str], qualified: dict[str, str], file_of: dict[str, str]) -> list[str]:
    """`ids` without the copies of a definition that are farther from `site` than another copy.

    A qualified name defined in several places of one tree (a module copied or vendored into
    several projects, services generated from one template) is one definition in each project:
    a build sees its own project's, so a reference in `site` reaches the copies whose files share
    the most leading directories with it, never all of them. Ids of distinct names, or without
    one, are kept as they are, in order."""
    if len(ids) < 2:
        return ids
    names = [qualified.get(node_id) for node_id in ids]
    if len(set(names)) == len(names):  # no copies: the usual case, decided in C
        return ids
    by_name: dict[str, list[str]] = {}
    for node_id, name in zip(ids, names, strict=True):
        if name is not None:
            by_name.setdefault(name, []).append(node_id)
    farther: set[str] = set()
    for copies in by_name.values():
        if len(copies) > 1:
            nearest = set(nearest_paths(site, [file_of[node_id] for node_id in copies]))
            farther.update(node_id for node_id in copies if file_of[node_id] not in nearest)
    return [node_id for node_id in ids if node_id not in farther] if farther else ids

