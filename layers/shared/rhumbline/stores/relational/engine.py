"""SQLAlchemy engines for the two supported databases, each with every call bounded in time.

- SQLite (embedded default): a local file, WAL (SQLite's own automatic checkpoint), foreign keys
  on, and transactions that take the write lock up front.
- PostgreSQL through pg8000 (Aurora in production): a small pool, a socket timeout and a server-side
  `statement_timeout`, so a slow query is cancelled by the server and the connection stays usable.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import URL, Engine, create_engine, event, make_url
from sqlalchemy.engine import ExceptionContext
from sqlalchemy.exc import DBAPIError, IntegrityError

from rhumbline.stores.relational.tls import DbTls, ssl_context

if TYPE_CHECKING:
    from rhumbline.config import Settings

# The socket timeout is a backstop for a dead network: it must fire after the server has had the
# chance to cancel the statement itself, or every slow query would cost a broken connection.
SOCKET_TIMEOUT_MARGIN = 2.0

# Execution option for a connection that only reads (`ToolContext.read_db`); on SQLite its
# transaction begins DEFERRED instead of taking the write lock (see `_sqlite_engine`).
READ_ONLY = "rhumbline_read_only"

# A connection left idle inside a transaction holds its locks; a frozen Lambda container can do
# that for minutes. The server ends such sessions after this long.
IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000


def create_engine_for(settings: "Settings", *, autocommit: bool = False) -> Engine:
    tls = DbTls(settings.db_ssl, settings.db_ca_bundle)
    return create_engine_from_url(database_url(settings), timeout=settings.db_timeout, tls=tls, autocommit=autocommit)


def database_url(settings: "Settings") -> str:
    """The configured URL, else the one in the configured Secrets Manager secret, else the
    embedded SQLite file under the home directory."""
    if settings.database_url:
        return settings.database_url
    if settings.database_secret_arn:
        from rhumbline.stores.relational.secrets import database_url_from_secret

        return database_url_from_secret(settings.database_secret_arn)
    return f"sqlite:///{(settings.home / 'rhumbline.sqlite3').resolve()}"


def create_engine_from_url(
    url: str, *, timeout: float = 10.0, tls: DbTls | None = None, autocommit: bool = False
) -> Engine:
    """An engine for `sqlite:///path` or `postgresql+pg8000://...`; `timeout` is in seconds;
    `tls`: how PostgreSQL connections are encrypted (tls.py; default none). `autocommit` (PostgreSQL):
    every statement commits by itself and connections are not pinged at checkout, for statements
    that run alone in one round trip (oneshot.py)."""
    if timeout <= 0:
        raise ValueError(f"timeout must be positive, not {timeout}")
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        return _sqlite_engine(parsed, timeout)
    if backend == "postgresql" and parsed.get_driver_name() == "pg8000":
        return _postgres_engine(parsed, timeout, tls or DbTls(), autocommit=autocommit)
    raise ValueError(
        f"unsupported database URL scheme {parsed.drivername!r}: use sqlite:///PATH or postgresql+pg8000://..."
    )


def _sqlite_engine(url: URL, timeout: float) -> Engine:
    if url.database and url.database != ":memory:" and not url.database.startswith("file:"):
        Path(url.database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(
        url,
        # sqlite3's busy timeout: how long a connection waits for another one's write lock.
        connect_args={"timeout": timeout, "check_same_thread": False},
    )

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection: Any, _record: Any) -> None:
        # Take transaction control away from the sqlite3 module (its legacy mode does not BEGIN
        # before SELECT or SAVEPOINT, which breaks savepoints); `_begin` below emits BEGIN.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            _enter_wal_mode(cursor, timeout)
            # WAL + NORMAL: a commit does not wait for an fsync (the audit row is on every tool
            # call's path); the database stays consistent, and only a power loss can drop the
            # last commits. Local stores only: hosted deployments use PostgreSQL.
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        # IMMEDIATE takes the write lock at BEGIN, waiting up to `timeout` for it. A deferred
        # transaction that reads and then writes fails at once with "database is locked" when
        # another connection wrote in between; serialising our short transactions avoids that, and
        # WAL keeps readers outside these transactions unblocked. A connection that only reads
        # (READ_ONLY) begins DEFERRED: it needs no write lock, so it neither waits for a writer
        # nor holds one up (the tools' annotation reads, on every call, next to the audit rows).
        read_only = connection.get_execution_options().get(READ_ONLY, False)
        _emit_begin(connection, "BEGIN" if read_only else "BEGIN IMMEDIATE")

    return engine


def _enter_wal_mode(cursor: sqlite3.Cursor, timeout: float) -> None:
    """Switch a database to WAL (a no-op once it is). Switching needs an exclusive lock, and SQLite
    answers "database is locked" at once, without its busy handler, when several connections
    switch a new file at the same moment (concurrent cold starts): so retry until `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() >= deadline:
                raise
            time.sleep(0.01)


def _emit_begin(connection: Any, statement: str) -> None:
    """BEGIN straight on the sqlite3 connection: `exec_driver_sql` would run SQLAlchemy's statement
    machinery (execution context, events, result) for a statement with no parameters and no rows,
    twice on every tool call (the tool's read, the audit row). A failure
    still reaches callers as SQLAlchemy's error (e.g. OperationalError for a locked database)."""
    try:
        connection.connection.driver_connection.execute(statement)
    except sqlite3.Error as error:
        raise DBAPIError.instance(statement, None, error, sqlite3.Error) from error


def _postgres_engine(url: URL, timeout: float, tls: DbTls, *, autocommit: bool = False) -> Engine:
    timeout_ms = int(timeout * 1000)
    options: dict[str, Any] = {"isolation_level": "AUTOCOMMIT"} if autocommit else {}
    engine = create_engine(
        url,
        connect_args={
            "timeout": timeout + SOCKET_TIMEOUT_MARGIN,
            "ssl_context": ssl_context(tls),
            # Sent in the startup packet: session defaults that survive ROLLBACK, unlike a SET.
            "startup_params": {
                "statement_timeout": str(timeout_ms),
                "idle_in_transaction_session_timeout": str(IDLE_IN_TRANSACTION_TIMEOUT_MS),
            },
        },
        # A Lambda container thawed after minutes may hold sockets the server already closed. An
        # autocommit engine's user retries a statement that met a dead connection instead: the ping
        # would double its round trips.
        pool_pre_ping=not autocommit,
        pool_size=2,
        max_overflow=2,
        pool_timeout=timeout,
        **options,
    )
    event.listen(engine, "handle_error", _integrity_error_from_sqlstate, retval=True)
    return engine


def _integrity_error_from_sqlstate(context: ExceptionContext) -> IntegrityError | None:
    """Report every SQLSTATE class 23 error as IntegrityError, as SQLite's driver does.

    pg8000 maps only unique violations (23505) to IntegrityError; a foreign-key or check
    violation arrives as ProgrammingError, and code catching IntegrityError would miss it.
    """
    original = context.original_exception
    details = original.args[0] if original.args else None
    if (
        isinstance(details, dict)
        and str(details.get("C", "")).startswith("23")
        and not isinstance(context.sqlalchemy_exception, IntegrityError)
    ):
        return IntegrityError(context.statement, context.parameters, original)
    return None
