"""Ingest a local tree into a project's graph, as a new numbered graph version.

    versions.start (running)
    → read every file whose stat changed, parsing only those the facts cache lacks (phase 1):
      with the single reader (discover/parallel.py), or above a size as the shard plan
      (sharded/: shards by directory and size on a pluggable executor, one answer a shard),
      then store the updated facts cache (relational)
    → build what phase 2 needs: nothing when the inputs are the stored version's (inputs_key),
      the changed files' partitions when no interface changed (partial.py), else the whole graph
      (letting go of the cache's encoded facts, and of each language's once it is resolved)
    → the plan (plan.py): reuse, partial, diff against the stored version's snapshot, or clear
    → store the files' contents the version keeps
      (sources.py: a manifest, blobs shared by digest) while its snapshot is encoded beside (a
      clearing write's from scratch), then the snapshot
    → ONE atomic, conditional store.apply: only the difference, or the whole graph with
      clear=True (first ingest, `clear`, or the stored version has no snapshot)
    → versions.finish (completed, with counts) → prune old versions and the contents no version
      names any more (still under the lease) → refresh centrality (from the built graph's
      dependency pairs, kept through the write, when phase 2 built the whole graph).

Failure: any error before or in the apply leaves the store's graph (and its stamp) as they were,
finishes the version as failed and drops its snapshot: the previous version stays queryable and
diffable. The apply is conditional on the stamp (GraphBatch.expect_version), so a concurrent
ingest of the same project, or a crash between a write and its bookkeeping, can never make a
difference land on a graph it was not computed against: the apply raises GraphConflict instead.
One ingest per project at a time: the running version is the project's lease (ingest/lease.py),
renewed while the ingest runs; a second ingest is refused (IngestInProgress) naming the first. An
ingest past its `deadline` stops at its next check, before writing, and fails its version. A
killed process leaves its version 'running' with the same graph until its lease expires; the next
ingest of the project then fails it.
"""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from sqlalchemy import Engine

from rhumbline import centrality
from rhumbline.ingest import plan, sources
from rhumbline.ingest.build import build_graph, summarize
from rhumbline.ingest.discover.git import answers_kept, head_commit
from rhumbline.ingest.discover.parallel import Parse, read_all_encoded
from rhumbline.ingest.facts import SourceFile
from rhumbline.ingest.lease import Lease
from rhumbline.ingest.partial import Planner
from rhumbline.ingest.sharded.executors import ShardedReader, by_size
from rhumbline.ingest.snapshots import storage
from rhumbline.ingest.snapshots.facts_cache import FactCache, clear_cache
from rhumbline.ingest.snapshots.format import Partitioned
from rhumbline.ingest.snapshots.inputs_key import InputsKey
from rhumbline.ingest.snapshots.stat_index import StatIndex
from rhumbline.ingest.summary import IngestChanges, IngestSummary
from rhumbline.stores.graph.protocol import GraphStore
from rhumbline.stores.relational import versions
from rhumbline.stores.relational.session import session_scope
from rhumbline.stores.source_blobs import BlobStore, open_blob_store

log = logging.getLogger(__name__)

# Keys of IngestSummary that the version row already stores in their own columns.
_NOT_STATS = {"project", "version", "commit", "node_count", "edge_count"}


@dataclass(frozen=True)
class Options:
    exclude: Sequence[str]
    workers: int | None
    progress: Callable[[int, int], None] | None
    history: bool
    retention: int | None
    blobs: BlobStore
    parse: Parse  # phase 1's parser: the single reader, the shard plan, or either by size
    uploaded: Collection[str] = ()  # digests whose contents are in the bucket already


def ingest_local(
    root: Path,
    project: str,
    *,
    store: GraphStore,
    engine: Engine,
    clear: bool = False,
    exclude: Sequence[str] = (),
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    retention: int | None = None,
    history: bool = True,
    commit: str | None = None,
    holder: str | None = None,
    deadline: float | None = None,
    blobs: BlobStore | None = None,
    parse: Parse | None = None,
    started: tuple[int, int] | None = None,
    uploaded: Collection[str] = (),
) -> IngestSummary:
    """Parse `root` and make `project`'s graph the result, as a new graph version.

    `exclude`: gitignore-style patterns relative to the root, on top of .gitignore and the
    always-skipped directories. `clear`: drop the project's graph and facts cache first and
    rebuild everything (annotations live in the relational store and are kept). `workers`:
    parser processes (default min(4, CPUs); few files are parsed in this process), and how many
    language groups may resolve at once (ingest/groups.py).
    `progress(done, total)`: per file. `retention`: versions kept (default: settings,
    RHUMBLINE_GRAPH_RETENTION, 20). `history`: Contributor nodes from git history. `commit`:
    the commit a fetched tree without .git was taken from (default: git HEAD of the root).
    `holder`: who runs the ingest, named to a concurrent one that is refused. `deadline` (unix
    seconds): past it the ingest is cancelled before writing (DeadlineExceeded). `parse`: how
    phase 1 parses the files it has no facts for (discover.parallel.Parse): by default the single
    reader (read_all_encoded) up to sharded.executors.SHARDED_ABOVE_BYTES to parse, and the shard
    plan above it (ShardedReader: shards of the tree on a process pool, each handing back one
    answer of its files' facts; local mode). Both build the same graph. `started`: the
    (id, number) of a running version this ingest continues (a hosted run's plan step started it,
    holding the project's lease while its shards were parsed) instead of starting one.
    `uploaded`: digests of files whose contents a hosted run's workers stored in the bucket
    (sources.keep).
    """
    began = time.perf_counter()
    root = Path(root).resolve()
    if not root.is_dir():
        raise NotADirectoryError(f"ingest root {root} is not a directory")
    if blobs is None:
        from rhumbline.config import settings

        blobs = open_blob_store(settings().contents_bucket)
    options = Options(exclude, workers, progress, history, retention, blobs, parse or _by_size(), uploaded)
    # The plan, and the graph it holds, are freed inside _write: the collector resumes on little.
    with answers_kept(), _without_cycle_collection():  # answers_kept: git is asked once per root
        summary, same_topology, pairs = _write(
            root, project, store, engine, clear, commit, options, began, holder, deadline, started
        )  # fmt: skip
    # Betweenness for blast_radius, once per graph version (never raises; rhumbline/centrality.py).
    clock = time.perf_counter()
    # No dependency edge added or removed: the stored version's scores are this one's.
    base = summary.changes.base_version if same_topology else None
    centrality.refresh(store, engine, project, same_topology_as=base, pairs=pairs)
    summary.phase_seconds["centrality"] = round(time.perf_counter() - clock, 3)
    summary.duration_s = round(time.perf_counter() - began, 3)
    return summary


def _by_size() -> Parse:
    """The single reader, or above a size the shard plan on a process pool; a hosted ingest keeps
    the single reader: its distributed plan has its own."""
    from rhumbline.config import settings

    if settings().mode == "hosted":
        return read_all_encoded
    return by_size(ShardedReader())


def _write(
    root: Path, project: str, store: GraphStore, engine: Engine, clear: bool, commit: str | None,
    options: Options, started: float, holder: str | None, deadline: float | None,
    running: tuple[int, int] | None = None,
) -> tuple[IngestSummary, bool, list[tuple[str, str]] | None]:
    """A new version: built, planned, its snapshot stored, written, finished (or failed). Also
    whether the dependency topology is the stored version's, and the new graph's dependency
    pairs for centrality when phase 2 built it whole and that topology may have changed."""
    from rhumbline.config import settings

    commit = commit or head_commit(root)
    seconds = settings().ingest_lease_seconds
    if running is None:
        with session_scope(engine) as session:
            row = versions.start(session, project, commit_sha=commit, holder=holder, lease_seconds=seconds)
            running = row.id, row.version
    version_id, number = running
    applied = False
    lease = Lease(engine, version_id, seconds=seconds, deadline=deadline)
    try:
        with lease:
            checked = _checked(options, lease)
            if clear:
                clear_cache(engine, project)
            chosen, summary, inputs, files, pairs = _build(root, project, number, store, engine, clear, checked)
            summary.commit = commit
            lease.check()
            _keep_sources_and_snapshot(engine, options, project, version_id, root, files, chosen, inputs, summary, lease)
            lease.check()
            clock = time.perf_counter()
            store.apply(project, chosen.batch)
            applied = True
            if chosen.batch.clear:
                _restore_review_graph(store, engine, project)
            summary.phase_seconds["store"] = round(time.perf_counter() - clock, 3)
            summary.duration_s = round(time.perf_counter() - started, 3)
            with session_scope(engine) as session:
                versions.finish(
                    session, version_id, status="completed", node_count=summary.node_count,
                    edge_count=summary.edge_count, stats=summary.model_dump(mode="json", exclude=_NOT_STATS),
                )  # fmt: skip
            # Under the lease: no ingest of the project stores contents while they are collected.
            summary.changes.pruned_versions = prune(engine, project, options.retention, options.blobs)
    except BaseException as error:
        _mark_failed(engine, version_id, error, drop_snapshot=not applied)
        raise
    return summary, chosen.changes is not None and not chosen.changes.dependency_topology_changed, pairs


def _keep_sources_and_snapshot(
    engine: Engine, options: Options, project: str, version_id: int, root: Path, files: list[SourceFile],
    chosen: plan.Plan, inputs: str | None, summary: IngestSummary, lease: Lease,
) -> None:
    """Store the files' contents and the version's snapshot, both before the graph is written.
    The snapshot is encoded beside the contents' reading, hashing and storing, most of which runs
    in C without the GIL. Its bytes are not held past this call: the graph write that follows is
    the ingest's largest allocation."""
    with ThreadPoolExecutor(1, thread_name_prefix="ingest-snapshot") as beside:
        snapshot = beside.submit(chosen.snapshot)
        clock = time.perf_counter()
        kept = sources.keep(engine, options.blobs, project, version_id, root, files, options.uploaded)
        summary.changes.source_files, summary.changes.source_bytes_added = kept.files, kept.new_bytes
        summary.changes.source_files_withheld = kept.withheld
        summary.phase_seconds["sources"] = round(time.perf_counter() - clock, 3)
        clock = time.perf_counter()
        blob = snapshot.result()
    lease.check()
    summary.changes.snapshot_bytes = storage.save(engine, version_id, blob, inputs=inputs, counts=chosen.counts)
    summary.phase_seconds["snapshot"] = round(time.perf_counter() - clock, 3)  # beyond the sources'


def _checked(options: Options, lease: Lease) -> Options:
    """The options with the lease checked at every parsed chunk (its progress callback)."""
    report = options.progress

    def progress(done: int, total: int) -> None:
        lease.check()
        if report is not None:
            report(done, total)

    return replace(options, progress=progress)


def _build(
    root: Path, project: str, number: int, store: GraphStore, engine: Engine, clear: bool, options: Options
) -> tuple[plan.Plan, IngestSummary, str | None, list[SourceFile], list[tuple[str, str]] | None]:
    """Phases 1 and 2 against the version the store holds, the plan of the write, the digest of
    the inputs (InputsKey.value), the files read as text and the dependency pairs (_write)."""
    started = time.perf_counter()
    cache = FactCache.empty(project) if clear else FactCache.load(engine, project)
    base_version = None if clear else store.graph_version(project)
    base = None if base_version is None else storage.load_stored(engine, project, base_version)
    key = InputsKey(project, root.name, options.history, base.inputs if base is not None else None)
    # A version that never completed has no figures to build on: no partial path from it.
    stored = Partitioned.decode(base.blob) if base is not None and base.stats else None
    planner = None if stored is None else Planner(stored, cache, lambda: key.context, project, root)
    partial = planner
    if planner is not None and base is not None and (base.stats or {}).get("failure_count"):
        # Kept partitions would keep their failures unreported: every file is resolved again.
        planner.reason = "files failed in the stored version"
        partial = None
    if stored is not None:
        cache.known = StatIndex(stored.files, stored.read_ns)
        # Why a file was skipped may depend on the ingest code: trusted only from the same.
        if stored.context is not None and stored.context[0] == key.context_digest:
            cache.known_skipped = StatIndex(stored.skipped, stored.read_ns, stamp_at=1)
    version = plan.Version(number, base_version, key, cache, read_ns=time.time_ns())
    built = build_graph(
        root, project, exclude=options.exclude, workers=options.workers, progress=options.progress,
        cache=cache, history=options.history, unchanged=key, partial=partial, parse=options.parse,
        store_facts=lambda read: _save_cache(engine, cache, read),
        keep_facts=False,
    )  # fmt: skip
    clock = time.perf_counter()
    if base is None:
        chosen = plan.clear(version, built)
    elif built.reused:
        chosen = plan.reuse(version, built, base, stored)
    elif built.partial is not None and stored is not None:
        chosen = plan.partial(version, built, base, stored, built.partial)
    else:
        chosen = plan.diff(version, built, stored or Partitioned.decode(base.blob))
    # A clearing write compares nothing: its snapshot is encoded later, beside the sources.
    if chosen.changes is not None:
        built.seconds["diff"] = round(time.perf_counter() - clock, 3)
    summary = summarize(built, project=project, version=number, commit=None,
                        duration_s=time.perf_counter() - started)  # fmt: skip
    if chosen.figures is not None:
        summary = summary.model_copy(update=chosen.figures)
    summary.changes = _changes(chosen, base_version, cache)
    if planner is not None and built.partial is None:
        summary.changes.partial_refused = planner.reason or None
    # Everything that reads the files' facts has run: the snapshot, the contents and the write
    # that follow need each file's path, digest and size alone, so the facts go before them.
    built.sources = [source._replace(code=None) for source in built.sources]
    # The store would give the same pairs back after the write, slowly for a large graph: a
    # whole build holds them now (a list of pairs of the ids the graph already holds).
    whole = not built.reused and built.partial is None
    topology_changed = chosen.changes is None or chosen.changes.dependency_topology_changed
    pairs = centrality.dependency_pairs(built.nodes, built.edges) if whole and topology_changed else None
    return chosen, summary, key.value, built.sources, pairs


@contextmanager
def _without_cycle_collection() -> Iterator[None]:
    """An ingest allocates millions of small objects and frees almost none until it ends: the
    cyclic collector would walk them again and again without finding garbage."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _save_cache(engine: Engine, cache: FactCache, sources: Sequence[SourceFile]) -> None:
    """The cache only saves parsing: failing to update it (a concurrent ingest of the project
    wrote the same rows) costs the next ingest some parsing, never this ingest."""
    try:
        cache.save(engine, sources)
    except Exception:  # noqa: BLE001
        log.warning("could not update the facts cache of %s", cache.project, exc_info=True)


def _changes(chosen: plan.Plan, base_version: int | None, cache: FactCache) -> IngestChanges:
    """How the new version differs from the one the store holds (its snapshot's size is set
    once it is stored)."""
    common = {
        "base_version": base_version, "files_parsed": cache.stats.parsed,
        "files_reused": cache.stats.reused, "snapshot_bytes": 0, "pruned_versions": 0,
        "phase2": chosen.phase2,
    }  # fmt: skip
    changes = chosen.changes
    if changes is None:
        nodes, edges = chosen.counts
        return IngestChanges(
            mode="full", nodes_added=nodes, nodes_changed=0, nodes_removed=0,
            edges_added=edges, edges_changed=0, edges_removed=0, **common,
        )  # fmt: skip
    return IngestChanges(
        mode="unchanged" if chosen.phase2 == "skipped" else "incremental",
        nodes_added=changes.nodes_added, nodes_changed=changes.nodes_changed,
        nodes_removed=changes.nodes_removed, edges_added=changes.edges_added,
        edges_changed=changes.edges_changed, edges_removed=changes.edges_removed, **common,
    )  # fmt: skip


def prune(engine: Engine, project: str, retention: int | None = None, blobs: BlobStore | None = None) -> int:
    """Delete versions (and their snapshots and manifests) beyond the newest `retention`, then the
    stored contents no version names any more (in `blobs` too). Never fatal: the ingest already
    succeeded, and the next one prunes again."""
    if retention is None:
        from rhumbline.config import settings

        retention = settings().graph_retention
    try:
        with session_scope(engine) as session:
            pruned = versions.prune(session, project, keep=max(1, retention))
    except Exception:  # noqa: BLE001
        log.warning("pruning old graph versions of %s failed", project, exc_info=True)
        return 0
    if blobs is not None:
        try:
            sources.collect(engine, blobs, project)
        except Exception:  # noqa: BLE001
            log.warning("deleting the unnamed stored contents of %s failed", project, exc_info=True)
    return pruned


def _mark_failed(engine: Engine, version_id: int, error: BaseException, *, drop_snapshot: bool) -> None:
    try:
        if drop_snapshot:
            # The store never held this version: nothing may diff against it, nor read its files.
            storage.discard(engine, version_id)
            sources.discard(engine, version_id)
        with session_scope(engine) as session:
            versions.finish(
                session,
                version_id,
                status="failed",
                node_count=0,
                edge_count=0,
                error=f"{type(error).__name__}: {error}"[:2000],
            )
    except Exception as secondary:  # noqa: BLE001 — never hide the ingest's own error
        error.add_note(f"also failed to mark graph version {version_id} as failed: {secondary}")


def _restore_review_graph(store: GraphStore, engine: Engine, project: str) -> None:
    """A clearing write also drops the PullRequest nodes the webhooks projected into the graph;
    PRs live in the relational store, so project them again. Never fails the ingest: review tools
    read PRs from the relational store, the graph copy only links them to files."""
    from rhumbline.reviews.graph_projection import reproject
    from rhumbline.stores.relational import projects

    try:
        with session_scope(engine) as session:
            row = projects.get(session, project)
            if row is not None:
                reproject(store, project, session, row.id)
    except Exception:  # noqa: BLE001 - see the docstring
        log.exception("could not restore the pull-request graph of %s after a rebuild", project)
