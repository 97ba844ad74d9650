"""The context a tool's logic runs with: who is calling, until when, and the stores."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rhumbline.contract import Caller, Scope
from rhumbline.errors import DeadlineExceeded, Forbidden, InvalidArguments
from rhumbline.runtime import resources

if TYPE_CHECKING:
    from sqlalchemy import Connection
    from sqlalchemy.orm import Session

    from rhumbline.config import Settings
    from rhumbline.cypher.protocol import CypherEngine
    from rhumbline.runtime.progress import Reporter
    from rhumbline.stores.graph.protocol import GraphStore


@dataclass
class ToolContext:
    caller: Caller
    request_id: str
    deadline: float  # unix seconds

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
        return resources.graph_store()

    @property
    def cypher(self) -> "CypherEngine":
        """The graph backend's Cypher engine (the `query` tool's), opened beside the graph store."""
        return resources.cypher_engine()

    @contextmanager
    def db(self) -> Iterator["Session"]:
        """A relational session committed on success, rolled back on error."""
        from rhumbline.stores.relational.session import session_scope

        with session_scope(resources.relational_engine()) as session:
            yield session

    @contextmanager
    def read_db(self) -> Iterator["Connection"]:
        """A relational connection for Core reads: no ORM session to build per call (it cost more
        than the query on the read tools' path). Ended (rolled back) when the block exits. Marked
        read-only: on SQLite it takes no write lock (stores/relational/engine.py)."""
        from rhumbline.stores.relational.engine import READ_ONLY

        with resources.relational_engine().connect().execution_options(**{READ_ONLY: True}) as connection:
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
