"""Runs a compiled query (compiler.py) on the embedded graph store and shapes rows as Neo4j's answer.

Read-only three ways, each enough alone: the compiler emits one SELECT; the connection is opened
read-only with `query_only` on; an authorizer lets the statement read tables and call functions
and nothing else (no writes, no PRAGMA, no ATTACH). The time budget is a progress handler that
interrupts the statement past its deadline; rows are read up to `limit + 1` and the answer is
bounded in size as on Neo4j (answer.MAX_RESULT_CHARS).

The memory budget: no value the statement builds passes VALUE_BYTES (the connection's
SQLITE_LIMIT_LENGTH, and the `cy_*` functions before they build), sorts and materialized subqueries
spill to a temporary file past the page cache, and rows are read off the statement within
READ_CHARS.

Nodes and relationships come out of the statement as row ids and edge keys; their properties are
read afterwards in one statement each, again filtered on the caller's projects, and so are the
labels and relationship types the query names that those projects lack (the answer's warnings).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from typing import Any, Protocol, runtime_checkable

from rhumbline.cypher.answer import MAX_RESULT_CHARS, REDACTED, STRING_CHARS, Answer, scalar
from rhumbline.cypher.budget import VALUE_BYTES
from rhumbline.cypher.mentions import Mentions
from rhumbline.cypher.sqlite import functions
from rhumbline.cypher.sqlite.compiler import Compiled
from rhumbline.cypher.sqlite.tables import EDGE_COLUMNS, KIND_LABELS, LABEL, NODE_COLUMNS, SCOPE
from rhumbline.cypher.sqlite.types import T
from rhumbline.errors import DeadlineExceeded, InvalidArguments, QueryTooLarge, Unavailable, Unsupported

_PROGRESS_STEPS = 1_000  # SQLite VM instructions between deadline checks
# Rows are read off the statement until their raw values pass the answer's bound, counted as the
# answer shows them (a string cut at STRING_CHARS, a list or map as its JSON text, no longer than
# the answer's): past it the answer would be cut anyway, and reading on would decode for nothing
# (a list of empty lists becomes twenty times its text in objects).
READ_CHARS = MAX_RESULT_CHARS
_JSON_KINDS = frozenset({"list", "map", "path", "rel"})
_COLUMNS = 50  # columns of a result or a subquery (SQLite's default is 2,000): with VALUE_BYTES, the size of a row
# BEGIN and ROLLBACK (SQLITE_TRANSACTION) bracket the statement and the property reads: one snapshot.
_ALLOWED = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE, sqlite3.SQLITE_TRANSACTION}
_NODE_COLUMNS = ", ".join(NODE_COLUMNS)
_EDGE_COLUMNS = ", ".join(f"e.{c}" for c in EDGE_COLUMNS)
_FETCH_NODES = f"SELECT rid, {_NODE_COLUMNS} FROM nodes WHERE rid IN (SELECT value FROM json_each(:ids)) AND project IN {SCOPE}"
# Of the labels and relationship types a query names, those no node or relationship of the
# caller's projects has (mentions.py), read in the query's own snapshot.
_ABSENT = (
    f"SELECT 'label', l.value FROM json_each(:labels) AS l WHERE NOT EXISTS (SELECT 1 FROM nodes"
    f" WHERE project IN {SCOPE} AND (l.value = '{LABEL}' OR kind = l.value))"
    " UNION ALL SELECT 'type', t.value FROM json_each(:types) AS t WHERE NOT EXISTS (SELECT 1 FROM nodes AS n"
    f" JOIN edges AS e ON e.source = n.rid WHERE n.project IN {SCOPE} AND e.relation = t.value)"
)
_FETCH_EDGES = (
    f"SELECT e.source, e.relation, e.target, n.project, {_EDGE_COLUMNS}, e.properties"
    " FROM json_each(:keys) AS k"
    " JOIN edges AS e ON e.source = json_extract(k.value, '$[0]') AND e.relation = json_extract(k.value, '$[1]')"
    " AND e.target = json_extract(k.value, '$[2]')"
    f" JOIN nodes AS n ON n.rid = e.source WHERE n.project IN {SCOPE}"
)


def _authorize(action: int, table: str | None, *_: Any) -> int:
    if action in _ALLOWED:
        return sqlite3.SQLITE_OK
    # SQLite reads its schema through an internal statement the authorizer sees as an UPDATE of
    # sqlite_master (on a read-only connection nothing can be written).
    if action == sqlite3.SQLITE_UPDATE and table == "sqlite_master":
        return sqlite3.SQLITE_OK
    return sqlite3.SQLITE_DENY


class _Connections(threading.local):
    """Each thread's read-only connection, for the store file it last queried."""

    key: tuple[int, str] | None = None
    connection: sqlite3.Connection | None = None


_connections = _Connections()


@runtime_checkable
class ReadOnlyFile(Protocol):
    """The embedded graph store, as the runner reads it: a read-only connection to its file."""

    def read_only_connection(self) -> sqlite3.Connection: ...


def _connection(store: ReadOnlyFile) -> sqlite3.Connection:
    key = (id(store), str(getattr(store, "_path", "")))
    if _connections.key != key or _connections.connection is None:
        if _connections.connection is not None:
            _connections.connection.close()
        connection = store.read_only_connection()
        functions.register(connection)
        # Sorts, DISTINCT and materialized subqueries spill to a temporary file past the page cache.
        connection.execute("PRAGMA temp_store = FILE")
        connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, VALUE_BYTES)
        connection.setlimit(sqlite3.SQLITE_LIMIT_COLUMN, _COLUMNS)
        connection.set_authorizer(_authorize)
        connection.set_progress_handler(lambda: int(functions.past_deadline()), _PROGRESS_STEPS)
        _connections.key, _connections.connection = key, connection
    return _connections.connection


def run(
    store: ReadOnlyFile,
    compiled: Compiled,
    *,
    scope: list[str],
    limit: int,
    timeout: float,
    mentions: Mentions | None = None,
) -> Answer:
    started = time.perf_counter()
    connection = _connection(store)
    params = {**compiled.params, "scope": json.dumps(scope)}
    functions.set_deadline(time.monotonic() + timeout)
    functions.last_failure()  # nothing left over from an earlier statement
    try:
        connection.execute("BEGIN")
        try:
            cursor = connection.execute(compiled.sql, params)
            raw, read_cut = _read(cursor, limit + 1, compiled.types)
            more = read_cut or len(raw) > limit
            decoder = _Decoder()
            rows: list[list[Any]] = []
            for read in raw[:limit]:
                _on_time()
                rows.append([decoder.top(value, typ) for value, typ in zip(read, compiled.types)])
            nodes, edges = decoder.fetch(connection, scope)
            warnings = _warnings(connection, scope, mentions)
        finally:
            connection.execute("ROLLBACK")
        answer: list[dict[str, Any]] = []
        size, cut = 0, read_cut
        missing: list[int] = []  # elements not read back under the caller's projects (never expected)
        for row in rows:
            _on_time()
            shaped = {name: _resolve(value, nodes, edges, missing) for name, value in zip(compiled.columns, row)}
            size += len(json.dumps(shaped, ensure_ascii=False, default=str))
            if size > MAX_RESULT_CHARS:
                more = cut = True
                break
            answer.append(shaped)
    except sqlite3.Error as error:
        raise _translated(error, timeout) from error
    except functions.DeadlinePassed:
        raise DeadlineExceeded(f"the query ran past its {timeout:.1f} s timeout (its answer was being read)") from None
    finally:
        functions.set_deadline(0.0)
    return Answer(
        columns=list(compiled.columns),
        rows=answer,
        more=more,
        cut_by_size=cut,
        redacted=len(missing),
        query_type="r",
        elapsed_ms=round((time.perf_counter() - started) * 1000, 3),
        backend="sqlite",
        scoped=True,
        read_only_user=False,
        warnings=warnings,
    )


def _warnings(connection: sqlite3.Connection, scope: list[str], mentions: Mentions | None) -> tuple[str, ...]:
    if mentions is None:
        return ()
    absent: dict[str, list[str]] = {"label": [], "type": []}
    if mentions.labels or mentions.types:
        params = {"labels": json.dumps(mentions.labels), "types": json.dumps(mentions.types), "scope": json.dumps(scope)}
        for what, name in connection.execute(_ABSENT, params):
            absent[what].append(name)
    return mentions.warnings(absent["label"], absent["type"])


class _Steps(threading.local):
    count = 0


_steps = _Steps()


def _on_time(every: int = 1) -> None:
    """Decoding and shaping the rows count against the deadline too: checked every so many
    containers (a row may hold hundreds of thousands)."""
    _steps.count += 1
    if _steps.count % every == 0 and functions.past_deadline():
        raise functions.DeadlinePassed("the deadline passed")


def _read(cursor: sqlite3.Cursor, most: int, types: list[T]) -> tuple[list[tuple[Any, ...]], bool]:
    """Up to `most` rows, and whether READ_CHARS stopped the reading first."""
    rows: list[tuple[Any, ...]] = []
    size = 0
    for row in cursor:
        for value, typ in zip(row, types):
            if not isinstance(value, (str, bytes)):
                size += 1
            else:
                size += len(value) if typ.kind in _JSON_KINDS else min(len(value), STRING_CHARS)
        if size > READ_CHARS:
            return rows, True
        rows.append(row)
        if len(rows) == most:
            break
    return rows, False


def _translated(error: sqlite3.Error, timeout: float) -> Exception:
    message = str(error)
    failure = functions.last_failure()
    if "interrupted" in message or isinstance(failure, functions.DeadlinePassed):
        return DeadlineExceeded(f"the query ran past its {timeout:.1f} s timeout")
    if isinstance(failure, functions.ValueTooLarge):
        return _too_large(str(failure))
    if isinstance(failure, functions.RegexUnsupported):
        return Unsupported(f"query refused: {failure}", details={"construct": "regular expression"})
    if failure is not None:
        return InvalidArguments(f"the query failed: {failure}")
    if "too big" in message:  # SQLITE_TOOBIG: a value past SQLITE_LIMIT_LENGTH
        return _too_large(f"a value would pass the {VALUE_BYTES:,}-byte limit on a value ({message})")
    if "too many columns" in message:
        return QueryTooLarge(
            f"the query was stopped: a result or a subquery has more columns than the limit of {_COLUMNS}",
            details={"limit": "columns", "columns": _COLUMNS},
        )
    if "locked" in message or "busy" in message:
        return Unavailable(f"the embedded graph stayed locked: {message}")
    if "not authorized" in message:
        return Unsupported("the compiled query was refused by the read-only connection")
    return Unsupported(f"the embedded store could not run this query ({message})")


def _too_large(reason: str) -> QueryTooLarge:
    return QueryTooLarge(
        f"the query was stopped: {reason}. Aggregate or filter sooner (count, size, LIMIT) to build less.",
        details={"limit": "value_bytes", "value_bytes": VALUE_BYTES},
    )


class _Final:
    """A decoded list or map that is already as the answer shows it: nothing to walk."""

    def __init__(self, value: Any) -> None:
        self.value = value


def _final(text: str) -> bool:
    """Whether a container's JSON text decodes to its answer as is: no node, relationship or path
    inside, no string to cut at STRING_CHARS, no non-finite number (conservatively, on the text)."""
    if '"~' in text or '\\"' in text or any(marker in text for marker in ("e999", "e+999", "Infinity", "NaN")):
        return False
    return all(len(inside) <= STRING_CHARS for inside in text.split('"')[1::2])


class _Node(int):
    """A node's row id in a decoded row, resolved once the nodes are read."""


class _Rel(tuple[Any, ...]):
    """A relationship's (source, type, target) in a decoded row."""


class _Decoder:
    def __init__(self) -> None:
        self.nodes: set[int] = set()
        self.edges: set[tuple[int, str, int]] = set()

    def top(self, value: Any, typ: T) -> Any:
        if value is None:
            return None
        kind = typ.kind
        if kind == "node":
            self.nodes.add(value)
            return _Node(value)
        if kind == "rel":
            return self.inner({"~r": json.loads(value)})
        if kind == "path":
            return self.inner({"~p": json.loads(value)})
        if kind == "bool":
            return bool(value)
        if kind in ("list", "map"):
            decoded = json.loads(value)
            return _Final(decoded) if _final(value) else self.inner(decoded)
        if kind == "float" and isinstance(value, int):
            return float(value)
        return value

    def inner(self, value: Any) -> Any:
        if isinstance(value, list):
            _on_time(every=1024)
            return [self.inner(v) for v in value]
        if isinstance(value, dict):
            if len(value) == 1:
                tag, body = next(iter(value.items()))
                if tag == "~n":
                    return None if body is None else self.top(body, T("node"))
                if tag == "~r":
                    if body is None:
                        return None
                    key = (body[0], body[1], body[2])
                    self.edges.add(key)
                    self.nodes.update((body[0], body[2]))
                    return _Rel(key)
                if tag == "~p":
                    nodes, rels = body
                    return {"~path": ([self.inner(n) for n in nodes], [self.inner(r) for r in rels])}
            return {k: self.inner(v) for k, v in value.items()}
        return value

    def fetch(self, connection: sqlite3.Connection, scope: list[str]) -> tuple[dict[int, Any], dict[tuple[Any, ...], Any]]:
        nodes: dict[int, Any] = {}
        if self.nodes:
            rows = connection.execute(_FETCH_NODES, {"ids": json.dumps(sorted(self.nodes)), "scope": json.dumps(scope)})
            for rid, *values in rows:
                properties = {k: scalar(v) for k, v in sorted(zip(NODE_COLUMNS, values)) if v is not None}
                kind = properties.get("kind")
                labels = sorted([LABEL, kind]) if kind in KIND_LABELS else [LABEL]
                nodes[rid] = {"type": "node", "element_id": f"n:{rid}", "labels": labels, "properties": properties}
        edges: dict[tuple[Any, ...], Any] = {}
        if self.edges:
            keys = json.dumps(sorted(self.edges))
            for source, relation, target, project, *values in connection.execute(
                _FETCH_EDGES, {"keys": keys, "scope": json.dumps(scope)}
            ):
                *columns, extra = values
                properties = {"project": project, **dict(zip(EDGE_COLUMNS, columns)), **json.loads(extra or "{}")}
                edges[(source, relation, target)] = {
                    "type": "relationship",
                    "element_id": f"r:{source}:{relation}:{target}",
                    "rel_type": relation,
                    "start": f"n:{source}",
                    "end": f"n:{target}",
                    "properties": {k: scalar(v) for k, v in sorted(properties.items()) if v is not None},
                }
        return nodes, edges


def _resolve(value: Any, nodes: dict[int, Any], edges: dict[tuple[Any, ...], Any], missing: list[int]) -> Any:
    if isinstance(value, _Final):
        return value.value
    if isinstance(value, _Node):
        if int(value) not in nodes:
            missing.append(1)
            return {**REDACTED, "element": "node"}
        return nodes[int(value)]
    if isinstance(value, _Rel):
        if tuple(value) not in edges:
            missing.append(1)
            return {**REDACTED, "element": "relationship"}
        return edges[tuple(value)]
    if isinstance(value, list):
        _on_time(every=1024)
        return [_resolve(v, nodes, edges, missing) for v in value]
    if isinstance(value, dict):
        if "~path" in value and len(value) == 1:
            path_nodes, path_rels = value["~path"]
            return {
                "type": "path",
                "nodes": [_resolve(n, nodes, edges, missing) for n in path_nodes],
                "relationships": [_resolve(r, nodes, edges, missing) for r in path_rels],
            }
        return {k: _resolve(v, nodes, edges, missing) for k, v in value.items()}
    return scalar(value)
