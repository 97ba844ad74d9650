"""A throwaway PostgreSQL database on the test server, so suites do not see each other's rows."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url


def fresh_database_url(server_url: str, name: str) -> tuple[str, Callable[[], None]]:
    """Create database `name` on the server behind `server_url`; return its URL and a dropper."""
    admin = create_engine(server_url, isolation_level="AUTOCOMMIT", connect_args={"timeout": 30})
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(server_url).set(database=name).render_as_string(hide_password=False)

    def drop() -> None:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

    return url, drop
