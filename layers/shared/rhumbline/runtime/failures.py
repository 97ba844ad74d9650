"""Backend failures a caller can act on, told apart from bugs.

A store that is down, slow past its timeout, full, or moved on under the call is not an internal
error: the caller is told which store and what to do (retry, free space), and the tool handler,
the gateway's authentication and the CLI all answer from this one classification.
"""

from __future__ import annotations

import errno
import sqlite3
from collections.abc import Iterator
from typing import Any

from rhumbline.errors import Conflict, DeadlineExceeded, StorageFull, ToolFailure, Unavailable, Unsupported
from rhumbline.extras import missing_extra

# OSError numbers of a write that found no room: the disk, the user's quota, the file size limit.
_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
# PostgreSQL SQLSTATEs: disk full; connection lost or refused, server out of resources or shutting
# down (classes 08, 53, 57P); a statement cancelled by statement_timeout.
_PG_DISK_FULL = "53100"
_PG_UNAVAILABLE_PREFIXES = ("08", "53", "57P")
_PG_STATEMENT_TIMEOUT = "57014"


def expected_failure(error: BaseException) -> ToolFailure | None:
    """The specific failure to report for `error`, or None when it is a bug (an internal error)."""
    from rhumbline.stores.graph.protocol import GraphConflict, GraphUnavailable

    full = storage_full(error)
    if full is not None:
        return full
    needed = missing_extra(error)
    if needed is not None:
        return Unsupported(f"this server cannot do that: {needed}")
    if isinstance(error, GraphUnavailable):
        return Unavailable(f"the graph store is unavailable: {error}", details={"store": "graph"})
    from rhumbline.stores.source_blobs import SourceStoreError

    if isinstance(error, SourceStoreError):
        return Unavailable(f"the source store is unavailable: {error}", details={"store": "s3"})
    from rhumbline.stores.relational.versions import IngestInProgress

    if isinstance(error, IngestInProgress):
        details: dict[str, Any] = {"running_version": error.version, "holder": error.holder}
        if error.lease_expires_at is not None:
            details["lease_expires_at"] = error.lease_expires_at.isoformat()
        return Conflict(str(error), details=details)
    if isinstance(error, GraphConflict):
        return Conflict(
            f"the project's graph changed while this call was writing it: {error}; retry", details={"store": "graph"}
        )
    relational = relational_outage(error)
    if relational is not None:
        return relational
    return secret_unreadable(error)


def _chain(error: BaseException) -> Iterator[BaseException]:
    """`error`, what it wraps (SQLAlchemy's `orig`) and what caused it, each once."""
    seen: set[int] = set()
    pending: list[BaseException | None] = [error]
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        pending.extend([getattr(current, "orig", None), current.__cause__, current.__context__])


def _sqlstate(error: BaseException) -> str:
    """pg8000 puts the server's error fields in args[0] (`C` is the SQLSTATE)."""
    details: Any = error.args[0] if error.args else None
    return str(details.get("C", "")) if isinstance(details, dict) else ""


def storage_full(error: BaseException) -> StorageFull | None:
    for cause in _chain(error):
        if isinstance(cause, OSError) and cause.errno in _FULL_ERRNOS:
            return StorageFull(
                f"the server's disk is full ({cause.strerror}): nothing was changed; free space and retry",
                details={"errno": errno.errorcode.get(cause.errno or 0, str(cause.errno))},
            )
        code = getattr(cause, "sqlite_errorcode", None) if isinstance(cause, sqlite3.Error) else None
        if code == sqlite3.SQLITE_FULL:
            return StorageFull(
                "the embedded store's disk is full (SQLite: database or disk is full): nothing was changed; "
                "free space and retry",
                details={"store": "sqlite"},
            )
        if code == sqlite3.SQLITE_IOERR_WRITE:  # what SQLite reports for a write past a file size limit
            return StorageFull(
                "the embedded store could not write to its disk (SQLite: SQLITE_IOERR_WRITE: the disk, a quota "
                "or a file size limit is full, or the disk failed): nothing was changed",
                details={"store": "sqlite"},
            )
        if _sqlstate(cause) == _PG_DISK_FULL:
            return StorageFull("PostgreSQL's disk is full: nothing was changed; retry later", details={"store": "postgresql"})
    return None


def _store_name(error: BaseException) -> str:
    for cause in _chain(error):
        module = type(cause).__module__
        if module.startswith("pg8000"):
            return "PostgreSQL"
        if module.startswith("sqlite3"):
            return "SQLite"
    from rhumbline.config import settings

    current = settings()
    hosted_database = current.database_url.startswith("postgresql") or (not current.database_url and current.database_secret_arn)
    return "PostgreSQL" if hosted_database else "SQLite"


def relational_outage(error: BaseException) -> ToolFailure | None:
    """The relational store (PostgreSQL or the embedded SQLite) is unreachable, busy or timed out."""
    from sqlalchemy import exc

    if isinstance(error, exc.TimeoutError):  # the connection pool had none free
        return Unavailable(
            f"the relational store ({_store_name(error)}) had no free connection in time; retry in a few seconds",
            details={"store": "relational"},
        )
    if not isinstance(error, exc.DBAPIError):
        # A raw driver error (a read through `engine.raw_connection()`): pg8000's InterfaceError is
        # a connection that could not be made or was lost.
        if any(type(cause).__module__.startswith("pg8000") and type(cause).__name__ == "InterfaceError" for cause in _chain(error)):
            return Unavailable(
                "the relational store (PostgreSQL) is unavailable (InterfaceError); retry in a few seconds",
                details={"store": "relational"},
            )
        return None
    store = _store_name(error)
    state = next((_sqlstate(cause) for cause in _chain(error) if _sqlstate(cause)), "")
    if state == _PG_STATEMENT_TIMEOUT:
        return DeadlineExceeded(f"the relational store ({store}) cancelled a statement that ran past its timeout")
    if (
        error.connection_invalidated
        or isinstance(error, (exc.OperationalError, exc.InterfaceError))
        or state.startswith(_PG_UNAVAILABLE_PREFIXES)
    ):
        # The driver's own message may name hosts and ports: the caller gets the store and the kind.
        return Unavailable(
            f"the relational store ({store}) is unavailable ({type(error.orig).__name__}); retry in a few seconds",
            details={"store": "relational"},
        )
    return None


def secret_unreadable(error: BaseException) -> ToolFailure | None:
    """A store's credentials could not be read from Secrets Manager (an outage, or a throttle)."""
    try:
        from aws_lambda_powertools.utilities.parameters.exceptions import GetParameterError
    except ImportError:  # pragma: no cover - Powertools is a runtime dependency
        return None
    if isinstance(error, GetParameterError):
        return Unavailable("a store's credentials could not be read from Secrets Manager; retry in a few seconds")
    return None
