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

Stacks that share one Neo4j database (per-branch stacks) each have a *namespace*: every key they
write starts with `<namespace>:` (slugs cannot contain `:`), so their graphs never meet, and
deleting a stack deletes its namespace (`staged.delete_namespace`).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

NAMESPACE_PATTERN = r"^[a-z0-9][a-z0-9-]{0,127}$"

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
    """The head key a physical key serves (slugs have no `@`)."""
    return physical.split("@", 1)[0]


@dataclass(frozen=True)
class Namespace:
    """The prefix of every key one stack writes; "" for a database of its own."""

    name: str = ""

    def __post_init__(self) -> None:
        if self.name and not re.match(NAMESPACE_PATTERN, self.name):
            raise ValueError(
                f"Neo4j namespace {self.name!r} must be lower-case letters, digits and '-' (at most 128)"
            )

    @property
    def prefix(self) -> str:
        return f"{self.name}:" if self.name else ""

    def graph(self, project: str) -> str:
        """The head key of a project (`owner/name`) in this namespace."""
        return self.prefix + project

    def project(self, key: str) -> str | None:
        """The project a head or physical key serves; None when another namespace wrote it."""
        logical = logical_of(key)
        if not logical.startswith(self.prefix):
            return None
        project = logical[len(self.prefix) :]
        return None if ":" in project else project


def is_moved(error: Exception) -> bool:
    """The guard's failure: the project's active graph is no longer the cached one."""
    return getattr(error, "code", None) == MOVED_CODE and "by zero" in str(getattr(error, "message", ""))


class KeyBinder:
    """Per-container cache of each project's active physical key, and the guarded statements."""

    def __init__(self, resolve: Callable[[list[str]], dict[str, str]], namespace: Namespace = Namespace()) -> None:
        self._resolve = resolve  # head keys -> active physical keys, one read
        self.namespace = namespace
        self._active: dict[str, str] = {}  # by project, as callers name it
        self._lock = threading.Lock()

    def active(self, graphs: Sequence[str]) -> dict[str, str]:
        """The cached keys; one read for those not cached yet."""
        missing = [g for g in dict.fromkeys(graphs) if g not in self._active]
        if missing:
            found = self._resolve([self.namespace.graph(g) for g in missing])
            with self._lock:
                self._active.update({g: found[self.namespace.graph(g)] for g in missing})
        return {g: self._active[g] for g in graphs}

    def learn(self, graph: str, physical: str) -> None:
        """This container just wrote or flipped `graph`: no read needed to know its key."""
        with self._lock:
            self._active[graph] = physical

    def forget(self, graphs: Sequence[str] | None = None) -> None:
        """Drop the cached keys of `graphs` (of every project when None)."""
        with self._lock:
            for graph in list(self._active) if graphs is None else graphs:
                self._active.pop(graph, None)

    def bind(self, text: str, params: Mapping[str, Any]) -> tuple[str, dict[str, Any], list[str]]:
        """The guarded statement, its parameters with physical keys, and the projects it names.

        `$project` (one project) or `$projects` (a list) are the logical keys the caller gave; a
        statement naming neither runs as given."""
        bound = dict(params)
        if isinstance(params.get("project"), str):
            graph = params["project"]
            bound["graph"], bound["project"] = self.namespace.graph(graph), self.active([graph])[graph]
            return GUARD + text, bound, [graph]
        if params.get("projects"):
            graphs = list(params["projects"])
            keys = self.active(graphs)
            bound["graphs"] = [self.namespace.graph(g) for g in graphs]
            bound["projects"] = [keys[g] for g in graphs]
            return GUARD_MANY + text, bound, graphs
        return text, bound, []
