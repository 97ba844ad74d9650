from __future__ import annotations

import threading

import pytest
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from rhumbline.stores.relational import projects, versions
from rhumbline.stores.relational.schema.core import GraphVersion, Project
from rhumbline.stores.relational.session import session_scope
from tests.functional.stores.relational.races import reached


def test_get_or_create_is_idempotent(engine, unique_project: str) -> None:
    with session_scope(engine) as session:
        first = projects.get_or_create(session, unique_project)
    with session_scope(engine) as session:
        second = projects.get_or_create(session, unique_project)
        count = session.scalar(select(func.count()).select_from(Project).where(Project.slug == unique_project))
    assert second.id == first.id
    assert count == 1


def test_get_or_create_rejects_a_bad_slug(engine) -> None:
    with session_scope(engine) as session:
        with pytest.raises(ValueError, match=r"invalid project 'no-owner': expected 'owner/repo'"):
            projects.get_or_create(session, "no-owner")
        with pytest.raises(ValueError, match=r"invalid project '-x/y'"):
            projects.get_or_create(session, "-x/y")


def test_get_or_create_loses_a_race_gracefully(engine, unique_project: str) -> None:
    """Two transactions create the same project: the second one returns the winner's row.

    The first holds its insert uncommitted while the second tries; on PostgreSQL the second's
    insert waits on the unique index and then fails, which the savepoint absorbs.
    """
    results: dict[str, int] = {}
    errors: list[BaseException] = []

    def second_creator() -> None:
        try:
            with session_scope(engine) as session:
                results["second"] = projects.get_or_create(session, unique_project).id
                # The caller's transaction is still usable after the lost race.
                session.scalar(select(func.count()).select_from(Project))
        except BaseException as error:  # noqa: BLE001 - reported by the assert below
            errors.append(error)

    with reached(engine, "INSERT") as second_waits, session_scope(engine) as session:
        results["first"] = projects.get_or_create(session, unique_project).id
        thread = threading.Thread(target=second_creator)
        thread.start()
        assert second_waits.wait(15), "the second transaction never reached its INSERT (its BEGIN on SQLite)"
    thread.join(timeout=15)

    assert errors == []
    assert results["second"] == results["first"]


def test_get_list_and_delete(engine) -> None:
    with session_scope(engine) as session:
        for slug in ("listing/zeta", "listing/alpha", "listing/mid"):
            projects.get_or_create(session, slug)
    with session_scope(engine) as session:
        assert [slug for slug in projects.list_slugs(session) if slug.startswith("listing/")] == [
            "listing/alpha",
            "listing/mid",
            "listing/zeta",
        ]
        assert projects.list_slugs(session, among=("listing/zeta", "listing/none", "listing/alpha")) == [
            "listing/alpha",
            "listing/zeta",
        ]
        assert projects.list_slugs(session, among=()) == []
    with engine.connect() as connection:  # Core, as ToolContext.visible_projects reads it
        assert projects.list_slugs(connection, among=["listing/mid"]) == ["listing/mid"]
    with session_scope(engine) as session:
        assert projects.get(session, "listing/mid").slug == "listing/mid"
        assert projects.get(session, "listing/none") is None
        assert projects.delete(session, "listing/mid") is True
        assert projects.delete(session, "listing/mid") is False
    with session_scope(engine) as session:
        assert projects.get(session, "listing/mid") is None


def test_deleting_a_project_deletes_its_versions(engine, unique_project: str) -> None:
    with session_scope(engine) as session:
        version_id = versions.start(session, unique_project).id
    with session_scope(engine) as session:
        assert projects.delete(session, unique_project) is True
    with session_scope(engine) as session:
        assert session.get(GraphVersion, version_id) is None


def test_a_version_needs_an_existing_project(engine) -> None:
    # Foreign keys are enforced on both databases (SQLite needs its pragma on every connection).
    with pytest.raises(IntegrityError):
        with session_scope(engine) as session:
            session.add(GraphVersion(project_id=987654321, version=1, status="running"))
