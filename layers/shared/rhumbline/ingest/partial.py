"""Incremental phase 2: rebuild only the changed files' partitions, when that is provably exact.

A version's snapshot is kept per file (snapshots/format.py): every node and edge belongs to the file it
is the code or the evidence of. After phase 1, the planner compares this ingest's files with the
stored version's and takes the *partial* path when all of these hold:

- the same context (extractor code, project, root name: inputs_key.InputsKey); the git history may
  differ (new commits: see below);
- the same set of paths with the same languages (an added, removed or renamed file changes module
  names, directory nodes and what imports resolve to: full phase 2);
- every changed file is Python whose interface (python/interface.py: everything another file's
  resolution can observe) is unchanged, or a file without an extractor (its File node only) but
  a packaging configuration (pyproject.toml, setup.cfg: python/packaging.py may move packages);
- no document links to a line of a changed file (such a link lands on whichever definition spans
  that line).

Then every other file resolves exactly as before, so its partition is the stored one, and only the
changed files' partitions are built: their structure (File node, its CONTAINS edge), their Python
nodes and edges (resolved against symbol tables of every file, python/graph.py `only`), and their
MODIFIED edges. When the history changed too, the contributor records are recomputed from the
whole log and swapped in wherever they live (snapshots/history_records.py). The result is checked before it
is used: it may only touch the partitions it rebuilt and may not remove a node other than a
contributor (an edge elsewhere could point at it); otherwise, and in every other case, the full
phase 2 runs. `changes.phase2` in the ingest summary says which ran, `changes.partial_refused` why
not partial.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from rhumbline.ingest.discover.git import commits
from rhumbline.ingest.facts import SourceFile
from rhumbline.ingest.failures import Failures
from rhumbline.ingest.graph.contributors import build_contributors
from rhumbline.ingest.graph.edges import EdgeSet
from rhumbline.ingest.graph.structure import build_structure
from rhumbline.ingest.languages.knowledge.facts import DocFacts
from rhumbline.ingest.languages.knowledge.graph import line_linked_files
from rhumbline.ingest.languages.python.graph import build_python_graph
from rhumbline.ingest.languages.python.interface import interface
from rhumbline.ingest.languages.python.packaging import CONFIG_FILES, package_dirs
from rhumbline.ingest.snapshots.facts_cache import FactCache
from rhumbline.ingest.snapshots.format import Partitioned, edge_partition, node_partition
from rhumbline.ingest.snapshots.history_records import rebase_history
from rhumbline.ingest.snapshots.records import Snapshot
from rhumbline.stores.graph.model import Edge, Node


@dataclass
class PartialBuild:
    """The changed files' partitions, before (stored) and after (rebuilt)."""

    parts: frozenset[str]  # the partitions rebuilt: the changed files' (and history's)
    before: Snapshot  # the stored records of those partitions
    after: Snapshot  # the rebuilt records (Snapshot.of(nodes, edges))
    nodes: list[Node]
    edges: list[Edge]
    unresolved_by_file: dict[str, int]  # the rebuilt Python files' unresolved call sites


class Planner:
    """build_graph's `partial` hook: (sources, history log) → a PartialBuild, or None for the
    full phase 2 (`reason` then says why)."""

    def __init__(
        self,
        base: Partitioned,
        cache: FactCache,
        context: Callable[[], tuple[str, str] | None],
        project: str,
        root: Path,
    ) -> None:
        # `context`: this ingest's (context, history) digests, known once phase 1 is done
        # (InputsKey).
        self.base = base
        self.cache = cache
        self.context = context
        self.project = project
        self.root = root
        self.reason = ""
        self.history_changed = False

    def __call__(self, sources: Sequence[SourceFile], log: str | None) -> PartialBuild | None:
        changed = self._changed(sources)
        if changed is None:
            return None
        return self._build(sources, log, changed)

    def _refuse(self, reason: str) -> None:
        self.reason = reason
        return None

    def _changed(self, sources: Sequence[SourceFile]) -> list[SourceFile] | None:
        base = self.base
        context, history = self.context() or (None, None)
        if base.context is None or base.context[0] != context:
            return self._refuse("the stored version was built from other code or options")
        self.history_changed = base.context[1] != history
        if len(sources) != len(base.files):
            return self._refuse("files were added, removed or renamed")
        changed = []
        for source in sources:
            stored = base.files.get(source.path)
            if stored is None or stored[0] != source.language:
                return self._refuse("files were added, removed or renamed")
            if stored[1] != source.content_hash:
                changed.append(source)
        if not changed and not self.history_changed:
            return self._refuse("no file changed")  # the inputs key decides this case
        for source in changed:
            if source.path.rpartition("/")[2] in CONFIG_FILES:
                return self._refuse(f"{source.path} may move Python packages")
            if source.code is None:
                continue  # no extractor: its File node is all it has
            if source.language != "python":
                return self._refuse(f"{source.path} is not Python")
            old = self.cache.facts(base.files[source.path][1], "python")
            if old is None or interface(old) != interface(source.code):
                return self._refuse(f"the interface of {source.path} changed")
        paths = {source.path for source in changed}
        for source in sources:
            if isinstance(source.code, DocFacts) and line_linked_files(source.path, source.code) & paths:
                return self._refuse(f"{source.path} links to a line of a changed file")
        return changed

    def _build(
        self, sources: Sequence[SourceFile], log: str | None, changed: list[SourceFile]
    ) -> PartialBuild | None:
        parts = frozenset(source.path for source in changed)
        sources = self.cache.complete(sources, parts)  # the calls of the files resolved here
        changed = [source for source in sources if source.path in parts]
        nodes: list[Node] = []
        built: list[Edge] = []
        unresolved: dict[str, int] = {}
        if changed:
            structure = EdgeSet()
            # Structure of the changed files alone: their File nodes and CONTAINS edges; the
            # Repository and Directory records it repeats depend on the paths only (the same).
            nodes = [n for n in build_structure(self.project, changed, structure) if n.file in parts]
            built = [e for e in structure.edges() if e.file in parts]
            edges = EdgeSet()
            failures = Failures()
            declared = package_dirs(self.root, (source.path for source in sources))
            python = build_python_graph(
                sources, self.root.name, edges, only=parts, failures=failures, package_dirs=declared
            )
            if failures:  # the full phase 2 reports it, with every other file's
                return self._refuse(f"resolving {failures.found[0].path} failed")
            nodes.extend(python.nodes)
            built.extend(edges.edges())
            unresolved = python.unresolved_by_file
        # Contributors depend on the log and the paths only: all of them, from the whole log.
        history = EdgeSet()
        people = build_contributors(commits(log), sources, history)
        if self.history_changed:
            code = Snapshot.of(nodes, built)
            if any(_outside(code, parts)):
                return self._refuse("the rebuilt files produced records outside their partitions")
            found = rebase_history(self.base, parts, code, Snapshot.of(people, history.edges()))
            if found is None:
                return self._refuse("a node disappeared (an edge of an unchanged file may point at it)")
            before, after, touched = found
            return PartialBuild(
                touched, before, after, [*nodes, *people], [*built, *history.edges()], unresolved
            )  # fmt: skip
        built.extend(e for e in history.edges() if e.file in parts)
        after = Snapshot.of(nodes, built)
        if any(_outside(after, parts)):
            return self._refuse("the rebuilt files produced records outside their partitions")
        before = Snapshot(*self.base.records(parts))
        if before.nodes.keys() - after.nodes.keys():
            return self._refuse("a node disappeared (an edge of an unchanged file may point at it)")
        return PartialBuild(parts, before, after, nodes, built, unresolved)


def _outside(snapshot: Snapshot, parts: frozenset[str]) -> Iterator[bool]:
    yield from (node_partition(r) not in parts for r in snapshot.nodes.values())
    yield from (edge_partition(r) not in parts for r in snapshot.edges.values())
