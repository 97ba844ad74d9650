"""Schema migrations (Alembic), run programmatically: no alembic.ini, no CLI at run time.

`upgrade(engine)` is cheap when the schema is current, so every process calls it at start.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, text

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"

# Any constant shared by every Rhumbline process; "rhlm" in ASCII.
ADVISORY_LOCK_KEY = 0x72686C6D


def _config(connection: Connection) -> "Config":
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["connection"] = connection
    return config


def upgrade(engine: Engine) -> None:
    """Bring the schema to the newest revision, in one transaction.

    Concurrent cold starts are serialised: on PostgreSQL by a transaction-level advisory lock
    (released by the commit, or by the rollback if a migration fails), on SQLite by the write lock
    that `BEGIN IMMEDIATE` takes. The second process then finds the schema current.
    """
    from alembic import command

    with engine.connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:
            # Batch migrations rebuild a table by copying it and dropping the original; with
            # foreign keys on, that DROP would cascade-delete the children's rows. The pragma is a
            # no-op inside a transaction, so it is set on the raw connection before BEGIN.
            connection.connection.driver_connection.execute("PRAGMA foreign_keys=OFF")
        try:
            with connection.begin():
                if connection.dialect.name == "postgresql":
                    connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": ADVISORY_LOCK_KEY})
                command.upgrade(_config(connection), "head")
                if sqlite:
                    broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                    if broken:
                        raise RuntimeError(f"migration left rows violating foreign keys: {broken[:10]}")
        finally:
            if sqlite:
                connection.connection.driver_connection.execute("PRAGMA foreign_keys=ON")


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at, or None before the first migration."""
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()
