"""Relational store tests run on both databases: a SQLite file and the real PostgreSQL server.

On PostgreSQL each engine lives in a schema of its own (`search_path`), dropped afterwards, so
test modules never see each other's rows and the shared test database stays clean.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, event

from rhumbline.stores.relational.engine import create_engine_from_url
from rhumbline.stores.relational.migrate import upgrade

DATABASES = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]

EngineFactory = Callable[..., Engine]


def _in_schema(engine: Engine, schema: str) -> Engine:
    @event.listens_for(engine, "connect")
    def _set_search_path(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute(f'SET search_path TO "{schema}"')
        cursor.close()
        # pg8000 opened a transaction for the SET; a later ROLLBACK would undo it.
        dbapi_connection.commit()

    return engine


class EngineMaker:
    """Creates engines on one fresh, empty database (a SQLite file, or a PostgreSQL schema)."""

    def __init__(self, kind: str, tmp_dir: Path, postgres_url: str | None) -> None:
        self.kind = kind
        self._tmp_dir = tmp_dir
        self._postgres_url = postgres_url
        self._schema = f"t_{uuid.uuid4().hex[:12]}"
        self._engines: list[Engine] = []
        if kind == "postgresql":
            with self._admin().begin() as connection:
                connection.exec_driver_sql(f'CREATE SCHEMA "{self._schema}"')

    def _admin(self) -> Engine:
        assert self._postgres_url is not None
        engine = create_engine_from_url(self._postgres_url, timeout=10)
        self._engines.append(engine)
        return engine

    def __call__(self, *, timeout: float = 10.0, autocommit: bool = False) -> Engine:
        if self.kind == "sqlite":
            engine = create_engine_from_url(f"sqlite:///{self._tmp_dir / 'db' / 'rhumbline.sqlite3'}", timeout=timeout)
        else:
            assert self._postgres_url is not None
            url = self._postgres_url
            engine = _in_schema(create_engine_from_url(url, timeout=timeout, autocommit=autocommit), self._schema)
        self._engines.append(engine)
        return engine

    def close(self) -> None:
        if self.kind == "postgresql":
            with self._admin().begin() as connection:
                connection.exec_driver_sql(f'DROP SCHEMA "{self._schema}" CASCADE')
        for engine in self._engines:
            engine.dispose()


def _maker(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> EngineMaker:
    postgres_url = request.getfixturevalue("postgres_url") if request.param == "postgresql" else None
    return EngineMaker(request.param, tmp_path_factory.mktemp(request.param), postgres_url)


@pytest.fixture(params=DATABASES)
def fresh_database(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[EngineMaker]:
    """An empty database per test (for migration tests)."""
    maker = _maker(request, tmp_path_factory)
    yield maker
    maker.close()


@pytest.fixture(scope="module", params=DATABASES)
def engines(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Engine, Engine]]:
    """A migrated database shared by one test module, and the engine single statements run on
    (runtime.resources.autocommit_engine: on PostgreSQL an autocommit one, on SQLite the same)."""
    maker = _maker(request, tmp_path_factory)
    migrated = maker()
    upgrade(migrated)
    yield migrated, maker(autocommit=True) if maker.kind == "postgresql" else migrated
    maker.close()


@pytest.fixture(scope="module", params=DATABASES)
def engine(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """A migrated database shared by one test module; tests use unique slugs and principals."""
    maker = _maker(request, tmp_path_factory)
    migrated = maker()
    upgrade(migrated)
    yield migrated
    maker.close()
