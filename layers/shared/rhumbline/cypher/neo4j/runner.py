"""Runs one read-only Cypher query for the `query` tool (see guard.py for the three layers).

Layer 2: `EXPLAIN <query>` must report query type 'r' ("rw", "w" and "s" — schema or
administration — are refused before the query runs), and its plan may hold no operator that is
not a graph read: LOAD CSV, SHOW ..., TERMINATE TRANSACTIONS and administration plan as reads
too. The verdict is Neo4j's answer about the
text alone, so it is remembered per exact statement text (`PlanVerdicts`): an agent repeating a
query pays the EXPLAIN once per container. Layer 3: the query itself runs in a READ access-mode
transaction with a server-side timeout, is never committed, and is read only up to `limit + 1`
records (the extra one tells "more" from "exactly this many"). A first-seen text is EXPLAINed in
that same transaction, just before it runs, and the caller's projects are resolved to the keys
of their served graphs there too (`Scope`): one session, one transaction per call, no extra
round trips to open and roll back a second one. BEGIN goes out with the key read (pipelined),
which also tells which of the labels and relationship types the query names the served graphs
lack (the answer's warnings): a repeated query is three round trips — BEGIN + key read, the
query, ROLLBACK.

The answer is read off the connection within bounds (`BoundedReads`): at most MAX_ANSWER_BYTES
and until the call's deadline, whatever the query returns (a value of 2^28 characters included):
past either, the connection is dropped (the server then ends the transaction) and the rows read
so far are the answer, cut by size, or the call fails when there are none.

One driver per container per credentials, opened lazily, like the graph store's.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from rhumbline.cypher.answer import MAX_RESULT_CHARS, Answer
from rhumbline.cypher.budget import ABORT_MARKER, LIST_ELEMENT_WEIGHT, VALUE_BYTES
from rhumbline.cypher.mentions import Mentions
from rhumbline.cypher.schema import LABEL
from rhumbline.cypher.neo4j.values import AnswerTooLarge, AnswerTooLate, Serializer
from rhumbline.errors import DeadlineExceeded, Forbidden, InvalidArguments, QueryTooLarge, Unavailable
from rhumbline.stores.graph.factory import Neo4jCredentials
from rhumbline.stores.graph.neo4j.begin import begin_pipelined
from rhumbline.stores.graph.neo4j.keys import RESOLVE, Namespace

MAX_FETCH = 1_000  # records the driver pulls per round trip
MAX_VERDICTS = 512  # statement texts whose 'r' verdict a runner remembers (least recently used dropped)
# Bytes of an answer read off the Bolt connection at most: a few times MAX_RESULT_CHARS (Bolt's
# encoding of nodes is larger than their JSON), far below a small Lambda's memory.
MAX_ANSWER_BYTES = 4 * 1024 * 1024
# Past the server-side timeout, a moment for the server's own timeout error to arrive first; the
# tool answers within it (its timeout leaves 0.5 s of the call's deadline), whenever the server
# notices (db.transaction.monitor.check.interval).
READ_DEADLINE_GRACE_SECONDS = 0.3
# Plan operators that read something other than the graph, or act on the server: they plan as
# reads (query type 'r'), so the query type alone lets them through. Matched by name prefix.
NOT_GRAPH_READS = ("LoadCSV", "Show", "Terminate", "AdministrationCommand", "SystemProcedureCall")
# keys.RESOLVE, and in the same statement which of the labels and relationship types a query names
# the caller's served graphs (`$visible`, resolved to `keys`) have (`{checks}`: _checks).
_RESOLVE_AND_LOOK = """
UNWIND $graphs AS graph
OPTIONAL MATCH (h:GraphHead {project: graph})
WITH collect([graph, coalesce(h.active, graph)]) AS found
WITH found, [pair IN found WHERE pair[0] IN $visible | pair[1]] AS keys
RETURN found, [{checks}] AS present
"""


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
                if getattr(tx, "dropped", False):
                    _drop(session)  # BoundedReads broke its connection off: nothing to roll back over it
                else:
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
        names: Mapping[str, str] | None = None,
        mentions: Mentions | None = None,
    ) -> Answer:
        """`params` as given, plus `$project`/`$projects` from `scope` when there is one;
        `namespace`: whose keys the caller's projects are (elements of other namespaces are hidden);
        `names`: generated names of the scoped rewrite -> the caller's, for the answer's column
        names and map keys (scoping.Scoped.names); `mentions`: the labels and relationship types
        the query names, those the scope's graphs lack named in the answer's warnings.
        `check_plan=False` only in tests that prove the READ transaction holds on its own."""
        started = time.perf_counter()
        serializer = Serializer(visible, namespace, deadline=time.monotonic() + timeout)
        rows: list[dict[str, Any]] = []
        more = cut = False
        size = 0
        with self._read_transaction(timeout, fetch_size=min(limit + 1, MAX_FETCH)) as tx:
            params, warnings = _scoped(tx, params, scope, namespace, mentions)
            if check_plan and not self.verdicts.known_read(cypher):
                _check_plan(tx, cypher, params)
                self.verdicts.remember_read(cypher)
            bounded = BoundedReads(tx, MAX_ANSWER_BYTES, timeout + READ_DEADLINE_GRACE_SECONDS)
            try:
                with bounded:
                    result = tx.run(cypher, params)
                    keys = list(result.keys())
                    columns = [names.get(key, key) for key in keys] if names else keys
                    for record in result:
                        if len(rows) == limit:
                            more = True
                            break
                        try:
                            row = {column: serializer.value(record[key]) for column, key in zip(columns, keys)}
                        except AnswerTooLarge:
                            size = MAX_RESULT_CHARS + 1
                        except AnswerTooLate:
                            bounded.break_off()
                            tx.dropped = True
                            raise DeadlineExceeded(
                                f"the query ran past its {timeout:.1f} s timeout (its answer was being read)"
                            ) from None
                        else:
                            if names:
                                row = _renamed(row, names)
                            size += len(json.dumps(row, ensure_ascii=False, default=str))
                        if size > MAX_RESULT_CHARS:
                            more = cut = True
                            bounded.break_off()
                            tx.dropped = True
                            break
                        rows.append(row)
            except Exception:
                if not bounded.tripped:
                    raise
                tx.dropped = True
                if bounded.timed_out:
                    raise DeadlineExceeded(
                        f"the query ran past its {timeout:.1f} s timeout (its answer was still arriving)"
                    ) from None
                if not rows:
                    raise InvalidArguments(
                        f"the first row of the answer is larger than {MAX_ANSWER_BYTES} bytes: return less "
                        "(e.g. `left(s, 1000)`, `size(list)`, a few properties rather than whole nodes)"
                    ) from None
                more = cut = True
        return Answer(
            columns=columns,
            rows=rows,
            more=more,
            cut_by_size=cut,
            redacted=serializer.redacted,
            query_type="r",
            elapsed_ms=round((time.perf_counter() - started) * 1000, 3),
            backend="neo4j",
            scoped=visible is not None,
            read_only_user=self.dedicated,
            warnings=warnings,
        )

    def close(self) -> None:
        self._driver.close()


def _renamed(value: Any, names: Mapping[str, str]) -> Any:
    """`value` with the keys of its maps (at any depth) that are generated names given back as the
    caller wrote them: `{`a b`: 1}` was run as `{rhumbline_i1: 1}`."""
    if isinstance(value, dict):
        return {names.get(key, key): _renamed(item, names) for key, item in value.items()}
    if isinstance(value, list):
        return [_renamed(item, names) for item in value]
    return value


def _scoped(
    tx: Any, params: dict[str, Any], scope: Scope | None, namespace: Namespace, mentions: Mentions | None
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """`params` with `$project`/`$projects` bound to the served graphs' keys, read in `tx`, and the
    warnings for what `mentions` names that no element of `$projects` has, read in the same
    statement (the one BEGIN is pipelined with: no round trip of their own)."""
    if scope is None:
        return params, ()
    graphs = sorted({namespace.graph(p) for p in (*scope.projects, *([scope.project] if scope.project else []))})
    checks = _checks(mentions) if mentions is not None else []
    found, present = [], [False] * len(checks)
    if graphs and checks:
        visible = [namespace.graph(p) for p in scope.projects]
        text = _RESOLVE_AND_LOOK.replace("{checks}", ", ".join(checks))
        record = tx.run(text, graphs=graphs, visible=visible).single(strict=True)
        found, present = record["found"], record["present"]
    elif graphs:
        found = tx.run(RESOLVE, graphs=graphs).single(strict=True)["found"]
    keys = dict(found)
    scoped = {
        **params,
        "project": keys[namespace.graph(scope.project)] if scope.project else None,
        "projects": [keys[namespace.graph(p)] for p in scope.projects],
    }
    if mentions is None:
        return scoped, ()
    absent = {name for name, there in zip((*mentions.labels, *mentions.types), present) if not there}
    return scoped, mentions.warnings(
        [name for name in mentions.labels if name in absent], [name for name in mentions.types if name in absent]
    )


def _checks(mentions: Mentions) -> list[str]:
    """Whether an element of the served graphs (`keys`) has each label and relationship type named:
    the text holds only the graph's own labels (a fixed set) and plain type names (mentions.py
    keeps no other). Each reads the served graphs' nodes through the project index: left to
    itself the planner scans the label or the relationship type across every project."""
    nodes = f"MATCH (n:{LABEL}) USING INDEX n:{LABEL}(project) WHERE n.project IN keys"
    edges = f"MATCH (n:{LABEL})-[:`{{name}}`]->() USING INDEX n:{LABEL}(project) WHERE n.project IN keys"
    return [
        f"EXISTS {{ {nodes}{'' if label == LABEL else f' AND n:`{label}`'} }}" for label in mentions.labels
    ] + [f"EXISTS {{ {edges.replace('{name}', name)} }}" for name in mentions.types]


def _explained(tx: Any, cypher: str, params: dict[str, Any]) -> str:
    """The query type of Neo4j's plan for `cypher` (EXPLAIN runs nothing)."""
    return tx.run("EXPLAIN " + cypher, params).consume().query_type or "?"


def _check_plan(tx: Any, cypher: str, params: dict[str, Any]) -> None:
    """Refuse unless Neo4j plans `cypher` as a read ('r') made of graph-reading operators only."""
    summary = tx.run("EXPLAIN " + cypher, params).consume()
    query_type = summary.query_type or "?"
    if query_type != "r":
        raise ReadOnlyViolation(
            f"the query is not read-only: Neo4j plans it as query type '{query_type}' "
            "(rw/w: writes, s: schema or administration); `query` runs reads only"
        )
    refused = sorted({name for name in _operators(summary.plan) if name.startswith(NOT_GRAPH_READS)})
    if refused:
        raise ReadOnlyViolation(
            f"the query's plan uses {', '.join(refused)}: `query` reads the graph only (no LOAD CSV, SHOW, "
            "TERMINATE or administration)"
        )


def _operators(plan: Any) -> Iterator[str]:
    """The operator names of an EXPLAIN plan (`ShowTransactions@neo4j` → `ShowTransactions`)."""
    pending = [plan] if isinstance(plan, dict) else []
    while pending:
        node = pending.pop()
        yield str(node.get("operatorType", "")).split("@", 1)[0]
        pending.extend(child for child in node.get("children", ()) if isinstance(child, dict))


class BoundedReads:
    """While entered, the transaction's connection yields at most `budget` bytes and blocks for
    nothing past `seconds` from now: the driver buffers a whole record before handing it over, so
    its reads are bounded where they happen, on its socket. Tripping a bound raises an OSError in
    the driver, which drops the connection (`tripped`, `timed_out` say why).

    The driver has no public hook for this: the socket is its private `tx._connection.socket`.
    Without it the query is refused rather than read unbounded (a driver upgrade fails the tests
    in tests/security/test_neo4j_hardening.py, not production memory)."""

    def __init__(self, tx: Any, budget: int, seconds: float) -> None:
        socket = getattr(getattr(tx, "_connection", None), "socket", None)
        if socket is None or not hasattr(socket, "recv_into") or not hasattr(socket, "set_read_deadline"):
            raise Unavailable("the Neo4j driver's connection cannot be bounded (an unsupported driver version)")
        self.socket = socket
        self.budget = budget
        self.seconds = seconds
        self.read = 0
        self.tripped = self.timed_out = self.broken = False

    def __enter__(self) -> "BoundedReads":
        from neo4j._exceptions import SocketDeadlineExceededError

        deadline = time.monotonic() + self.seconds
        receive = self.socket.recv_into

        def bounded_receive(buffer: Any, nbytes: int) -> int:
            if self.broken:
                raise OSError("the answer was cut: the connection is dropped")
            if time.monotonic() > deadline:
                self.tripped = self.timed_out = True
                raise OSError(f"the answer was still arriving after {self.seconds:.1f} s")
            try:
                received: int = receive(buffer, nbytes)
            except SocketDeadlineExceededError:  # blocked until the socket's read deadline
                self.tripped = self.timed_out = True
                raise
            self.read += received
            if self.read > self.budget:
                self.tripped = True
                raise OSError(f"the answer passed {self.budget} bytes")
            return received

        self.socket.recv_into = bounded_receive  # an instance attribute: the class's method is untouched
        self.socket.set_read_deadline(self.seconds)
        return self

    def break_off(self) -> None:
        """Read nothing more: closing the transaction would first read and decode every record
        still in flight (a fetch of large records: seconds). The connection is dropped instead."""
        self.broken = True

    def __exit__(self, *exc_info: Any) -> None:
        if self.broken:
            return  # its reads keep failing until the driver drops it
        self.socket.__dict__.pop("recv_into", None)
        self.socket.set_read_deadline(None)


def _drop(session: Any) -> None:
    """End a session whose connection was broken off on purpose, quietly."""
    try:
        session.close()
    except Exception:  # noqa: BLE001 - the connection is already defunct; the server ends the transaction
        pass


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
        if code.endswith(".MemoryPoolOutOfMemoryError"):  # past db.memory.transaction.max
            raise QueryTooLarge(
                f"the query was stopped: it needed more memory than the database allows a transaction ({message})",
                details={"limit": "db.memory.transaction.max"},
            ) from exc
        if ABORT_MARKER in message:  # a guard of the scoped writer's (scoping.py), before building
            raise QueryTooLarge(
                f"the query was stopped: a value it builds would pass the limit on a value ({VALUE_BYTES:,} "
                f"characters of a string, {VALUE_BYTES // LIST_ELEMENT_WEIGHT:,} elements of a list; in a list "
                "comprehension, shared among its elements). Aggregate or filter sooner (count, size, LIMIT) to "
                "build less.",
                details={"limit": "value_bytes", "value_bytes": VALUE_BYTES},
            ) from exc
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
