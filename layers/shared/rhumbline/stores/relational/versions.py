"""Graph versions: each ingest of a project is a numbered version (1, 2, 3, ...) with a status.

An ingest calls `start`, builds the graph, then `finish`es the version as completed or failed.
Readers use the latest completed version.

A running version is the project's ingest lease: at most one per project (a unique index), held
until `lease_expires_at`, which the ingest renews while it runs (`renew`). A second ingest of the
project is refused with `IngestInProgress`, naming the running version and its holder; a version
whose lease expired belongs to an ingest that was killed or timed out, and the next `start`
fails it. So does a version whose holder process is gone, when it ran on this machine: its lease
is released at once rather than at its expiry.
"""

from __future__ import annotations

import functools
import os
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Select, bindparam, delete, func, select, update
from sqlalchemy.orm import Session

from rhumbline.stores.relational import projects
from rhumbline.stores.relational.schema.base import checked, utcnow
from rhumbline.stores.relational.schema.core import GraphVersion, Project, VersionStatus
from rhumbline.stores.relational.session import added

MAX_LISTED = 200
FINAL_STATUSES: tuple[VersionStatus, ...] = ("completed", "failed")
# Two ingests of one project racing for a number: each retry sees the other's committed row.
START_ATTEMPTS = 5
# Twice the ingest function's 15-minute Lambda limit: a version running longer was abandoned.
ABANDONED_AFTER = timedelta(minutes=30)
DEFAULT_LEASE_SECONDS = 60.0


class IngestInProgress(Exception):
    """Another ingest holds the project's lease: its running version, who runs it, until when."""

    def __init__(self, project: str, version: int, holder: str | None, lease_expires_at: datetime | None) -> None:
        until = f", its lease runs until {lease_expires_at:%Y-%m-%d %H:%M:%SZ}" if lease_expires_at else ""
        super().__init__(
            f"{project} is being ingested as version {version} by {holder or 'another ingest'}{until}: "
            "one ingest per project at a time; retry once it has finished"
        )
        self.project, self.version, self.holder, self.lease_expires_at = project, version, holder, lease_expires_at


def start(
    session: Session,
    project_slug: str,
    *,
    commit_sha: str | None = None,
    holder: str | None = None,
    lease_seconds: float = DEFAULT_LEASE_SECONDS,
) -> GraphVersion:
    """A new 'running' version numbered max + 1 for the project (created if missing), holding the
    project's ingest lease for `lease_seconds`. Raises IngestInProgress while another holds it."""
    if commit_sha is not None and len(commit_sha) > 64:
        raise ValueError("commit_sha must be at most 64 characters")
    project = projects.get_or_create(session, project_slug)
    now = utcnow()
    _fail_abandoned(session, project.id, now)
    for _ in range(START_ATTEMPTS):
        highest = session.scalar(
            select(func.max(GraphVersion.version)).where(GraphVersion.project_id == project.id)
        )
        version = GraphVersion(
            project_id=project.id,
            version=(highest or 0) + 1,
            commit_sha=commit_sha,
            status="running",
            started_at=now,
            node_count=0,
            edge_count=0,
            holder=(holder or "")[:300] or None,
            holder_process=this_process(),
            lease_expires_at=now + timedelta(seconds=lease_seconds),
        )
        if added(session, version):
            return version
        running = session.scalar(
            select(GraphVersion).where(GraphVersion.project_id == project.id, GraphVersion.status == "running")
        )
        if running is not None:
            raise IngestInProgress(project_slug, running.version, running.holder, running.lease_expires_at)
    raise RuntimeError(f"could not number a new version of {project_slug} after {START_ATTEMPTS} attempts")


def renew(session: Session, version_id: int, *, lease_seconds: float = DEFAULT_LEASE_SECONDS) -> bool:
    """Extend a running version's lease; False when it is no longer running (it was failed as
    abandoned: its ingest must stop)."""
    renewed = session.execute(
        update(GraphVersion)
        .where(GraphVersion.id == version_id, GraphVersion.status == "running")
        .values(lease_expires_at=utcnow() + timedelta(seconds=lease_seconds))
    )
    return renewed.rowcount == 1


def abandoned(version: GraphVersion, now: datetime | None = None) -> str | None:
    """Why a version still marked running is dead (its ingest stopped renewing its lease), or None."""
    if version.status != "running":
        return None
    if _gone(version.holder_process):
        return (
            f"abandoned: its ingest ({version.holder or 'unknown'}) ended on this machine without finishing "
            "(it was killed or crashed); nothing of it was served"
        )
    now = now or utcnow()
    if version.lease_expires_at is not None:
        if version.lease_expires_at >= now:
            return None
        return (
            f"abandoned: its ingest ({version.holder or 'unknown'}) stopped renewing the project's lease at "
            f"{version.lease_expires_at:%Y-%m-%d %H:%M:%SZ} (it was killed or timed out); nothing of it was served"
        )
    if version.started_at >= now - ABANDONED_AFTER:
        return None
    return f"interrupted: still running {int(ABANDONED_AFTER.total_seconds() // 60)} minutes after it started"


@functools.cache
def _machine() -> str | None:
    """This kernel boot and PID namespace: where a process id names one process. None off Linux
    (there, a dead holder's lease is released at its expiry only)."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        namespace = os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return None
    return f"{boot}:{namespace}"


def this_process() -> str | None:
    machine = _machine()
    return None if machine is None else f"{machine}/{os.getpid()}"


def _gone(holder_process: str | None) -> bool:
    """Whether the holder ran on this machine and its process no longer exists. A reused process
    id reads as alive: then the lease runs to its expiry, as for any other holder."""
    machine, _, pid = (holder_process or "").rpartition("/")
    if not machine or machine != _machine() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def _fail_abandoned(session: Session, project_id: int, now: datetime) -> None:
    """An ingest killed mid-way (process killed, Lambda timeout) never finishes its version: once
    its lease has expired, say so rather than show it as running forever, and free the project."""
    running = session.scalars(
        select(GraphVersion).where(GraphVersion.project_id == project_id, GraphVersion.status == "running")
    ).all()
    for version in running:
        reason = abandoned(version, now)
        if reason is not None:
            version.status = "failed"
            version.finished_at = now
            version.error = reason
    session.flush()


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
    final = checked("status", status, FINAL_STATUSES)
    version = session.get(GraphVersion, version_id)
    if version is None:
        raise LookupError(f"no graph version with id {version_id}")
    if version.status != "running":
        raise ValueError(f"graph version {version.version} is already {version.status}")
    version.status = final
    version.finished_at = utcnow()
    version.node_count = node_count
    version.edge_count = edge_count
    version.stats = stats
    version.error = error
    session.flush()
    return version


def latest(session: Session, project_slug: str, *, status: str | None = None) -> GraphVersion | None:
    if status is None:
        return session.scalar(_LATEST, {"slug": project_slug})
    return session.scalar(_LATEST_WITH_STATUS, {"slug": project_slug, "status": status})


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


def _of_project(project_slug: str) -> Select[GraphVersion]:
    return (
        select(GraphVersion)
        .join(Project, Project.id == GraphVersion.project_id)
        .where(Project.slug == project_slug)
    )


# Built once: list_projects reads a project's latest version per call, and building the ORM
# statement cost more CPU than running it.
_LATEST = (
    select(GraphVersion)
    .join(Project, Project.id == GraphVersion.project_id)
    .where(Project.slug == bindparam("slug"))
    .order_by(GraphVersion.version.desc())
    .limit(1)
)
_LATEST_WITH_STATUS = _LATEST.where(GraphVersion.status == bindparam("status"))
