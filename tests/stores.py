"""Real stores opened by a test for its own calls: the `Stores` the tool handler passes a tool
(rhumbline/runtime/context.py), made without the container's resources.

- embedded: a SQLite relational file and a SQLite graph file in a directory of the test's;
- production: a PostgreSQL database (migrated) and a Neo4j server.

Where the stores are is the fixture's; how they behave (timeouts, a Neo4j namespace, semantic
ranking) is the configuration's, read as a deployment reads it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import NoReturn

import pytest

from rhumbline.config import Settings, load_settings
from rhumbline.runtime.context import Stores
from rhumbline.stores.graph.factory import open_graph_store
from rhumbline.stores.relational import migrate
from rhumbline.stores.relational.engine import create_engine_from_url


CONTAINER_OPENERS = ("relational_engine", "autocommit_engine", "graph_store", "source_blobs")


def refuse_container_stores(monkeypatch: pytest.MonkeyPatch) -> None:
    """One door: code under test reaches the stores it is given; reaching the container's
    (runtime/resources.py) fails, naming the opener, instead of opening the default home."""
    from rhumbline.runtime import resources

    for opener in CONTAINER_OPENERS:
        monkeypatch.setattr(resources, opener, _refused(opener))


def _refused(opener: str) -> Callable[[], NoReturn]:
    def reach() -> NoReturn:
        raise AssertionError(f"a call reached the container's {opener}() (runtime/resources.py), not its own stores")

    return reach


def sqlite_url(directory: Path) -> str:
    return f"sqlite:///{directory / 'rhumbline.sqlite3'}"


@contextmanager
def opened_stores(database_url: str, graph_settings: Settings) -> Iterator[Stores]:
    """The relational store at `database_url` (migrated) and the graph store `graph_settings` name
    (whose timeouts both keep, and whose Cypher engine the `query` tool runs), closed on exit."""
    timeout = graph_settings.db_timeout
    engine = create_engine_from_url(database_url, timeout=timeout)
    postgres = engine.dialect.name == "postgresql"
    autocommit = create_engine_from_url(database_url, timeout=timeout, autocommit=True) if postgres else None
    try:
        migrate.upgrade(engine)
        graph = open_graph_store(graph_settings)
        try:
            yield Stores.opened(engine, graph, autocommit=autocommit, settings=graph_settings)
        finally:
            graph.close()
    finally:
        for each in (engine, autocommit):
            if each is not None:
                each.dispose()


def embedded_stores(directory: Path) -> AbstractContextManager[Stores]:
    """SQLite relational and graph files in `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    return opened_stores(sqlite_url(directory), replace(load_settings(), graph_backend="sqlite", graph_path=directory / "graph.sqlite3"))


def neo4j_settings(server: dict[str, str]) -> Settings:
    """Settings naming the test Neo4j server (conftest's `neo4j_server`) as the graph store."""
    return replace(
        load_settings(), graph_backend="neo4j", neo4j_uri=server["uri"], neo4j_user=server["user"],
        neo4j_password=server["password"], neo4j_secret_arn="",
    )  # fmt: skip


def neo4j_environment(server: dict[str, str]) -> dict[str, str]:
    """The configuration naming the test Neo4j server as the graph backend, for code that reads it
    from the environment (the `query` tool's own connection)."""
    return {
        "RHUMBLINE_GRAPH_BACKEND": "neo4j",
        "RHUMBLINE_NEO4J_URI": server["uri"],
        "RHUMBLINE_NEO4J_USER": server["user"],
        "RHUMBLINE_NEO4J_PASSWORD": server["password"],
    }


def production_stores(database_url: str, server: dict[str, str]) -> AbstractContextManager[Stores]:
    """A PostgreSQL database and the test Neo4j server; the test keeps to its own project slugs."""
    return opened_stores(database_url, neo4j_settings(server))
