"""The Cypher engine of the graph backend the settings name: the one place that tells them apart,
opened beside the graph store (runtime/resources.py) and reached by tools as `context.cypher`.

A scoped query on Neo4j must stay within what the embedded store answers alike, so the Neo4j
engine is given the SQLite compiler as its subset check (the two engines never import each other)."""

from __future__ import annotations

from collections.abc import Callable

from rhumbline.config import Settings
from rhumbline.cypher.protocol import CypherEngine
from rhumbline.stores.graph.protocol import GraphStore


def open_engine(settings: Settings, graph: Callable[[], GraphStore]) -> CypherEngine:
    """`graph` opens the graph store (called only by the engine that reads through it)."""
    if settings.graph_backend == "neo4j":
        from rhumbline.cypher.neo4j.engine import Neo4jCypher
        from rhumbline.cypher.sqlite.engine import compiled

        return Neo4jCypher(settings, conforms=compiled)
    if settings.graph_backend == "sqlite":
        from rhumbline.cypher.sqlite.engine import SqliteCypher
        from rhumbline.cypher.sqlite.runner import ReadOnlyFile

        store = graph()
        if not isinstance(store, ReadOnlyFile):
            raise TypeError(f"the sqlite backend's graph store {type(store).__name__} has no read-only connection")
        return SqliteCypher(store)
    raise ValueError(f"unknown graph backend {settings.graph_backend!r}")
