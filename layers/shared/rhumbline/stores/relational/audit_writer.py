"""Writing one audit row per tool call, committed before the call's response leaves.

Every warm tools/call writes a row, so its cost is part of every call. On SQLite (the embedded
store) SQLAlchemy's Core `INSERT` cost ~0.18 ms of CPU per row against ~0.06 ms for the same
statement on the driver connection (`/tmp` micro-benchmark, 3,000 rows, load 4): the connection's
BEGIN IMMEDIATE / COMMIT round, the execution context, the result object. So on SQLite the row is
one `INSERT` run on the pooled sqlite3 connection, which is in autocommit mode (engine.py): the
statement is its own transaction, it takes the write lock within the busy timeout as BEGIN
IMMEDIATE did, and it is committed (WAL, synchronous=NORMAL, as before) when `execute` returns.
The SQL and the bind processing (the `at` timestamp's stored text) are SQLAlchemy's own, compiled
once for the engine's dialect, so the stored row is the one Core would store
(tests/functional/stores/relational/test_audit_writer.py reads both back and compares them).

On PostgreSQL (hosted), where the row's cost is a network round trip, the Core insert in one
transaction stays as it was.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Unpack

from rhumbline.stores.relational.audit import INSERT_ROW, AuditFields, record, row_values

if TYPE_CHECKING:
    from sqlalchemy import Engine

# The columns a row gives, in the compiled statement's order (`id` is the database's).
COLUMNS = (
    "at", "request_id", "principal", "token_id", "tool", "project", "arguments_summary",
    "outcome", "error_code", "latency_ms", "result_bytes",
)  # fmt: skip


class AuditWriter:
    """Audit rows on one engine. Blocking; raises what the database raises."""

    def __init__(self, engine: "Engine") -> None:
        self.engine = engine
        self._direct = engine.dialect.name == "sqlite"
        if self._direct:
            compiled = INSERT_ROW.compile(dialect=engine.dialect, column_keys=list(COLUMNS))
            if tuple(compiled.positiontup or ()) != COLUMNS:
                raise RuntimeError(f"the audit insert binds {compiled.positiontup}, not {COLUMNS}")
            self._sql = compiled.string
            columns = INSERT_ROW.table.columns
            dialect = engine.dialect
            self._processors = [columns[name].type.dialect_impl(dialect).bind_processor(dialect) for name in COLUMNS]

    def write(self, **fields: Unpack[AuditFields]) -> None:
        if not self._direct:
            with self.engine.begin() as connection:
                record(connection, **fields)
            return
        values = row_values(**fields)
        parameters = [
            value if process is None else process(value)
            for process, value in zip(self._processors, (values[name] for name in COLUMNS))
        ]
        connection = self.engine.raw_connection()
        try:
            driver = connection.driver_connection
            driver.execute(self._sql, parameters)
            if driver.in_transaction:
                # Only a connection not configured by engine.py (sqlite3's legacy mode opens a
                # transaction before an INSERT): commit it, or returning it to the pool rolls back.
                driver.commit()
        finally:
            connection.close()
