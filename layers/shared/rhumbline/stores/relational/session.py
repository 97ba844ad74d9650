"""Unit-of-work sessions: one short transaction per `with` block."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

_lock = threading.Lock()
# Weak keys: a disposed and dropped engine (tests switch databases) takes its factory with it.
_factories: "weakref.WeakKeyDictionary[Engine, sessionmaker[Session]]" = weakref.WeakKeyDictionary()


def _factory(engine: Engine) -> "sessionmaker[Session]":
    with _lock:
        factory = _factories.get(engine)
        if factory is None:
            # expire_on_commit=False: objects returned from a finished scope stay readable without
            # a new round trip (and without a session to make it).
            factory = sessionmaker(bind=engine, expire_on_commit=False)
            _factories[engine] = factory
        return factory


@contextmanager
def session_scope(engine: Engine) -> Iterator[Session]:
    """Commit on success, roll back on any exception, always close.

    Keep the block short: on SQLite every transaction holds the database's write lock.
    """
    session = _factory(engine)()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


def added(session: Session, row: object) -> bool:
    """Insert `row` in a savepoint; False when a concurrent writer took its key first. The
    savepoint confines the lost race to itself: the caller's transaction stays usable."""
    try:
        with session.begin_nested():
            session.add(row)
    except IntegrityError:
        return False
    return True
