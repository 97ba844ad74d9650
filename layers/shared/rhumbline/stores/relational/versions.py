"""Graph versions: each ingest of a project is a numbered version (1, 2, 3, ...) with a status.

An ingest calls `start`, builds the graph, then `finish`es the version as completed or failed.
Readers use the latest completed version.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import Select, delete, func, select
from sqlalchemy.orm import Session

from rhumbline.stores.relational import projects
from rhumbline.stores.relational.schema.base import utcnow
from rhumbline.stores.relational.schema.core import GraphVersion, Project
from rhumbline.stores.relational.session import added

MAX_LISTED = 200
FINAL_STATUSES = ("completed", "failed")
# Two ingests of one project racing for a number: each retry sees the other's committed row.
START_ATTEMPTS = 5
# Twice the ingest function's 15-minute Lambda limit: a version running longer was abandoned.
ABANDONED_AFTER = timedelta(minutes=30)


def start(session: Session, project_slug: str, *, commit_sha: str | None = None) -> GraphVersion:
    """A new 'running' version numbered max + 1 for the project (created if missing)."""
    if commit_sha is not None and len(commit_sha) > 64:
        raise ValueError("commit_sha must be at most 64 characters")
    project = projects.get_or_create(session, project_slug)
    _fail_abandoned(session, project.id)
    for _ in range(START_ATTEMPTS):
        highest = session.scalar(
            select(func.max(GraphVersion.version)).where(GraphVersion.project_id == project.id)
        )
        version = GraphVersion(
            project_id=project.id,
            version=(highest or 0) + 1,
            commit_sha=commit_sha,
            status="running",
            started_at=utcnow(),
            node_count=0,
            edge_count=0,
        )
        if added(session, version):
            return version
    raise RuntimeError(f"could not number a new version of {project_slug} after {START_ATTEMPTS} attempts")


def _fail_abandoned(session: Session, project_id: int) -> None:
    """An ingest killed mid-way (process killed, Lambda timeout) never finishes its version. No
    ingest outlives the ingest function's 15-minute limit, so one still 'running' long after that
    is dead: say so, rather than show it as running forever."""
    cutoff = utcnow() - ABANDONED_AFTER
    stale = session.scalars(
        select(GraphVersion).where(
            GraphVersion.project_id == project_id,
            GraphVersion.status == "running",
            GraphVersion.started_at < cutoff,
        )
    ).all()
    for version in stale:
        version.status = "failed"
        version.finished_at = utcnow()
        version.error = f"interrupted: still running {int(ABANDONED_AFTER.total_seconds() // 60)} minutes after it started"


def finish(
    session: Session,
    version_id: int,
    *,
    status: str,
    node_count: int,
    edge_count: int,
    stats: dict[str, Any] | None = None,
    error: str | None = None,
) -> GraphVersion:
    if status not in FINAL_STATUSES:
        raise ValueError(f"status must be one of {', '.join(FINAL_STATUSES)}, not {status!r}")
    version = session.get(GraphVersion, version_id)
    if version is None:
        raise LookupError(f"no graph version with id {version_id}")
    if version.status != "running":
        raise ValueError(f"graph version {version.version} is already {version.status}")
    version.status = status
    version.finished_at = utcnow()
    version.node_count = node_count
    version.edge_count = edge_count
    version.stats = stats
    version.error = error
    session.flush()
    return version


def latest(session: Session, project_slug: str, *, status: str | None = None) -> GraphVersion | None:
    query = _of_project(project_slug).order_by(GraphVersion.version.desc()).limit(1)
    if status is not None:
        query = query.where(GraphVersion.status == status)
    return session.scalar(query)


def list_for(session: Session, project_slug: str, *, limit: int = 20) -> list[GraphVersion]:
    """Newest first; `limit` is capped at MAX_LISTED."""
    query = _of_project(project_slug).order_by(GraphVersion.version.desc())
    return list(session.scalars(query.limit(max(1, min(limit, MAX_LISTED)))))


def prune(session: Session, project_slug: str, *, keep: int = 20) -> int:
    """Delete all but the newest `keep` versions. Returns how many were deleted.

    Never deletes a running version (an ingest is writing it) nor the latest completed one (it
    is what readers are served), even when they fall outside `keep`.
    """
    if keep < 1:
        raise ValueError(f"keep must be at least 1, not {keep}")
    project = projects.get(session, project_slug)
    if project is None:
        return 0
    oldest_kept = session.scalar(
        select(GraphVersion.version)
        .where(GraphVersion.project_id == project.id)
        .order_by(GraphVersion.version.desc())
        .offset(keep - 1)
        .limit(1)
    )
    if oldest_kept is None:
        return 0
    doomed = (
        delete(GraphVersion)
        .where(GraphVersion.project_id == project.id)
        .where(GraphVersion.version < oldest_kept)
        .where(GraphVersion.status != "running")
    )
    served = latest(session, project_slug, status="completed")
    if served is not None:
        doomed = doomed.where(GraphVersion.id != served.id)
    return session.execute(doomed).rowcount


def _of_project(project_slug: str) -> Select:  # type: ignore[type-arg]
    return (
        select(GraphVersion)
        .join(Project, Project.id == GraphVersion.project_id)
        .where(Project.slug == project_slug)
    )
