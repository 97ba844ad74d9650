"""The stored files of graph versions: each version's manifest (`version_files`) and the blobs it
names (`source_blobs`), one per project and digest (schema/sources.py)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, delete, exists, insert, literal, select
from sqlalchemy.orm import Session

from rhumbline.stores.relational.schema.core import GraphVersion, Project
from rhumbline.stores.relational.schema.sources import SourceBlob, VersionFile

# Rows per INSERT and IN (...) list: well under SQLite's and pg8000's parameter limits.
_CHUNK = 500


@dataclass(frozen=True)
class Entry:
    path: str
    digest: str
    size: int


@dataclass(frozen=True)
class StoredFile:
    project_id: int
    version: int
    path: str
    digest: str
    size: int
    content: bytes | None  # None: the blob is in the deployment's bucket


def stored_digests(session: Session, project_id: int, digests: Collection[str]) -> set[str]:
    """Those of `digests` whose blob the project already has."""
    wanted = sorted(set(digests))
    found: set[str] = set()
    for start in range(0, len(wanted), _CHUNK):
        found.update(
            session.scalars(
                select(SourceBlob.digest)
                .where(SourceBlob.project_id == project_id)
                .where(SourceBlob.digest.in_(wanted[start : start + _CHUNK]))
            )
        )
    return found


def add_blobs(session: Session, project_id: int, blobs: Sequence[tuple[str, int, bytes | None]]) -> None:
    """Record new blobs (digest, size, content or None when the bytes are in the bucket)."""
    rows = [{"project_id": project_id, "digest": d, "size": s, "content": c} for d, s, c in blobs]
    for start in range(0, len(rows), _CHUNK):
        session.execute(insert(SourceBlob), rows[start : start + _CHUNK])


def latest_manifest(session: Session, project_id: int) -> tuple[int, dict[str, tuple[str, int]]] | None:
    """The newest completed version that stored files: its id and its manifest (path → digest,
    size), which the next version's is written as a difference from."""
    found = session.scalar(
        select(GraphVersion.id)
        .where(GraphVersion.project_id == project_id, GraphVersion.status == "completed")
        .where(exists(select(VersionFile.path).where(VersionFile.version_id == GraphVersion.id)))
        .order_by(GraphVersion.version.desc())
        .limit(1)
    )
    if found is None:
        return None
    listed = session.execute(select(VersionFile.path, VersionFile.digest, VersionFile.size).where(VersionFile.version_id == found))
    return found, {path: (digest, size) for path, digest, size in listed}


def save_manifest(
    session: Session, version_id: int, entries: Sequence[Entry], *, base: int | None = None, dropped: Sequence[str] = ()
) -> None:
    """Write version `version_id`'s manifest: `entries`, after a copy of version `base`'s manifest
    less its `dropped` paths when given (an incremental ingest writes only what changed)."""
    session.execute(delete(VersionFile).where(VersionFile.version_id == version_id))
    if base is not None:
        copied = select(literal(version_id), VersionFile.path, VersionFile.digest, VersionFile.size)
        session.execute(
            insert(VersionFile).from_select(
                ["version_id", "path", "digest", "size"], copied.where(VersionFile.version_id == base)
            )
        )
        for start in range(0, len(dropped), _CHUNK):
            session.execute(
                delete(VersionFile)
                .where(VersionFile.version_id == version_id)
                .where(VersionFile.path.in_(dropped[start : start + _CHUNK]))
            )
    rows = [{"version_id": version_id, "path": e.path, "digest": e.digest, "size": e.size} for e in entries]
    for start in range(0, len(rows), _CHUNK):
        session.execute(insert(VersionFile), rows[start : start + _CHUNK])


def discard_manifest(session: Session, version_id: int) -> None:
    session.execute(delete(VersionFile).where(VersionFile.version_id == version_id))


def unreferenced(session: Session, project_id: int) -> list[str]:
    """Digests of the project's blobs that no manifest of its versions names."""
    named = (
        select(VersionFile.digest)
        .join(GraphVersion, GraphVersion.id == VersionFile.version_id)
        .where(GraphVersion.project_id == project_id, VersionFile.digest == SourceBlob.digest)
    )
    return list(
        session.scalars(select(SourceBlob.digest).where(SourceBlob.project_id == project_id, ~exists(named)))
    )


def delete_blobs(session: Session, project_id: int, digests: Sequence[str]) -> None:
    for start in range(0, len(digests), _CHUNK):
        session.execute(
            delete(SourceBlob)
            .where(SourceBlob.project_id == project_id)
            .where(SourceBlob.digest.in_(digests[start : start + _CHUNK]))
        )


def find(connection: Connection, project: str, version: int, path: str) -> StoredFile | None:
    """`path` as stored with `project`'s graph version `version`, or None."""
    found = connection.execute(
        select(Project.id, GraphVersion.version, VersionFile.path, VersionFile.digest, VersionFile.size,
               SourceBlob.content)
        .join(GraphVersion, GraphVersion.project_id == Project.id)
        .join(VersionFile, VersionFile.version_id == GraphVersion.id)
        .join(SourceBlob, (SourceBlob.project_id == Project.id) & (SourceBlob.digest == VersionFile.digest))
        .where(Project.slug == project, GraphVersion.version == version, VersionFile.path == path)
    ).first()  # fmt: skip
    return StoredFile(*found) if found is not None else None


def has_manifest(connection: Connection, project: str, version: int) -> bool:
    """Whether the version stored any file (versions ingested before sources were kept did not)."""
    return bool(
        connection.scalar(
            select(
                exists(
                    select(VersionFile.path)
                    .join(GraphVersion, GraphVersion.id == VersionFile.version_id)
                    .join(Project, Project.id == GraphVersion.project_id)
                    .where(Project.slug == project, GraphVersion.version == version)
                )
            )
        )
    )


def version_exists(connection: Connection, project: str, version: int) -> bool:
    return bool(
        connection.scalar(
            select(
                exists(
                    select(GraphVersion.id)
                    .join(Project, Project.id == GraphVersion.project_id)
                    .where(Project.slug == project, GraphVersion.version == version)
                    .where(GraphVersion.status == "completed")
                )
            )
        )
    )
