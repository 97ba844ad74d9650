"""query: read-only Cypher over the graph (needs the `cypher` scope), on both backends.

The text guard (cypher/guard.py) first, then the graph backend's Cypher engine, opened beside the
graph store (runtime/resources.py, cypher/engines.py).
Where the query may read only some projects — always on the embedded SQLite store, and on Neo4j
for a token limited to some projects — it is parsed into the read-only subset and every pattern
is bound to those projects by construction: compiled to SQL for SQLite (cypher/sqlite/), written
back as Cypher for Neo4j (cypher/neo4j/scoping.py). A token that sees every project runs any
read-only Cypher on Neo4j as written, unless the database is shared with other stacks (a
namespace). See docs/query.md.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from rhumbline.errors import Forbidden, InvalidArguments
from rhumbline.runtime.context import ToolContext
from rhumbline.runtime.spec import ToolSpec
from rhumbline.tools.common import StrictInput
from rhumbline.vocabulary import PROJECT_PATTERN

DEFAULT_LIMIT = 200
MAX_LIMIT = 1_000
DEFAULT_TIMEOUT = 10.0
MAX_TIMEOUT = 25.0
# Parameters the server sets; a caller's value for them would defeat the scoping.
RESERVED_PARAMS = ("project", "projects")
SCOPE_NOTE = (
    "Every node a scoped query matches belongs to this token's projects (the server binds each pattern "
    "to them). `$projects` holds the keys of those projects' served graphs and `$project` the one named "
    "in the call: on Neo4j `owner/name` or `owner/name@<version>.<token>` after a full ingest, on the "
    "embedded store the slug."
)
UNSCOPED_NOTE = (
    "This token sees every project: on Neo4j the query ran as written over the whole graph database "
    "(filter with `n.project IN $projects` or `{project: $project}`, the keys of the served graphs)."
)
class QueryInput(StrictInput):
    cypher: str = Field(min_length=1, max_length=20_000, description="One read-only Cypher statement.")
    params: dict[str, Any] = Field(
        default_factory=dict,
        description="Query parameters (`$name`). `project` and `projects` are reserved: the server sets them.",
    )
    limit: int = Field(default=DEFAULT_LIMIT, ge=1, le=MAX_LIMIT, description="Rows returned at most.")
    project: str | None = Field(
        default=None,
        pattern=PROJECT_PATTERN,
        description="Sets `$project` (default: the token's only project, else null). `$projects` is always "
        "the list of projects this token can see.",
    )
    timeout_s: float = Field(default=DEFAULT_TIMEOUT, gt=0, le=MAX_TIMEOUT, description="Server-side timeout.")


class QueryOutput(BaseModel):
    columns: list[str]
    rows: list[dict[str, Any]] = Field(
        description="One object per row; nodes, relationships and paths as {type: node|relationship|path, ...}."
    )
    row_count: int
    more: bool = Field(description="True: the query has more rows than returned. False: `rows` is all of them.")
    limit: int
    cut_by_size: bool = Field(description="`rows` stopped at the answer size bound before `limit`.")
    redacted: int = Field(description="Nodes and relationships hidden: they belong to projects this token cannot see.")
    query_type: str = Field(description="The plan verdict; always 'r' (read) here.")
    read_only_user: bool = Field(description="True when the query ran as a dedicated read-only Neo4j user.")
    elapsed_ms: float
    backend: str = Field(description="Where the query ran: 'neo4j' or 'sqlite' (the embedded store).")
    scoped: bool = Field(description="True: every pattern was bound to this token's projects by the server.")
    scope: str
    warnings: list[str] = Field(
        default_factory=list,
        description="Each label or relationship type the query names that matches nothing in this token's "
        "projects (a misspelling, a kind the projects lack), and each property read on a node that no node "
        "has (`f.path`: a node's path is `file`): rows may be missing for that reason.",
    )


def run(arguments: QueryInput, context: ToolContext) -> QueryOutput:
    from rhumbline.contract import ALL_PROJECTS
    from rhumbline.cypher import guard
    from rhumbline.cypher.protocol import Query, Scope

    reserved = sorted(set(arguments.params) & set(RESERVED_PARAMS))
    if reserved:
        raise InvalidArguments(f"parameters {reserved} are reserved: the server sets them to your projects")
    try:
        guard.check(arguments.cypher)
    except guard.CypherRejected as error:
        raise Forbidden(f"query refused: {error}") from None
    projects = context.visible_projects()
    project = arguments.project
    if project is None and len(projects) == 1:
        project = projects[0]
    timeout = max(0.5, min(arguments.timeout_s, context.remaining() - 0.5))
    scope = Scope(projects=tuple(projects), project=project, every_project=ALL_PROJECTS in context.caller.projects)
    done = context.cypher.run(Query(arguments.cypher, arguments.params), scope, limit=arguments.limit, timeout=timeout)
    return QueryOutput(
        columns=done.columns,
        rows=done.rows,
        row_count=len(done.rows),
        more=done.more,
        limit=arguments.limit,
        cut_by_size=done.cut_by_size,
        redacted=done.redacted,
        query_type=done.query_type,
        read_only_user=done.read_only_user,
        elapsed_ms=done.elapsed_ms,
        backend=done.backend,
        scoped=done.scoped,
        scope=SCOPE_NOTE if done.scoped else UNSCOPED_NOTE,
        warnings=list(done.warnings),
    )


SPEC = ToolSpec(
    name="query",
    families=("code",),
    title="Read-only Cypher",
    description=(
        "Run one read-only Cypher statement against the code graph and get rows as JSON (nodes, "
        "relationships and paths as {type: node|relationship|path, ...}). Needs the `cypher` scope. Nodes "
        "are `:CodeNode {project, id, kind, name, qualified_name, file, start_line, ...}`, labelled by kind too "
        "(`:Function`, `:Class`, `:Method`, ...); relationships are typed CALLS, IMPORTS, DEFINES, INHERITS, "
        "IMPLEMENTS, CONTAINS, ... A label, relationship type or node property matching nothing is named in "
        "`warnings`. On the "
        "embedded store, and for "
        "a token limited to some projects, the query runs in a read-only subset (MATCH, OPTIONAL MATCH, WHERE, "
        "WITH, RETURN, UNWIND, aggregation, ORDER BY/SKIP/LIMIT, *1..k up to 10, shortestPath, EXISTS/COUNT "
        "{ }, CALL db.labels()/db.relationshipTypes()/db.propertyKeys()) and every pattern matches only this "
        "token's projects; anything else is refused by name. A token that sees every project runs any "
        "read-only Cypher on Neo4j (filter with `n.project IN $projects`). Read-only is enforced by a text "
        "check, by the database (an EXPLAIN that must plan a read and a READ transaction on Neo4j, a "
        "read-only connection on SQLite). `limit` (default 200, max 1000) caps rows; `more` tells whether "
        "rows were left out. Timeout 10 s by default."
    ),
    input_model=QueryInput,
    output_model=QueryOutput,
    run=run,
    scope="cypher",
)
