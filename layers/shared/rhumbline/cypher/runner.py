"""Runs one read-only Cypher query for the `query` tool (see guard.py for the three layers).

Layer 2: `EXPLAIN <query>` must report query type 'r' ("rw", "w" and "s" — schema or
administration — are refused before the query runs). The verdict is Neo4j's answer about the
text alone, so it is remembered per exact statement text (`PlanVerdicts`): an agent repeating a
query pays the EXPLAIN once per container. Layer 3: the query itself runs in a READ access-mode
transaction with a server-side timeout, is never committed, and is read only up to `limit + 1`
records (the extra one tells "more" from "exactly this many"). A first-seen text is EXPLAINed in
that same transaction, just before it runs, and the caller's projects are resolved to the keys
of their served graphs there too (`Scope`): one session, one transaction per call, no extra
round trips to open and roll back a second one. BEGIN goes out with the key read (pipelined):
a repeated query is three round trips — BEGIN + key read, the query, ROLLBACK.

One driver per container per credentials, opened lazily, like the graph store's.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from rhumbline.cypher.values import Serializer
from rhumbline.errors import DeadlineExceeded, Forbidden, InvalidArguments, Unavailable
from rhumbline.stores.graph.factory import Neo4jCredentials
from rhumbline.stores.graph.neo4j.begin import begin_pipelined
from rhumbline.stores.graph.neo4j.keys import Namespace

MAX_RESULT_CHARS = 1_000_000  # serialized rows; Lambda answers are at most 6 MB
MAX_FETCH = 1_000  # records the driver pulls per round trip
MAX_VERDICTS = 512  # statement texts whose 'r' verdict a runner remembers (least recently used dropped)


@dataclass(frozen=True)
class QueryRun:
    columns: list[str]
    rows: list[dict[str, Any]]
    more: bool  # the query has rows beyond `rows`
    cut_by_size: bool  # `rows` stopped at MAX_RESULT_CHARS rather than at the limit
    redacted: int
    query_type: str
    elapsed_ms: float


@dataclass(frozen=True)
class Scope:
    """What `$project` and `$projects` are bound to: the active physical graph key (see
    stores/graph/neo4j/keys.py) of `project` (null when None) and of each of `projects`."""

    projects: tuple[str, ...]
    project: str | None


class ReadOnlyViolation(Forbidden):
    """The query would write, change the schema or administer the server."""


class PlanVerdicts:
    """Statement texts Neo4j has planned as read-only ('r'), most recently used last. Only 'r' is
    kept: a refused text is EXPLAINed (and refused) again. Keyed by the exact text, parameters
    aside: what a statement may do is fixed by its text (parameters are values, never clauses),
    and the READ transaction every query runs in stays the real guard."""

    def __init__(self, size: int = MAX_VERDICTS) -> None:
        self._size = size
        self._texts: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()

    def known_read(self, cypher: str) -> bool:
        with self._lock:
            if cypher not in self._texts:
                return False
            self._texts.move_to_end(cypher)
            return True

    def remember_read(self, cypher: str) -> None:
        with self._lock:
            self._texts[cypher] = None
            self._texts.move_to_end(cypher)
            while len(self._texts) > self._size:
                self._texts.popitem(last=False)


class CypherRunner:
    def __init__(self, credentials: Neo4jCredentials, *, dedicated: bool, connect_timeout: float) -> None:
        import neo4j

        self._neo4j = neo4j
        self.credentials = credentials
        self.dedicated = dedicated  # a read-only database user, not the graph store's own
        self.verdicts = PlanVerdicts()
        self._driver = neo4j.GraphDatabase.driver(
            credentials.uri,
            auth=(credentials.user, credentials.password),
            connection_timeout=connect_timeout,
            connection_acquisition_timeout=connect_timeout,
            notifications_min_severity="OFF",
        )

    @contextmanager
    def _read_transaction(self, timeout: float, fetch_size: int = MAX_FETCH) -> Iterator[Any]:
        """A READ access-mode transaction that is never committed (closing it rolls it back)."""
        neo4j = self._neo4j
        with (
            _translated(timeout),
            self._driver.session(
                database=self.credentials.database, default_access_mode=neo4j.READ_ACCESS, fetch_size=fetch_size
            ) as session,
        ):
            tx = begin_pipelined(session, timeout=timeout, metadata={"app": "rhumbline", "tool": "query"})
            try:
                yield tx
            finally:
                tx.close()

    def plan_type(self, cypher: str, params: dict[str, Any], *, timeout: float) -> str:
        """Neo4j's own verdict on what the query does: 'r', 'rw', 'w' or 's'."""
        with self._read_transaction(timeout) as tx:
            return _explained(tx, cypher, params)

    def run(
        self,
        cypher: str,
        params: dict[str, Any],
        *,
        limit: int,
        timeout: float,
        visible: Collection[str] | None,
        scope: Scope | None = None,
        namespace: Namespace = Namespace(),
        check_plan: bool = True,
    ) -> QueryRun:
        """`params` as given, plus `$project`/`$projects` from `scope` when there is one;
        `namespace`: whose keys the caller's projects are (elements of other namespaces are hidden).
        `check_plan=False` only in tests that prove the READ transaction holds on its own."""
        started = time.perf_counter()
        serializer = Serializer(visible, namespace)
        rows: list[dict[str, Any]] = []
        more = cut = False
        size = 0
        with self._read_transaction(timeout, fetch_size=min(limit + 1, MAX_FETCH)) as tx:
            params = _scoped(tx, params, scope, namespace)
            if check_plan and not self.verdicts.known_read(cypher):
                query_type = _explained(tx, cypher, params)
                if query_type != "r":
                    raise ReadOnlyViolation(
                        f"the query is not read-only: Neo4j plans it as query type '{query_type}' "
                        "(rw/w: writes, s: schema or administration); `query` runs reads only"
                    )
                self.verdicts.remember_read(cypher)
            result = tx.run(cypher, params)
            columns = list(result.keys())
            for record in result:
                if len(rows) == limit:
                    more = True
                    break
                row = {key: serializer.value(record[key]) for key in columns}
                size += len(json.dumps(row, ensure_ascii=False, default=str))
                if size > MAX_RESULT_CHARS:
                    more = cut = True
                    break
                rows.append(row)
        return QueryRun(
            columns=columns,
            rows=rows,
            more=more,
            cut_by_size=cut,
            redacted=serializer.redacted,
            query_type="r",
            elapsed_ms=round((time.perf_counter() - started) * 1000, 3),
        )

    def close(self) -> None:
        self._driver.close()


def _scoped(tx: Any, params: dict[str, Any], scope: Scope | None, namespace: Namespace) -> dict[str, Any]:
    """`params` with `$project`/`$projects` bound to the served graphs' keys, read in `tx`."""
    if scope is None:
        return params
    from rhumbline.stores.graph.neo4j.keys import RESOLVE

    graphs = sorted({namespace.graph(p) for p in (*scope.projects, *([scope.project] if scope.project else []))})
    keys = dict(tx.run(RESOLVE, graphs=graphs).single(strict=True)["found"]) if graphs else {}
    return {
        **params,
        "project": keys[namespace.graph(scope.project)] if scope.project else None,
        "projects": [keys[namespace.graph(p)] for p in scope.projects],
    }


def _explained(tx: Any, cypher: str, params: dict[str, Any]) -> str:
    """The query type of Neo4j's plan for `cypher` (EXPLAIN runs nothing)."""
    return tx.run("EXPLAIN " + cypher, params).consume().query_type or "?"


@contextmanager
def _translated(timeout: float) -> Iterator[None]:
    """Driver errors as the tool errors an agent can act on."""
    from neo4j import exceptions

    try:
        yield
    except ReadOnlyViolation:
        raise
    except (exceptions.ServiceUnavailable, exceptions.SessionExpired) as exc:
        raise Unavailable(f"Neo4j is unreachable: {exc}") from exc
    except exceptions.AuthError as exc:
        raise Unavailable("Neo4j rejected the query user's credentials") from exc
    except exceptions.Neo4jError as exc:
        code = exc.code or ""
        message = exc.message or str(exc)
        if "TransactionTimedOut" in code:
            raise DeadlineExceeded(f"the query ran past its {timeout:.1f} s timeout") from exc
        if code == "Neo.ClientError.Statement.AccessMode" or ".Security." in code:
            raise ReadOnlyViolation(f"the database refused the query ({code}): {message}") from exc
        if code.startswith("Neo.ClientError."):
            raise InvalidArguments(f"Neo4j rejected the query ({code}): {message}") from exc
        raise Unavailable(f"Neo4j failed to run the query ({code}): {message}") from exc


_lock = threading.Lock()
_runners: dict[tuple[str, ...], CypherRunner] = {}


def runner_for(credentials: Neo4jCredentials, *, dedicated: bool, connect_timeout: float) -> CypherRunner:
    """The container's runner for these credentials (a rotated password opens a new driver)."""
    secret = hashlib.sha256(credentials.password.encode()).hexdigest()
    key = (credentials.uri, credentials.user, secret, credentials.database)
    with _lock:
        runner = _runners.get(key)
        if runner is None:
            for stale in _runners.values():
                stale.close()
            _runners.clear()
            runner = _runners[key] = CypherRunner(credentials, dedicated=dedicated, connect_timeout=connect_timeout)
        return runner
