"""Per-container backend connections, opened lazily on first use and reused by warm invocations.

Only the places that build a call read them here (the tool handler, the gateway's and the CLI's
entry points): tools, lookups and the meter receive them as `Stores` (runtime/context.py).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from rhumbline.config import settings

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from rhumbline.cypher.protocol import CypherEngine
    from rhumbline.runtime.context import Stores
    from rhumbline.stores.graph.protocol import GraphStore
    from rhumbline.stores.source_blobs import BlobStore

_lock = threading.Lock()
_engine: "Engine | None" = None
_autocommit_engine: "Engine | None" = None
_graph: "GraphStore | None" = None
_blobs: "BlobStore | None" = None


def relational_engine() -> "Engine":
    global _engine
    with _lock:
        if _engine is None:
            from rhumbline.stores.relational.engine import create_engine_for

            current = settings()
            engine = create_engine_for(current)
            if current.mode == "local":
                # Locally nothing else migrates the database (`rhumbline invoke` on a fresh home must
                # just work); hosted stacks migrate once per deploy through a custom resource.
                from rhumbline.stores.relational.migrate import upgrade

                upgrade(engine)
            _engine = engine
        return _engine


def autocommit_engine() -> "Engine":
    """For single statements in one round trip (stores/relational/oneshot.py): on PostgreSQL an
    engine of its own (autocommit, no ping); on SQLite the relational engine."""
    global _autocommit_engine
    engine = relational_engine()
    if engine.dialect.name != "postgresql":
        return engine
    with _lock:
        if _autocommit_engine is None:
            from rhumbline.stores.relational.engine import create_engine_for

            _autocommit_engine = create_engine_for(settings(), autocommit=True)
        return _autocommit_engine


def graph_store() -> "GraphStore":
    global _graph
    with _lock:
        if _graph is None:
            from rhumbline.stores.graph.factory import open_graph_store

            _graph = open_graph_store(settings())
        return _graph


def cypher_engine() -> "CypherEngine":
    """The `query` tool's Cypher engine for the graph backend, beside its store (the SQLite one
    reads through it; the Neo4j one connects as the query user, its driver kept per container by
    cypher/neo4j/runner.py). Made per call from the current settings, as cheap as reading them:
    a changed read-only user or password applies at once."""
    from rhumbline.cypher.engines import open_engine

    return open_engine(settings(), graph_store)


def source_blobs() -> "BlobStore":
    """Where stored files' bytes live (the bucket's client is made once per container)."""
    global _blobs
    with _lock:
        if _blobs is None:
            from rhumbline.stores.source_blobs import open_blob_store

            _blobs = open_blob_store(settings().contents_bucket)
        return _blobs


def stores() -> "Stores":
    """The container's stores, each opened when a call first reaches it (after a SnapStart restore
    too: every reach asks this module anew)."""
    from rhumbline.runtime.context import Stores

    return Stores(
        relational=relational_engine, graph=graph_store, blobs=source_blobs, autocommit=autocommit_engine,
        cypher=cypher_engine,
    )


def reset() -> None:
    """Close and forget the connections (tests switch backends; the CLI exits cleanly)."""
    global _engine, _autocommit_engine, _graph, _blobs
    with _lock:
        if _graph is not None:
            _graph.close()
        for engine in (_engine, _autocommit_engine):
            if engine is not None:
                engine.dispose()
        _engine = _autocommit_engine = _graph = _blobs = None
    settings.cache_clear()
