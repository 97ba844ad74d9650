"""The Neo4j store's connection: the driver, bounded sessions and reads on the active physical keys.

Every query is bounded (a server-side transaction timeout), connecting is bounded by the driver's
connection timeouts, and connectivity problems and timeouts surface as GraphUnavailable. Reads
bind `$project` to the project's active physical key centrally, with a guard instead of a round
trip (keys.py).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from rhumbline.stores.graph.neo4j.keys import RESOLVE, KeyBinder, Namespace, is_moved
from rhumbline.stores.graph.neo4j.traversal import Neo4jReader
from rhumbline.stores.graph.protocol import GraphUnavailable

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from neo4j import Session


class Neo4jClient:
    """What every part of Neo4jGraphStore reads and writes through (the driver is imported lazily)."""

    def __init__(
        self, uri: str, user: str, password: str, *, database: str, timeout: float, namespace: str = ""
    ) -> None:
        """`namespace`: the prefix of every key this store writes and reads, when stacks share the
        database (keys.py); "" when the database is this stack's own."""
        import neo4j

        self._keys = KeyBinder(self._resolve, Namespace(namespace))
        self._neo4j = neo4j
        self._uri = uri
        self._database = database
        self._timeout = timeout
        # No connection yet: the driver connects on first use, bounded by these timeouts.
        # Auto-commit retries are off so that no call outlives its timeout; callers may retry. A
        # managed transaction (a staged write's: staged.py) is retried on transient errors for at
        # most the timeout.
        self._driver = neo4j.GraphDatabase.driver(
            uri,
            auth=(user, password),
            connection_timeout=timeout,
            connection_acquisition_timeout=timeout,
            max_transaction_retry_time=timeout,
            disable_auto_commit_retries=True,
            notifications_min_severity="OFF",
        )

    @contextmanager
    def _guard(self, seconds: float) -> Iterator[None]:
        """Turn connectivity failures and timeouts into GraphUnavailable with a specific message."""
        exceptions = self._neo4j.exceptions
        try:
            yield
        except (exceptions.ServiceUnavailable, exceptions.SessionExpired) as exc:
            raise GraphUnavailable(f"Neo4j at {self._uri} is unreachable: {exc}") from exc
        except exceptions.ConnectionAcquisitionTimeoutError as exc:
            raise GraphUnavailable(
                f"no connection to Neo4j at {self._uri} within {self._timeout:.1f} s"
            ) from exc
        except exceptions.AuthError as exc:
            raise GraphUnavailable(f"Neo4j at {self._uri} rejected the credentials") from exc
        except exceptions.Neo4jError as exc:
            code = exc.code or ""
            if "TransactionTimedOut" in code:
                raise GraphUnavailable(
                    f"Neo4j query exceeded its {seconds:.1f} s timeout"
                ) from exc
            if "OutOfMemory" in code:
                # Retrying the same batch fails the same way: say what to change.
                raise GraphUnavailable(
                    "the batch needs more memory than Neo4j allows one transaction"
                    " (db.memory.transaction.max): write it in smaller batches"
                ) from exc
            if isinstance(exc, exceptions.TransientError):
                raise GraphUnavailable(f"Neo4j transient failure, retry later: {exc}") from exc
            raise

    def _session(self, *, write: bool) -> Session:
        mode = self._neo4j.WRITE_ACCESS if write else self._neo4j.READ_ACCESS
        return self._driver.session(
            database=self._database,
            default_access_mode=mode,
            # Read-your-writes across sessions, should the server be a cluster.
            bookmark_manager=self._driver.execute_query_bookmark_manager,
        )

    def _read_raw(self, text: str, **params: Any) -> list[Any]:
        """One auto-commit read query, parameters as given; all its records."""
        query = self._neo4j.Query(text, timeout=self._timeout)
        with self._guard(self._timeout), self._session(write=False) as session:
            return list(session.run(query, params))

    def _read(self, text: str, **params: Any) -> list[Any]:
        """`_read_raw` with `$project` / `$projects` bound to the active physical keys: once more
        on the new keys if the project was flipped since they were cached."""
        for attempt in (1, 2):
            bound_text, bound, graphs = self._keys.bind(text, params)
            try:
                return self._read_raw(bound_text, **bound)
            except self._neo4j.exceptions.Neo4jError as error:
                if attempt == 2 or not is_moved(error):
                    raise
                self._keys.forget(graphs)
        raise AssertionError("unreachable")

    def _resolve(self, graphs: list[str]) -> dict[str, str]:
        return dict(self._read_raw(RESOLVE, graphs=graphs)[0]["found"])

    @contextmanager
    def _traversal_reader(self, project: str) -> Iterator[Neo4jReader]:
        """A read transaction (one snapshot, one server-side timeout) for a whole traversal."""
        with self._guard(self._timeout), self._session(write=False) as session:
            reader = Neo4jReader(session, project, self._keys, self._timeout)
            try:
                yield reader
            finally:
                reader.close()

    def close(self) -> None:
        try:
            self._driver.close()
        except BufferError:
            # The driver may fail to write its goodbye on a connection whose send buffer is still
            # exported (seen on Python 3.13); closing must not fail a SnapStart restore or a reset.
            log.warning("the Neo4j driver could not say goodbye on every connection", exc_info=True)
