"""The context a tool's logic runs with: who is calling, until when, and the stores."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from rhumbline.contract import Caller, Scope
from rhumbline.errors import DeadlineExceeded, Forbidden, InvalidArguments

if TYPE_CHECKING:
    from sqlalchemy import Connection, Engine
    from sqlalchemy.orm import Session

    from rhumbline.config import Settings
    from rhumbline.cypher.protocol import CypherEngine
    from rhumbline.runtime.progress import Reporter
    from rhumbline.stores.graph.protocol import GraphStore
    from rhumbline.stores.source_blobs import BlobStore

T = TypeVar("T")


@dataclass(frozen=True)
class Stores:
    """Every store a call reaches, each opened by its own function on first use: a tool that reads
    only the graph never connects to the relational store. The tool handler passes the container's
    (runtime/resources.py); a test passes stores it opened itself."""

    relational: "Callable[[], Engine]"
    graph: "Callable[[], GraphStore]"
    blobs: "Callable[[], BlobStore]"
    # Single statements in one round trip (stores/relational/oneshot.py); the relational engine on SQLite.
    autocommit: "Callable[[], Engine]"
    # The graph backend's Cypher engine (the `query` tool's), opened beside the graph store.
    cypher: "Callable[[], CypherEngine]"

    @classmethod
    def opened(
        cls,
        relational: "Engine",
        graph: "GraphStore | None" = None,
        blobs: "BlobStore | None" = None,
        autocommit: "Engine | None" = None,
        settings: "Settings | None" = None,
    ) -> "Stores":
        """Stores already open; blobs default to the relational store's own (no bucket). A store
        left out fails, naming itself, when a call reaches it. `settings`: the configuration the
        graph was opened with, which the Cypher engine beside it follows (default: the process's)."""
        if blobs is None:
            from rhumbline.stores.source_blobs import InlineBlobs

            blobs = InlineBlobs()
        reach_graph = _given(graph, "graph store")
        return cls(
            relational=_given(relational, "relational store"),
            graph=reach_graph,
            blobs=_given(blobs, "contents store"),
            autocommit=_given(autocommit or relational, "autocommit engine"),
            cypher=_cypher_beside(reach_graph, settings),
        )


def _cypher_beside(graph: "Callable[[], GraphStore]", given: "Settings | None") -> "Callable[[], CypherEngine]":
    """The settings' backend's Cypher engine, reading through `graph` where it reads the store."""

    def reach() -> "CypherEngine":
        from rhumbline.config import settings
        from rhumbline.cypher.engines import open_engine

        return open_engine(given or settings(), graph)

    return reach


def _given(store: "T | None", name: str) -> "Callable[[], T]":
    def reach() -> T:
        if store is None:
            raise RuntimeError(f"no {name} was given to this call's stores")
        return store

    return reach


@dataclass
class ToolContext:
    caller: Caller
    request_id: str
    deadline: float  # unix seconds
    stores: Stores

    @property
    def settings(self) -> "Settings":
        from rhumbline.config import settings

        return settings()

    @property
    def progress(self) -> "Reporter | None":
        """Where to report progress (done, total), when the client asked for it and can receive it."""
        from rhumbline.runtime.progress import current

        return current()

    @property
    def graph(self) -> "GraphStore":
        return self.stores.graph()

    @property
    def engine(self) -> "Engine":
        """The relational store's engine, for code that opens its own sessions (ingest, centrality)."""
        return self.stores.relational()

    @property
    def blobs(self) -> "BlobStore":
        """Where the stored files' bytes live (stores/source_blobs.py)."""
        return self.stores.blobs()

    @property
    def cypher(self) -> "CypherEngine":
        """The graph backend's Cypher engine (the `query` tool's), opened beside the graph store."""
        return self.stores.cypher()

    @contextmanager
    def db(self) -> Iterator["Session"]:
        """A relational session committed on success, rolled back on error."""
        from rhumbline.stores.relational.session import session_scope

        with session_scope(self.engine) as session:
            yield session

    @contextmanager
    def read_db(self) -> Iterator["Connection"]:
        """A relational connection for Core reads: no ORM session to build per call (it cost more
        than the query on the read tools' path). Ended (rolled back) when the block exits. Marked
        read-only: on SQLite it takes no write lock (stores/relational/engine.py)."""
        from rhumbline.stores.relational.engine import READ_ONLY

        with self.engine.connect().execution_options(**{READ_ONLY: True}) as connection:
            yield connection

    def remaining(self) -> float:
        import time

        left = self.deadline - time.time()
        if left <= 0:
            raise DeadlineExceeded("the call ran past its deadline")
        return left

    def require_scope(self, scope: Scope) -> None:
        if not self.caller.has_scope(scope):
            raise Forbidden(f"this token lacks the '{scope}' scope")

    def project(self, requested: str | None) -> str:
        """The project this call acts on: the one named (the handler checked it against the token
        before the tool ran), else the only one the token sees."""
        if requested:
            return requested
        visible = self.visible_projects()
        if len(visible) == 1:
            return visible[0]
        if not visible:
            raise InvalidArguments("no project is available to this token yet: run `ingest` first")
        raise InvalidArguments(
            "`project` is required: this token sees several projects", details={"projects": visible[:50]}
        )

    def visible_projects(self) -> list[str]:
        """Slugs of existing projects this token may see, sorted. One Core read of a prebuilt
        statement (no ORM session, no statement built per call), and a token naming its projects
        looks up only those."""
        from rhumbline.contract import ALL_PROJECTS
        from rhumbline.stores.relational import projects

        named = None if ALL_PROJECTS in self.caller.projects else self.caller.projects
        if named == ():
            return []
        with self.read_db() as connection:
            return projects.list_slugs(connection, among=named)
