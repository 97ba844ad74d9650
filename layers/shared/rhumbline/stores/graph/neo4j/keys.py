"""Which physical graph a project's reads use on Neo4j (staged full writes: staged.py).

A project (`owner/name`, the *logical* key) is served from one *physical* graph: the CodeNodes
whose `project` property is its physical key. A project never written by a staged write is its
own physical key; a staged write creates `owner/name@<version>.<token>` and flips the project's
`(:GraphHead {project, active})` node to it in one small transaction. Slugs cannot contain `@`,
so a physical key names its project: `logical_of`.

Every read statement filters on `$project`; the store binds `$project` to the physical key
centrally (`KeyBinder`) instead of each statement resolving it, and without a round trip per
call: the key is cached per container and each statement is prefixed with a guard that checks
the cached key against the GraphHead (a unique-index seek) and fails with a division by zero when
the project was flipped since. The store then re-resolves and runs the statement once more.
A statement that already started on the previous key finishes on it: the previous physical graph
is kept until a later staged write, at least `staged.RETIRED_GRACE_SECONDS` after the flip.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

HEAD_SCHEMA = (
    "CREATE CONSTRAINT graph_head_key IF NOT EXISTS FOR (h:GraphHead) REQUIRE h.project IS UNIQUE",
    # Every physical graph's stamp names its project: staged writes list a project's graphs by it.
    "CREATE INDEX graph_meta_graph IF NOT EXISTS FOR (m:GraphMeta) ON (m.graph)",
)
RESOLVE = """
UNWIND $graphs AS graph
OPTIONAL MATCH (h:GraphHead {project: graph})
RETURN collect([graph, coalesce(h.active, graph)]) AS found
"""
# One row in, one row out; the division fails only when the cached key is not the active one.
GUARD = """OPTIONAL MATCH (rhumbline_head:GraphHead {project: $graph})
WITH rhumbline_head
WHERE 1 / CASE WHEN coalesce(rhumbline_head.active, $graph) = $project THEN 1 ELSE 0 END = 1
"""
# The same for a list of projects ($graphs[i] is served by $projects[i]), reduced to one row.
GUARD_MANY = """UNWIND range(0, size($graphs) - 1) AS rhumbline_i
OPTIONAL MATCH (rhumbline_head:GraphHead {project: $graphs[rhumbline_i]})
WITH rhumbline_i, rhumbline_head
WHERE 1 / CASE WHEN coalesce(rhumbline_head.active, $graphs[rhumbline_i]) = $projects[rhumbline_i]
    THEN 1 ELSE 0 END = 1
WITH count(*) AS rhumbline_checked
"""
MOVED_CODE = "Neo.ClientError.Statement.ArithmeticError"


def logical_of(physical: str) -> str:
    """The project a physical key serves (slugs have no `@`)."""
    return physical.split("@", 1)[0]


def is_moved(error: Exception) -> bool:
    """The guard's failure: the project's active graph is no longer the cached one."""
    return getattr(error, "code", None) == MOVED_CODE and "by zero" in str(getattr(error, "message", ""))


class KeyBinder:
    """Per-container cache of each project's active physical key, and the guarded statements."""

    def __init__(self, resolve: Callable[[list[str]], dict[str, str]]) -> None:
        self._resolve = resolve  # logical keys -> active physical keys, one read
        self._active: dict[str, str] = {}
        self._lock = threading.Lock()

    def active(self, graphs: Sequence[str]) -> dict[str, str]:
        """The cached keys; one read for those not cached yet."""
        missing = [g for g in dict.fromkeys(graphs) if g not in self._active]
        if missing:
            found = self._resolve(missing)
            with self._lock:
                self._active.update(found)
        return {g: self._active[g] for g in graphs}

    def learn(self, graph: str, physical: str) -> None:
        """This container just wrote or flipped `graph`: no read needed to know its key."""
        with self._lock:
            self._active[graph] = physical

    def forget(self, graphs: Sequence[str]) -> None:
        with self._lock:
            for graph in graphs:
                self._active.pop(graph, None)

    def bind(self, text: str, params: Mapping[str, Any]) -> tuple[str, dict[str, Any], list[str]]:
        """The guarded statement, its parameters with physical keys, and the projects it names.

        `$project` (one project) or `$projects` (a list) are the logical keys the caller gave; a
        statement naming neither runs as given."""
        bound = dict(params)
        if isinstance(params.get("project"), str):
            graph = params["project"]
            bound["graph"], bound["project"] = graph, self.active([graph])[graph]
            return GUARD + text, bound, [graph]
        if params.get("projects"):
            graphs = list(params["projects"])
            keys = self.active(graphs)
            bound["graphs"], bound["projects"] = graphs, [keys[g] for g in graphs]
            return GUARD_MANY + text, bound, graphs
        return text, bound, []
