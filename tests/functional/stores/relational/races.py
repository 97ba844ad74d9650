"""Two transactions made to race in a known order, without sleeping on a guess."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, event


@contextmanager
def reached(engine: Engine, statement_prefix: str) -> Iterator[threading.Event]:
    """An event set when a thread other than this one reaches the point where its transaction
    would wait for this thread's: on SQLite when it takes its connection (the BEGIN IMMEDIATE that
    follows waits for the write lock), on PostgreSQL at its statement starting with
    `statement_prefix` (a unique index waits at the write)."""
    owner = threading.get_ident()
    arrived = threading.Event()
    sqlite = engine.dialect.name == "sqlite"

    def on_checkout(*_: Any) -> None:
        if sqlite and threading.get_ident() != owner:
            arrived.set()

    def on_statement(_connection: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if not sqlite and threading.get_ident() != owner and statement.lstrip().upper().startswith(statement_prefix):
            arrived.set()

    event.listen(engine, "checkout", on_checkout)
    event.listen(engine, "before_cursor_execute", on_statement)
    try:
        yield arrived
    finally:
        event.remove(engine, "checkout", on_checkout)
        event.remove(engine, "before_cursor_execute", on_statement)
