"""Alembic environment: runs on the connection `migrate.upgrade` passes in, never its own.

There is no alembic.ini and no URL here on purpose: the caller owns the engine (and its timeouts,
locks and transaction).
"""

from __future__ import annotations

from alembic import context

from rhumbline.stores.relational.schema.base import Base


def run_migrations() -> None:
    if context.is_offline_mode():
        raise RuntimeError("offline (--sql) migrations are not supported")
    connection = context.config.attributes.get("connection")
    if connection is None:
        raise RuntimeError("run migrations through rhumbline.stores.relational.migrate.upgrade(engine)")
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        # SQLite cannot ALTER most things: batch mode rebuilds the table instead.
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


run_migrations()
