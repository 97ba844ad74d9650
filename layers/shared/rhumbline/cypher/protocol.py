"""What the `query` tool asks of a graph backend's Cypher engine, whichever it is."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from rhumbline.cypher.answer import Answer


@dataclass(frozen=True)
class Query:
    """One read-only Cypher statement, already past the text guard (guard.py), and its
    parameters (never `project` or `projects`: the engine sets them from the scope)."""

    text: str
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Scope:
    """Whose graphs a query may read: `projects` the caller's visible project slugs (`$projects`),
    `project` the one named in the call (`$project`, or None), `every_project` whether the caller's
    token sees every project (ALL_PROJECTS), which lets an engine run Cypher as written."""

    projects: tuple[str, ...]
    project: str | None
    every_project: bool = False


class CypherEngine(Protocol):
    def run(self, query: Query, scope: Scope, *, limit: int, timeout: float) -> Answer:
        """At most `limit` rows of `query`'s answer over `scope`'s graphs, within `timeout` seconds;
        a tool error (rhumbline.errors) saying why when the query cannot be answered."""
        ...
