"""Ingest a local tree into a project's graph, as a new numbered graph version.

versions.start (running) → build the whole graph in memory → one atomic store.apply that
replaces the project's graph → versions.finish (completed, with counts). Any failure finishes the
version as failed and re-raises; the write being one atomic batch, the previous graph stays.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

from sqlalchemy import Engine

from rhumbline.ingest.build import build_graph, summarize
from rhumbline.ingest.git import head_commit
from rhumbline.ingest.summary import IngestSummary
from rhumbline.stores.graph.protocol import GraphBatch, GraphStore
from rhumbline.stores.relational import versions
from rhumbline.stores.relational.session import session_scope

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
) -> IngestSummary:
    """Parse `root` and replace `project`'s graph with the result.

    `exclude`: gitignore-style patterns relative to the root, on top of .gitignore and the
    always-skipped directories. `clear`: this ingester always rebuilds the whole graph, so the
    graph is replaced either way; the flag starts to matter once ingestion is incremental (it will
    force a rebuild instead of updating changed files). `workers`: parser processes (default
    min(4, CPUs); small trees are parsed in this process). `progress(done, total)`: per parsed file.
    """
    started = time.perf_counter()
    root = Path(root).resolve()
    if not root.is_dir():
        raise NotADirectoryError(f"ingest root {root} is not a directory")
    commit = head_commit(root)
    with session_scope(engine) as session:
        version = versions.start(session, project, commit_sha=commit)
        version_id, number = version.id, version.version
    try:
        built = build_graph(root, project, exclude=exclude, workers=workers, progress=progress)
        writing = time.perf_counter()
        store.apply(project, GraphBatch(nodes=built.nodes, edges=built.edges, clear=True))
        built.seconds["store"] = round(time.perf_counter() - writing, 3)
        summary = summarize(
            built,
            project=project,
            version=number,
            commit=commit,
            duration_s=time.perf_counter() - started,
        )
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
        _mark_failed(engine, version_id, error)
        raise
    return summary


def _mark_failed(engine: Engine, version_id: int, error: BaseException) -> None:
    try:
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
