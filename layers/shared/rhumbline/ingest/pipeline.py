"""Ingest a local tree into a project's graph, as a new numbered graph version.

    versions.start (running)
    → read every file whose stat changed, parsing only those the facts cache lacks (phase 1)
    → inputs identical to those the stored version was built from (inputs_key)? then the stored
      graph is the result: phase 2 is skipped, nothing is written but the version stamp
    → else, when only files whose interface did not change changed (partial.py), rebuild only
      their partitions and compare them with the stored version's; otherwise build the whole new
      graph in memory (phase 2) and compare it with the snapshot of the version the store holds
      (its stamp)
    → store this version's snapshot and the updated facts cache (relational)
    → ONE atomic, conditional store.apply: only the difference (incremental), or the whole graph
      with clear=True (first ingest, `clear`, or the stored version has no snapshot); a clearing
      write's snapshot and betweenness are computed by a forked child during the write; the
      snapshot is stored after it (snapshot_ahead.py)
    → versions.finish (completed, with counts) → prune versions beyond the retention.

Failure: any error before or in the apply leaves the store's graph (and its stamp) as they were,
finishes the version as failed and drops its snapshot: the previous version stays queryable and
diffable. A clearing write whose snapshot cannot be stored after it finishes its version as failed
with the store at that version and no snapshot: the next ingest has no base and clears again.
The apply is conditional on the stamp (GraphBatch.expect_version), so a concurrent ingest of the
same project, or a crash between a write and its bookkeeping, can never make a difference land
on a graph it was not computed against: the apply raises GraphConflict instead.
A killed process leaves its version 'running' (nobody is left to mark it), with the same graph.
"""

from __future__ import annotations

import gc
import logging
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Engine

from rhumbline import centrality_ahead, forked
from rhumbline.ingest import snapshot_ahead, snapshots
from rhumbline.ingest.build import BuiltGraph, build_graph, summarize
from rhumbline.ingest.git import answers_kept, head_commit
from rhumbline.ingest.facts import SourceFile
from rhumbline.ingest.incremental import FactCache, clear_cache, graph_changes
from rhumbline.ingest.inputs_key import InputsKey
from rhumbline.ingest.partial import PartialBuild, Planner
from rhumbline.ingest.partitioned import Partitioned, split
from rhumbline.ingest.snapshots import Snapshot
from rhumbline.ingest.stat_index import StatIndex, files_table, skipped_table
from rhumbline.ingest.summary import IngestChanges, IngestSummary
from rhumbline.stores.graph.model import GraphBatch
from rhumbline.stores.graph.protocol import GraphStore
from rhumbline.stores.relational import versions
from rhumbline.stores.relational.session import session_scope

if TYPE_CHECKING:
    from rhumbline.stores.graph.texts_ahead import TextsAhead

log = logging.getLogger(__name__)

# Keys of IngestSummary that the version row already stores in their own columns.
_NOT_STATS = {"project", "version", "commit", "node_count", "edge_count"}


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
) -> IngestSummary:
    """Parse `root` and make `project`'s graph the result, as a new graph version.

    `exclude`: gitignore-style patterns relative to the root, on top of .gitignore and the
    always-skipped directories. `clear`: drop the project's graph and facts cache first and
    rebuild everything (annotations live in the relational store and are kept). `workers`:
    parser processes (default min(4, CPUs); few files are parsed in this process).
    `progress(done, total)`: per file. `retention`: versions kept (default: settings,
    RHUMBLINE_GRAPH_RETENTION, 20). `history`: Contributor nodes from git history.
    """
    with answers_kept():  # whether git describes the root: asked once, not three times
        return _ingest(
            root, project, store=store, engine=engine, clear=clear, exclude=exclude,
            workers=workers, progress=progress, retention=retention, history=history, commit=commit,
        )  # fmt: skip


def _ingest(
    root: Path,
    project: str,
    *,
    store: GraphStore,
    engine: Engine,
    clear: bool,
    exclude: Sequence[str],
    workers: int | None,
    progress: Callable[[int, int], None] | None,
    retention: int | None,
    history: bool,
    commit: str | None,
) -> IngestSummary:
    started = time.perf_counter()
    root = Path(root).resolve()
    if not root.is_dir():
        raise NotADirectoryError(f"ingest root {root} is not a directory")
    commit = commit or head_commit(root)  # `commit`: a fetched tree without .git names its own
    with session_scope(engine) as session:
        version = versions.start(session, project, commit_sha=commit)
        version_id, number = version.id, version.version
    applied = False
    ahead: centrality_ahead.Ahead | None = None
    encoding: forked.Forked | None = None  # the snapshot of a clearing write (snapshot_ahead.py)
    # No cyclic collection until the heap is frozen after phase 2: what is loaded and built until
    # then lives until the end, and the first collection after build_graph re-enabled the
    # collector walked all of it (young, never scanned): 27k objects and 0.03-0.15 s of a one-file
    # re-ingest of django/, the whole graph after a full one. The cycles phase 2 leaves (the Python
    # resolver's tables) are then freed after the ingest, by a later full collection.
    collecting = gc.isenabled()
    gc.disable()
    texts_ahead: TextsAhead | None = None  # and its nodes' search text, for SQLite (texts_ahead.py)
    try:
        if clear:
            clear_cache(engine, project)
            cache = FactCache.empty(project)
        else:
            cache = FactCache.load(engine, project)
        base_version = None if clear else store.graph_version(project)
        base = None
        if base_version is not None:
            base = snapshots.load_stored(engine, project, base_version)
        key = InputsKey(project, root.name, history, base.inputs if base is not None else None)
        stored = Partitioned.decode(base.blob) if base is not None and base.stats else None
        planner = None if stored is None else Planner(stored, cache, lambda: key.context, project, root)
        if stored is not None:
            cache.known = StatIndex(stored.files, stored.read_ns)
            # Why a file was skipped may depend on the ingest code: trusted only from the same.
            if stored.context is not None and stored.context[0] == key.context_digest:
                cache.known_skipped = StatIndex(stored.skipped, stored.read_ns, stamp_at=1)
        read_ns = time.time_ns()
        built = build_graph(
            root, project, exclude=exclude, workers=workers, progress=progress, cache=cache,
            history=history, unchanged=key, partial=planner,
        )  # fmt: skip
        # The graph lives until the end: later collections need not walk it (forked.py).
        forked.freeze_heap()
        if collecting:
            gc.enable()
        clock = time.perf_counter()
        if built.reused:
            # The stored graph is the result: only the stamp moves to this version.
            changes = graph_changes(_EMPTY, _EMPTY, (), ())
            batch = changes.batch(version=number, expect_version=base_version)
            blob, counts = base.blob, (base.node_count, base.edge_count)
            if stored is not None:  # the same chunks; this ingest's stat stamps for the next one
                blob = replace(
                    stored, files=files_table(built.sources, cache.stamps), read_ns=read_ns,
                    skipped=skipped_table(built.skipped, cache.stamps),
                ).encode()  # fmt: skip
        elif built.partial is not None:
            part = built.partial
            changes = graph_changes(part.before, part.after, part.nodes, part.edges)
            batch = changes.batch(version=number, expect_version=base_version)
            unresolved = {**stored.unresolved, **part.unresolved_by_file}
            records = split(part.after.nodes, part.after.edges)
            partitioned = stored.replaced(
                {path: records.get(path, ({}, {})) for path in part.parts},
                files=files_table(built.sources, cache.stamps), unresolved=unresolved, read_ns=read_ns,
                skipped=skipped_table(built.skipped, cache.stamps), context=key.context,
            )  # fmt: skip
            blob, counts = partitioned.encode(), (partitioned.node_count, partitioned.edge_count)
        else:
            old = None if base is None else stored or Partitioned.decode(base.blob)
            inputs = {
                "files": files_table(built.sources, cache.stamps), "unresolved": _unresolved(built),
                "context": key.context, "read_ns": read_ns,
                "skipped": skipped_table(built.skipped, cache.stamps),
            }  # fmt: skip
            if old is None:
                # Nothing to diff against: a clearing write, whose snapshot and betweenness a
                # child computes while the store writes (snapshot_ahead.py); the snapshot is
                # stored after the write.
                changes, blob = None, None
                # A SQLite write also takes the later nodes' search text from it (texts_ahead.py).
                texts = store.backend == "sqlite"
                encoding = snapshot_ahead.start(project, built.nodes, built.edges, inputs, texts=texts)
                texts_ahead = snapshot_ahead.texts_of(encoding) if texts else None
                batch = GraphBatch(
                    nodes=built.nodes, edges=built.edges, clear=True, version=number,
                    texts_ahead=texts_ahead,
                )  # fmt: skip
            else:
                snapshot = Snapshot.of(built.nodes, built.edges)
                counts = (len(snapshot.nodes), len(snapshot.edges))
                old_parts = old.decoded()
                blob = Partitioned.of(
                    snapshot.nodes, snapshot.edges, like=old, like_parts=old_parts, **inputs
                ).encode()
                before = Snapshot({}, {})
                for part_nodes, part_edges in old_parts.values():
                    before.nodes.update(part_nodes)
                    before.edges.update(part_edges)
                changes = graph_changes(before, snapshot, built.nodes, built.edges)
                batch = changes.batch(version=number, expect_version=base_version)
        if blob is not None:
            snapshot_bytes = snapshots.save(engine, version_id, None, blob, inputs=key.value, counts=counts)
        _save_cache(engine, cache, built.sources)
        diff_seconds = time.perf_counter() - clock
        writing = time.perf_counter()
        store.apply(project, batch)
        applied = True
        if batch.clear:
            _restore_review_graph(store, engine, project)
        built.seconds["store"] = round(time.perf_counter() - writing, 3)
        if blob is None:
            # After the write: a failure here leaves the store at this version without its
            # snapshot, and the next ingest rebuilds with a clearing write (no base to diff).
            clock = time.perf_counter()
            # The child also computed centrality (a full write always needs new scores).
            found, ahead = snapshot_ahead.result(
                encoding, built.nodes, built.edges, inputs, texts_ahead
            )
            blob, counts, encoding = found[0], (found[1], found[2]), None
            snapshot_bytes = snapshots.save(engine, version_id, None, blob, inputs=key.value, counts=counts)
            diff_seconds += time.perf_counter() - clock
        built.seconds["diff"] = round(diff_seconds, 3)
        summary = summarize(
            built,
            project=project,
            version=number,
            commit=commit,
            duration_s=time.perf_counter() - started,
        )
        if built.reused:
            _copy_graph_figures(summary, base)
        elif built.partial is not None:
            _partial_graph_figures(summary, base, built.partial, sum(unresolved.values()))
        summary.changes = _changes(counts, changes, base_version, cache, snapshot_bytes, built.reused)
        summary.changes.phase2 = "skipped" if built.reused else "partial" if built.partial else "full"
        summary.changes.partial_refused = (planner.reason or None) if planner and not built.partial else None
        with session_scope(engine) as session:
            versions.finish(
                session,
                version_id,
                status="completed",
                node_count=summary.node_count,
                edge_count=summary.edge_count,
                stats=summary.model_dump(mode="json", exclude=_NOT_STATS),
            )
    except BaseException as error:
        if encoding is not None:
            encoding.close()
        _mark_failed(engine, version_id, error, drop_snapshot=not applied)
        forked.thaw_heap()
        if collecting:
            gc.enable()
        raise
    summary.changes.pruned_versions = prune(engine, project, retention)
    # Betweenness for blast_radius, once per graph version (never raises; rhumbline/centrality.py).
    from rhumbline import centrality

    clock = time.perf_counter()
    # No dependency edge added or removed: the stored version's scores are this one's.
    same = changes is not None and not changes.dependency_topology_changed
    centrality.refresh(
        store, engine, project, same_topology_as=base_version if same else None, ahead=ahead
    )
    summary.phase_seconds["centrality"] = round(time.perf_counter() - clock, 3)
    forked.thaw_heap()
    summary.duration_s = round(time.perf_counter() - started, 3)
    return summary


_EMPTY = Snapshot(nodes={}, edges={})


def _save_cache(engine: Engine, cache: FactCache, sources: Sequence[SourceFile]) -> None:
    """The cache only saves parsing: failing to update it (a concurrent ingest of the project
    wrote the same rows) costs the next ingest some parsing, never this ingest."""
    try:
        cache.save(engine, sources)
    except Exception:  # noqa: BLE001
        log.warning("could not update the facts cache of %s", cache.project, exc_info=True)


def _copy_graph_figures(summary: IngestSummary, base: snapshots.StoredSnapshot) -> None:
    """The graph's figures of a version that reuses the stored graph: the stored version's."""
    stats = base.stats or {}
    summary.node_count, summary.edge_count = base.node_count, base.edge_count
    summary.nodes_by_kind = stats.get("nodes_by_kind", {})
    summary.edges_by_relation = stats.get("edges_by_relation", {})
    summary.unresolved_calls = stats.get("unresolved_calls", 0)


def _partial_graph_figures(
    summary: IngestSummary, base: snapshots.StoredSnapshot, part: PartialBuild, unresolved: int
) -> None:
    """The figures of a partial build: the stored version's, minus the rebuilt files' stored
    records, plus their new ones."""
    stats = base.stats or {}
    kinds = Counter(stats.get("nodes_by_kind", {}))
    kinds.subtract(record[0] for record in part.before.nodes.values())
    kinds.update(record[0] for record in part.after.nodes.values())
    relations = Counter(stats.get("edges_by_relation", {}))
    relations.subtract(key[1] for key in part.before.edges)
    relations.update(key[1] for key in part.after.edges)
    summary.nodes_by_kind = {k: n for k, n in sorted(kinds.items()) if n}
    summary.edges_by_relation = {r: n for r, n in sorted(relations.items()) if n}
    summary.node_count = sum(summary.nodes_by_kind.values())
    summary.edge_count = sum(summary.edges_by_relation.values())
    summary.unresolved_calls = unresolved


def _unresolved(built: BuiltGraph) -> dict[str, int]:
    """Unresolved call sites per Python file, and under "" every other language's."""
    python = built.unresolved_by_file
    return {**python, "": built.unresolved_calls - sum(python.values())}


def _changes(
    counts: tuple[int, int],
    changes: object | None,
    base_version: int | None,
    cache: FactCache,
    snapshot_bytes: int,
    reused: bool,
) -> IngestChanges:
    common = {
        "base_version": base_version,
        "files_parsed": cache.stats.parsed,
        "files_reused": cache.stats.reused,
        "snapshot_bytes": snapshot_bytes,
        "pruned_versions": 0,
    }
    if changes is None:
        return IngestChanges(
            mode="full",
            nodes_added=counts[0],
            nodes_changed=0,
            nodes_removed=0,
            edges_added=counts[1],
            edges_changed=0,
            edges_removed=0,
            **common,
        )
    return IngestChanges(
        mode="unchanged" if reused else "incremental",
        nodes_added=changes.nodes_added,  # type: ignore[attr-defined]
        nodes_changed=changes.nodes_changed,  # type: ignore[attr-defined]
        nodes_removed=changes.nodes_removed,  # type: ignore[attr-defined]
        edges_added=changes.edges_added,  # type: ignore[attr-defined]
        edges_changed=changes.edges_changed,  # type: ignore[attr-defined]
        edges_removed=changes.edges_removed,  # type: ignore[attr-defined]
        **common,
    )


def prune(engine: Engine, project: str, retention: int | None = None) -> int:
    """Delete versions (and their snapshots) beyond the newest `retention`. Never fatal: the
    ingest already succeeded, and the next one prunes again."""
    if retention is None:
        from rhumbline.config import settings

        retention = settings().graph_retention
    try:
        with session_scope(engine) as session:
            return versions.prune(session, project, keep=max(1, retention))
    except Exception:  # noqa: BLE001
        log.warning("pruning old graph versions of %s failed", project, exc_info=True)
        return 0


def _mark_failed(engine: Engine, version_id: int, error: BaseException, *, drop_snapshot: bool) -> None:
    try:
        if drop_snapshot:
            # The store never held this version: nothing may diff against it.
            snapshots.discard(engine, version_id)
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
