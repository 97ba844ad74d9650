"""Snapshots in the relational store: one `graph_snapshots` row per graph version, its bytes in
`graph_snapshot_parts` of at most PART_BYTES each (a row written before the parts existed keeps
its bytes in its own `blob`, and still loads).

A row of an older format than FORMAT counts as no snapshot: the next ingest rewrites the graph,
and graph_diff says the version cannot be diffed. The rows go with their versions when old
versions are pruned (retention, default 20: RHUMBLINE_GRAPH_RETENTION).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, Select, delete, insert, select
from sqlalchemy.orm import Session

from rhumbline.ingest.snapshots.format import FORMAT, Partitioned
from rhumbline.ingest.snapshots.records import Snapshot
from rhumbline.stores.relational.schema.ingest import GraphSnapshot, GraphSnapshotPart
from rhumbline.stores.relational.schema.core import GraphVersion, Project
from rhumbline.stores.relational.session import session_scope

# The driver sends a bytea parameter as hex text in several transient copies, and PostgreSQL caps
# the size of one value: parts this size keep each statement's memory small whatever the
# snapshot's size, in few enough round trips.
PART_BYTES = 8 * 1024 * 1024


def save(
    engine: Engine, version_id: int, blob: bytes, *, inputs: str | None, counts: tuple[int, int]
) -> int:
    """Store the snapshot of a graph version (replacing any): `blob` (Partitioned.encode) with
    its node and edge `counts`; `inputs`: what it was built from (InputsKey.value). Returns its
    size in bytes. One transaction: the version has the whole snapshot or none."""
    view = memoryview(blob)
    with session_scope(engine) as session:
        # The old row's parts go with it (ON DELETE CASCADE).
        session.execute(delete(GraphSnapshot).where(GraphSnapshot.version_id == version_id))
        session.add(
            GraphSnapshot(
                version_id=version_id,
                format=FORMAT,
                node_count=counts[0],
                edge_count=counts[1],
                inputs=inputs,
                blob=b"",
            )
        )
        session.flush()
        for seq, start in enumerate(range(0, len(view), PART_BYTES)):
            # One part's copy at a time: pg8000 would send a memoryview as its repr.
            part = bytes(view[start : start + PART_BYTES])
            session.execute(insert(GraphSnapshotPart).values(version_id=version_id, seq=seq, data=part))
    return len(blob)


def _of_version(project: str, version: int, *columns: Any) -> Select[Any]:
    """`columns` of the snapshot row of `project`'s graph version `version`, if of this FORMAT."""
    return (
        select(*columns)
        .join(GraphVersion, GraphVersion.id == GraphSnapshot.version_id)
        .join(Project, Project.id == GraphVersion.project_id)
        .where(Project.slug == project, GraphVersion.version == version)
        .where(GraphSnapshot.format == FORMAT)
    )


def _joined(session: Session, version_id: int, blob: bytes) -> bytes:
    """A snapshot's bytes: its parts in order, or the row's own blob when it has none (a row
    written before the parts)."""
    parts = session.scalars(
        select(GraphSnapshotPart.data).where(GraphSnapshotPart.version_id == version_id).order_by(GraphSnapshotPart.seq)
    ).all()
    return b"".join(parts) if parts else blob


@dataclass(frozen=True)
class StoredSnapshot:
    blob: bytes
    inputs: str | None
    node_count: int
    edge_count: int
    stats: dict[str, Any] | None  # the version's summary stats (graph_versions.stats)


def load_stored(engine: Engine, project: str, version: int) -> StoredSnapshot | None:
    """A version's snapshot with what an ingest reusing it needs, or None (see load_blob)."""
    with session_scope(engine) as session:
        found = session.execute(
            _of_version(
                project,
                version,
                GraphSnapshot.version_id,
                GraphSnapshot.blob,
                GraphSnapshot.inputs,
                GraphSnapshot.node_count,
                GraphSnapshot.edge_count,
                GraphVersion.stats,
            )
        ).first()
        if found is None:
            return None
        version_id, blob, *rest = found
        return StoredSnapshot(_joined(session, version_id, blob), *rest)


def discard(engine: Engine, version_id: int) -> None:
    with session_scope(engine) as session:
        session.execute(delete(GraphSnapshot).where(GraphSnapshot.version_id == version_id))


def load_blob(engine: Engine, project: str, version: int) -> bytes | None:
    """The stored snapshot of `project`'s graph version `version`, or None (never stored, failed
    before it was written, pruned, or of an older format)."""
    with session_scope(engine) as session:
        found = session.execute(_of_version(project, version, GraphSnapshot.version_id, GraphSnapshot.blob)).first()
        return _joined(session, *found) if found is not None else None


def load(engine: Engine, project: str, version: int) -> Snapshot | None:
    blob = load_blob(engine, project, version)
    return Snapshot(*Partitioned.decode(blob).records()) if blob is not None else None


def load_partitioned(engine: Engine, project: str, version: int) -> Partitioned | None:
    blob = load_blob(engine, project, version)
    return Partitioned.decode(blob) if blob is not None else None


def versions_with_snapshots(
    engine: Engine, project: str, *, status: str | None = "completed"
) -> list[int]:
    """Version numbers of `project` that can be diffed (a snapshot is kept), newest first."""
    query = (
        select(GraphVersion.version)
        .join(GraphSnapshot, GraphSnapshot.version_id == GraphVersion.id)
        .join(Project, Project.id == GraphVersion.project_id)
        .where(Project.slug == project, GraphSnapshot.format == FORMAT)
        .order_by(GraphVersion.version.desc())
    )
    if status is not None:
        query = query.where(GraphVersion.status == status)
    with session_scope(engine) as session:
        return list(session.scalars(query))
