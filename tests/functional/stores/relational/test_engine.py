from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import select
from sqlalchemy.exc import DBAPIError, OperationalError, StatementError

from rhumbline.stores.relational.engine import READ_ONLY, create_engine_from_url
from rhumbline.stores.relational.migrate import upgrade
from rhumbline.stores.relational.schema.core import Project
from rhumbline.stores.relational.session import session_scope


@pytest.mark.postgres
def test_statement_timeout_cancels_a_slow_query_on_the_server(postgres_url: str) -> None:
    engine = create_engine_from_url(postgres_url, timeout=1.0)
    try:
        started = time.monotonic()
        with pytest.raises(DBAPIError) as raised, engine.connect() as connection:
            connection.exec_driver_sql("SELECT pg_sleep(10)")
        elapsed = time.monotonic() - started

        assert raised.value.orig.args[0]["C"] == "57014"  # query_canceled
        assert "statement timeout" in raised.value.orig.args[0]["M"]
        assert 0.9 <= elapsed < 2.5
        # Cancelled by the server, not by a socket timeout: the pooled connection still works.
        with engine.connect() as connection:
            assert connection.exec_driver_sql("SHOW statement_timeout").scalar() == "1s"
            assert connection.exec_driver_sql("SELECT 1").scalar() == 1
        assert engine.pool.checkedin() == 1
    finally:
        engine.dispose()


def test_sqlite_engine_creates_its_directory_and_sets_pragmas(tmp_path) -> None:
    path = tmp_path / "nested" / "deeper" / "db.sqlite3"
    engine = create_engine_from_url(f"sqlite:///{path}", timeout=3)
    try:
        with engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() == 3000
        assert path.exists()
    finally:
        engine.dispose()


def test_unsupported_url_is_refused() -> None:
    with pytest.raises(ValueError, match=r"unsupported database URL scheme 'postgresql\+psycopg'"):
        create_engine_from_url("postgresql+psycopg://u:p@localhost/db")
    with pytest.raises(ValueError, match="timeout must be positive, not 0"):
        create_engine_from_url("sqlite:///x.db", timeout=0)


def test_timestamps_come_back_utc_aware(engine) -> None:
    paris_noon = datetime(2026, 3, 1, 12, 0, tzinfo=timezone(timedelta(hours=1)))
    with session_scope(engine) as session:
        session.add(Project(slug="tz/aware", created_at=paris_noon))
    with session_scope(engine) as session:
        created = session.scalar(select(Project.created_at).where(Project.slug == "tz/aware"))
    assert created == datetime(2026, 3, 1, 11, 0, tzinfo=timezone.utc)
    assert created.tzinfo == timezone.utc


def test_naive_timestamps_are_refused(engine) -> None:
    with pytest.raises(StatementError, match="naive datetime 2026-03-01T12:00:00"):
        with session_scope(engine) as session:
            session.add(Project(slug="tz/naive", created_at=datetime(2026, 3, 1, 12, 0)))


def test_session_scope_commits_on_success_and_rolls_back_on_error(engine) -> None:
    with session_scope(engine) as session:
        session.add(Project(slug="scope/kept"))
    with pytest.raises(RuntimeError, match="boom"):
        with session_scope(engine) as session:
            session.add(Project(slug="scope/dropped"))
            session.flush()
            raise RuntimeError("boom")
    with session_scope(engine) as session:
        slugs = set(session.scalars(select(Project.slug).where(Project.slug.like("scope/%"))))
    assert slugs == {"scope/kept"}


def test_objects_stay_readable_after_the_scope(engine) -> None:
    with session_scope(engine) as session:
        project = Project(slug="scope/detached")
        session.add(project)
    # expire_on_commit=False: no lazy load (and no DetachedInstanceError) after the commit.
    assert project.slug == "scope/detached"
    assert isinstance(project.id, int)


def test_sqlite_savepoint_rollback_keeps_the_outer_transaction(tmp_path) -> None:
    # The reason the engine emits its own BEGIN: with sqlite3's legacy mode a rolled-back
    # savepoint also discarded the enclosing work.
    engine = create_engine_from_url(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    upgrade(engine)
    try:
        with session_scope(engine) as session:
            session.add(Project(slug="outer/kept"))
            session.flush()
            with pytest.raises(RuntimeError):
                with session.begin_nested():
                    session.add(Project(slug="inner/dropped"))
                    session.flush()
                    raise RuntimeError("undo the savepoint only")
        with session_scope(engine) as session:
            assert sorted(session.scalars(select(Project.slug))) == ["outer/kept"]
    finally:
        engine.dispose()


def test_sqlite_read_only_connections_take_no_write_lock(tmp_path) -> None:
    # A writer holds the lock: a read-only connection (ToolContext.read_db) still begins and reads
    # at once, seeing what was committed; a read-write one waits for the lock and then fails with
    # SQLAlchemy's OperationalError (BEGIN is emitted on the driver connection, not through
    # exec_driver_sql, and its error must still be SQLAlchemy's).
    engine = create_engine_from_url(f"sqlite:///{tmp_path / 'db.sqlite3'}", timeout=0.2)
    upgrade(engine)
    try:
        with session_scope(engine) as session:
            session.add(Project(slug="committed/before"))
        with engine.begin() as writer:
            writer.exec_driver_sql("INSERT INTO projects (slug, created_at) VALUES ('not/committed', '2026-01-01 00:00:00')")
            started = time.monotonic()
            with engine.connect().execution_options(**{READ_ONLY: True}) as reader:
                slugs = sorted(reader.scalars(select(Project.slug)))
                assert reader.exec_driver_sql("PRAGMA main.journal_mode").scalar() == "wal"
            assert slugs == ["committed/before"]
            assert time.monotonic() - started < 0.15  # never waited for the writer's lock
            with pytest.raises(OperationalError, match="database is locked"):
                with engine.connect() as blocked:
                    blocked.scalars(select(Project.slug)).all()
    finally:
        engine.dispose()


def test_sqlite_read_write_transactions_still_take_the_lock_up_front(tmp_path) -> None:
    # A read-then-write transaction must hold the write lock from BEGIN (IMMEDIATE): a second one
    # waits for it instead of failing half-way with "database is locked".
    engine = create_engine_from_url(f"sqlite:///{tmp_path / 'db.sqlite3'}", timeout=0.2)
    try:
        with engine.begin() as first:
            first.exec_driver_sql("CREATE TABLE t (a INTEGER)")
            assert first.connection.driver_connection.in_transaction
            with pytest.raises(OperationalError, match="database is locked"):
                with engine.begin() as second:
                    second.exec_driver_sql("SELECT 1")
        with engine.connect().execution_options(**{READ_ONLY: True}) as reader:
            reader.exec_driver_sql("SELECT count(*) FROM t").scalar()
            assert reader.connection.driver_connection.in_transaction
    finally:
        engine.dispose()
