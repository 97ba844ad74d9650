"""Tree on disk → complete graph (nodes and edges), without touching any store.

walk (which files) → phase 1 per file, possibly in a pool (read + parse + extract) → phase 2:
structure, then each language group's resolution over all its files (groups.py: in this process,
or above a size each group in a forked process), then documents' mentions and contributors.
"""

from __future__ import annotations

import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextvars import copy_context
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from rhumbline.ingest.discover import skiprules
from rhumbline.ingest.discover.git import commits, read_history
from rhumbline.ingest.discover.parallel import Parse, Progress, default_workers, read_all, read_all_encoded
from rhumbline.ingest.discover.walk import discover
from rhumbline.ingest.facts import SkippedFile, SourceFile
from rhumbline.ingest.failures import Failures, FileFailure
from rhumbline.ingest.graph.contributors import build_contributors
from rhumbline.ingest.graph.edges import EdgeSet
from rhumbline.ingest.graph.structure import build_structure
from rhumbline.ingest.languages.knowledge.graph import build_knowledge_graph
from rhumbline.ingest.languages.knowledge.facts import DocFacts
from rhumbline.ingest.groups import groups_of, resolve_groups
from rhumbline.ingest.languages.polyglot.build import files_by_family
from rhumbline.ingest.languages.python.packaging import package_dirs
from rhumbline.ingest.snapshots.facts_cache import FactCache
from rhumbline.ingest.summary import IngestFailure, IngestSummary, SkippedExample
from rhumbline.stores.graph.model import Edge, Node

if TYPE_CHECKING:
    from rhumbline.ingest.partial import PartialBuild

MAX_SKIPPED_EXAMPLES = 20
MAX_LISTED = 20  # failures and warnings listed in the summary (their counts are exact)
# Per reason, so a thousand binary .mo files do not hide the one symlink that escaped.
MAX_EXAMPLES_PER_REASON = 3


@dataclass
class BuiltGraph:
    nodes: list[Node]
    edges: list[Edge]
    sources: list[SourceFile]  # per-file phase-1 results: what an incremental ingest would reuse
    skipped: list[SkippedFile]
    unresolved_calls: int
    seconds: dict[str, float]  # per phase: walk, parse, resolve (the pipeline adds store)
    parsed: ParsedFiles
    # True: phase 2 was skipped, the inputs being those of the stored graph (build_graph's
    # `unchanged`); nodes and edges are then empty.
    reused: bool = False
    # Set when only the changed files' partitions were built (build_graph's `partial`); nodes
    # and edges are then empty, the partition's are in it.
    partial: PartialBuild | None = None
    unresolved_by_file: dict[str, int] = field(default_factory=dict)  # Python files
    failures: list[FileFailure] = field(default_factory=list)  # phase 2's (failures.py)
    warnings: list[str] = field(default_factory=list)  # e.g. ignore-file lines dropped


@dataclass(frozen=True)
class ParsedFiles:
    """What the summary says of the parsed files, read before phase 2 lets their facts go."""

    count: int
    syntax_errors: dict[str, int]  # language → files with syntax errors

    @classmethod
    def of(cls, sources: Sequence[SourceFile]) -> ParsedFiles:
        parsed = [source for source in sources if source.code is not None]
        errors = Counter(source.language or "unknown" for source in parsed if source.code.syntax_errors)
        return cls(len(parsed), dict(sorted(errors.items())))


# (sources, git history log or None) → whether the stored graph was built from exactly these.
Unchanged = Callable[[Sequence[SourceFile], "str | None"], bool]
# (sources, git history log or None) → the changed files' partitions, or None: build everything.
Partial = Callable[[Sequence[SourceFile], "str | None"], "PartialBuild | None"]
# Every file read (phase 1's outcomes) → None: the caller stores the facts cache.
StoreFacts = Callable[[Sequence[SourceFile]], None]


def build_graph(
    root: Path,
    project: str,
    *,
    exclude: Sequence[str] = (),
    workers: int | None = None,
    progress: Progress | None = None,
    cache: FactCache | None = None,
    history: bool = True,
    unchanged: Unchanged | None = None,
    partial: Partial | None = None,
    parse: Parse | None = None,
    store_facts: StoreFacts | None = None,
    keep_facts: bool = True,
) -> BuiltGraph:
    """`workers`: parser processes, and language groups resolved at once (groups.py; default
    min(4, CPUs)). `cache`: phase-1 facts of earlier ingests (snapshots/facts_cache.py), parsing
    only files it lacks.
    `parse`: how files are parsed (read_all_encoded's signature; default the single reader,
    discover/parallel.py; the shard plan is sharded/executors.py's ShardedReader).
    `history`: add Contributor nodes from git history when the root is a git checkout.
    `unchanged(sources, history log)`: True when the caller knows these inputs give the graph it
    already has; phase 2 is then skipped and the result has no nodes or edges (`reused`).
    `partial(sources, history log)`: the changed files' partitions when building only those is
    exact (partial.py), else None and the whole phase 2 runs.
    `store_facts(sources)`: called once every file is read, before phase 2 (to store the facts
    cache). `keep_facts=False`: a whole phase 2 lets go of the cache's encoded facts
    (FactCache.let_go) and of each language's facts once that language is resolved, and the
    result's sources carry none: what an ingest wants, the graph never sitting beside every
    file's facts."""
    return _build(
        root.resolve(), project, exclude, workers, progress, cache, history, unchanged, partial, parse,
        store_facts, keep_facts,
    )  # fmt: skip


def _build(
    root: Path,
    project: str,
    exclude: Sequence[str],
    workers: int | None,
    progress: Progress | None,
    cache: FactCache | None = None,
    history: bool = True,
    unchanged: Unchanged | None = None,
    partial: Partial | None = None,
    parse: Parse | None = None,
    store_facts: StoreFacts | None = None,
    keep_facts: bool = True,
) -> BuiltGraph:
    clock = time.perf_counter()
    seconds: dict[str, float] = {}

    def lap(phase: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        seconds[phase] = round(now - clock, 3)
        clock = now

    discovery = discover(root, exclude)
    lap("walk")
    # git reads its history while the files are parsed: a subprocess, waited on without the GIL.
    with ThreadPoolExecutor(1, thread_name_prefix="ingest-history") as beside:
        history_log = beside.submit(copy_context().run, read_history, root) if history else None
        if cache is not None:
            outcomes = cache.read_all(
                root, discovery.paths, workers=workers, progress=progress, parse=parse or read_all_encoded
            )  # fmt: skip
        elif parse is not None:
            outcomes = [outcome for outcome, _ in parse(root, discovery.paths, workers=workers, progress=progress)]
        else:
            outcomes = read_all(root, discovery.paths, workers=workers, progress=progress)
        lap("parse")
        log = history_log.result() if history_log is not None else None
    sources = [outcome for outcome in outcomes if isinstance(outcome, SourceFile)]
    skipped = [*discovery.skipped, *(o for o in outcomes if isinstance(o, SkippedFile))]
    del outcomes
    parsed = ParsedFiles.of(sources)
    if store_facts is not None:
        store_facts(sources)
        lap("facts_cache")
    if unchanged is not None and unchanged(sources, log):
        return BuiltGraph([], [], sources, skipped, 0, seconds, parsed, reused=True, warnings=discovery.warnings)
    rebuilt = partial(sources, log) if partial is not None else None
    if rebuilt is not None:
        lap("resolve")
        return BuiltGraph([], [], sources, skipped, 0, seconds, parsed, partial=rebuilt, warnings=discovery.warnings)
    if cache is not None:
        sources = cache.complete(sources)  # every file is resolved: its calls are needed
        if not keep_facts:
            cache.let_go()
    edges = EdgeSet()
    failures = Failures()
    # Each language's facts are handed to the step that resolves them, and unless kept go once
    # it has: the graph grows as they go, so the two are never both whole. Documents resolve last.
    python_files = [s for s in sources if s.language == "python" and s.code is not None]
    families = files_by_family(sources)
    if not keep_facts:
        sources = [s if s.code is None or isinstance(s.code, DocFacts) else s._replace(code=None) for s in sources]
    nodes = build_structure(project, sources, edges)
    declared = package_dirs(root, (source.path for source in sources))
    groups = groups_of(python_files, families)
    del python_files, families
    workers = default_workers() if workers is None else workers
    resolved = resolve_groups(groups, root, edges, failures, package_dirs=declared, workers=workers)
    nodes.extend(resolved.nodes)
    unresolved = resolved.unresolved_calls
    # Last, after every language: mentions in documents resolve against all code nodes.
    try:
        nodes.extend(build_knowledge_graph(sources, nodes, edges).nodes)
    except Exception as error:  # noqa: BLE001 — reported; the code graph stands without documents
        failures.add("(documents)", "knowledge", error)
    if not keep_facts:
        sources = [s._replace(code=None) if s.code is not None else s for s in sources]
    nodes.extend(build_contributors(commits(log), sources, edges))
    built_edges = edges.take()
    if failures:  # a failed file may have left edges to nodes it never made
        built_edges = _between(nodes, built_edges)
    built = BuiltGraph(
        nodes, built_edges, sources, skipped, unresolved, seconds, parsed, failures=failures.found,
        warnings=discovery.warnings,
    )  # fmt: skip
    built.unresolved_by_file = resolved.unresolved_by_file
    lap("resolve")
    return built


def _between(nodes: list[Node], edges: list[Edge]) -> list[Edge]:
    """The edges whose both ends are among `nodes`."""
    ids = {node.id for node in nodes}
    return [edge for edge in edges if edge.source in ids and edge.target in ids]


def summarize(
    built: BuiltGraph, *, project: str, version: int, commit: str | None, duration_s: float
) -> IngestSummary:
    files_by_language: Counter[str] = Counter()
    lines_by_language: Counter[str] = Counter()
    for source in built.sources:
        language = source.language or "unknown"
        files_by_language[language] += 1
        lines_by_language[language] += source.line_count
    failures = [
        *(FileFailure(s.path, "extract", s.detail) for s in built.skipped if s.reason == skiprules.EXTRACTION_FAILED),
        *built.failures,
    ]
    return IngestSummary(
        project=project,
        version=version,
        commit=commit,
        files=len(built.sources),
        parsed_files=built.parsed.count,
        files_by_language=dict(sorted(files_by_language.items())),
        lines_by_language=dict(sorted(lines_by_language.items())),
        skipped=dict(sorted(Counter(skip.reason for skip in built.skipped).items())),
        skipped_examples=_examples(built.skipped),
        nodes_by_kind=dict(sorted(Counter(node.kind for node in built.nodes).items())),
        edges_by_relation=dict(sorted(Counter(edge.relation for edge in built.edges).items())),
        node_count=len(built.nodes),
        edge_count=len(built.edges),
        unresolved_calls=built.unresolved_calls,
        files_with_syntax_errors=sum(built.parsed.syntax_errors.values()),
        syntax_errors_by_language=built.parsed.syntax_errors,
        failure_count=len(failures),
        failures=[IngestFailure(file=f.path, stage=f.stage, reason=f.reason) for f in failures[:MAX_LISTED]],
        warning_count=len(built.warnings),
        warnings=built.warnings[:MAX_LISTED],
        duration_s=round(duration_s, 3),
        phase_seconds=built.seconds,
    )


def _examples(skipped: list[SkippedFile]) -> list[SkippedExample]:
    per_reason: Counter[str] = Counter()
    examples = []
    for skip in sorted(skipped, key=lambda skip: not skip.detail):  # those that say why first
        if per_reason[skip.reason] < MAX_EXAMPLES_PER_REASON:
            per_reason[skip.reason] += 1
            examples.append(SkippedExample(path=skip.path, reason=skip.reason, detail=skip.detail))
    return examples[:MAX_SKIPPED_EXAMPLES]
