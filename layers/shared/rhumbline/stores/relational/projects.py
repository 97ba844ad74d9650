"""Projects: one per repository, named by its slug `owner/repo`."""

from __future__ import annotations

import re
from collections.abc import Collection

from sqlalchemy import Connection, bindparam, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from rhumbline.stores.relational.schema.core import Project

SLUG_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}/[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")

# A deployment holds a few hundred projects at most; the cap only bounds a runaway table.
MAX_LISTED = 10_000


def validate_slug(slug: str) -> str:
    if not isinstance(slug, str) or not SLUG_PATTERN.match(slug):
        raise ValueError(f"invalid project {slug!r}: expected 'owner/repo' (letters, digits, '_', '.', '-')")
    return slug


def get(session: Session, slug: str) -> Project | None:
    return session.scalar(select(Project).where(Project.slug == slug))


def get_or_create(session: Session, slug: str) -> Project:
    """The project named `slug`, created if missing; safe when two callers create it at once."""
    validate_slug(slug)
    existing = get(session, slug)
    if existing is not None:
        return existing
    project = Project(slug=slug)
    try:
        # The savepoint confines a lost race to itself: the caller's transaction stays usable.
        with session.begin_nested():
            session.add(project)
    except IntegrityError:
        winner = get(session, slug)
        if winner is None:
            raise
        return winner
    return project


def list_slugs(reader: Session | Connection, among: Collection[str] | None = None) -> list[str]:
    """Slugs of existing projects, sorted: all of them (at most MAX_LISTED), or only those named in
    `among` (a token's projects: seeks in the slug's unique index, whatever the table's size)."""
    if among is None:
        return list(reader.scalars(_ALL_SLUGS))
    return list(reader.scalars(_SLUGS_AMONG, {"among": sorted(among)}))


# Built once: building the statement per call cost more CPU than running it (tools read it per call).
_SLUG = Project.__table__.c.slug
_ALL_SLUGS = select(_SLUG).order_by(_SLUG).limit(MAX_LISTED)
_SLUGS_AMONG = _ALL_SLUGS.where(_SLUG.in_(bindparam("among", expanding=True)))


def delete(session: Session, slug: str) -> bool:
    """Delete a project; its graph versions go with it (ON DELETE CASCADE). False if unknown."""
    project = get(session, slug)
    if project is None:
        return False
    session.delete(project)
    session.flush()
    return True
