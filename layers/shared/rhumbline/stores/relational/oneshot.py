"""Single statements on the per-call path, each in one network round trip on PostgreSQL.

pg8000 runs a parameterized statement in three round trips (parse, describe, bind and execute),
and a transaction adds BEGIN, COMMIT and the pool's ping around it. A single statement needs none of
them: PostgreSQL runs it atomically by itself. So here a statement is prepared once per connection
(a named prepared statement, pg8000's `Connection.prepare`) and run in autocommit mode on an engine
without ping (`create_engine_from_url(..., autocommit=True)`, the container's
`resources.autocommit_engine()`): bind and execute in one round trip.

On SQLite the statement runs through SQLAlchemy in a transaction of its own (no network).

Values go to pg8000 as they are (aware datetimes, numbers, strings): no SQLAlchemy type processing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlalchemy import Engine
    from sqlalchemy.sql import Executable

PREPARED = "rhumbline.prepared"
# pg8000's legacy API, which SQLAlchemy's dialect drives, prepares `:name` placeholders.
PARAMSTYLE = "named"


class OneShot:
    def __init__(self, engine: "Engine") -> None:
        self.engine = engine
        self.postgres = engine.dialect.name == "postgresql"
        self._compiled: dict["Executable", tuple[str, dict[str, Any]]] = {}

    def rows(self, statement: "Executable", parameters: dict[str, Any]) -> list[tuple[Any, ...]]:
        """The statement's rows, committed."""
        if not self.postgres:
            with self.engine.begin() as connection:
                return [tuple(row) for row in connection.execute(statement, parameters)]
        from pg8000.exceptions import InterfaceError

        try:
            return self._prepared_rows(statement, parameters)
        except (InterfaceError, OSError):
            # The network failed (pg8000 raises either), most likely on a connection the server
            # closed while it sat in the pool (there is no ping), so the statement never ran. Its
            # pool mates are as old: drop them all, and run the statement once more on a new one.
            self.engine.dispose()
            return self._prepared_rows(statement, parameters)

    def _prepared_rows(self, statement: "Executable", parameters: dict[str, Any]) -> list[tuple[Any, ...]]:
        text, defaults = self._text(statement)
        with self.engine.connect() as connection:
            pooled = connection.connection
            prepared = pooled.info.setdefault(PREPARED, {})
            try:
                if text not in prepared:
                    prepared[text] = pooled.driver_connection.prepare(text)
                return [tuple(row) for row in prepared[text].run(**{**defaults, **parameters})]
            except Exception:
                # Whatever failed (a network error, a timeout, a plan a migration made stale), the
                # next use starts from a new connection with nothing prepared.
                connection.invalidate()
                raise

    def _text(self, statement: "Executable") -> tuple[str, dict[str, Any]]:
        """The statement's PostgreSQL text and the values of its literal binds, compiled once."""
        compiled = self._compiled.get(statement)
        if compiled is None:
            from sqlalchemy.dialects.postgresql.pg8000 import dialect

            result = statement.compile(dialect=dialect(paramstyle=PARAMSTYLE))
            compiled = self._compiled[statement] = (str(result), dict(result.params))
        return compiled
