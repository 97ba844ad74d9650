"""query: read-only Cypher against the deployment's Neo4j graph database (needs the `cypher` scope).

It sees the whole graph database — every project of the deployment — which is why it has a scope
of its own. What the server can scope, it does: `$project`/`$projects` are set to the caller's
projects for the query to filter on, and nodes and relationships of other projects in the answer
are redacted. See docs/query.md.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from rhumbline.errors import Forbidden, InvalidArguments, Unsupported
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
    "`query` sees the whole graph database of this deployment (every project); filter on "
    "`n.project IN $projects` or `{project: $project}`: they hold the keys of the graphs being served "
    "(`owner/name`, or `owner/name@<version>.<token>` after a full ingest; a literal slug may match an "
    "older graph or none). Nodes and relationships of projects this token cannot see are "
    "redacted from the answer, but values computed from them (counts, names returned alone) are not."
)
EMBEDDED_HELP = (
    "`query` runs Cypher, which needs the Neo4j graph backend; this server uses the embedded SQLite "
    "graph. Run the server with RHUMBLINE_GRAPH_BACKEND=neo4j, RHUMBLINE_NEO4J_URI=bolt://host:7687 "
    "and RHUMBLINE_NEO4J_PASSWORD (then re-ingest), or use search, context, function, class and explain, "
    "which work on both backends."
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
    query_type: str = Field(description="Neo4j's plan verdict; always 'r' (read) here.")
    read_only_user: bool = Field(description="True when the query ran as a dedicated read-only database user.")
    elapsed_ms: float
    scope: str = Field(default=SCOPE_NOTE)


def run(arguments: QueryInput, context: ToolContext) -> QueryOutput:
    from rhumbline.contract import ALL_PROJECTS
    from rhumbline.cypher import guard
    from rhumbline.cypher.runner import Scope, runner_for
    from rhumbline.stores.graph.factory import neo4j_readonly_credentials
    from rhumbline.stores.graph.neo4j.keys import Namespace

    settings = context.settings
    if settings.graph_backend != "neo4j":
        raise Unsupported(EMBEDDED_HELP, details={"backend": settings.graph_backend})
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
    credentials, dedicated = neo4j_readonly_credentials(settings)
    runner = runner_for(credentials, dedicated=dedicated, connect_timeout=settings.graph_timeout)
    timeout = max(0.5, min(arguments.timeout_s, context.remaining() - 0.5))
    visible = None if ALL_PROJECTS in context.caller.projects else set(context.caller.projects)
    # `$project`/`$projects` name the graphs readers are served from: a project's active physical
    # key (`owner/name` or, after a staged write, `owner/name@<version>.<token>`), resolved in
    # the query's own transaction.
    done = runner.run(
        arguments.cypher,
        arguments.params,
        limit=arguments.limit,
        timeout=timeout,
        visible=visible,
        scope=Scope(projects=tuple(projects), project=project),
        namespace=Namespace(settings.neo4j_namespace),
    )
    return QueryOutput(
        columns=done.columns,
        rows=done.rows,
        row_count=len(done.rows),
        more=done.more,
        limit=arguments.limit,
        cut_by_size=done.cut_by_size,
        redacted=done.redacted,
        query_type=done.query_type,
        read_only_user=runner.dedicated,
        elapsed_ms=done.elapsed_ms,
    )


SPEC = ToolSpec(
    name="query",
    title="Read-only Cypher",
    description=(
        "Run one read-only Cypher statement against the graph database (Neo4j backend only) and get rows "
        "as JSON, nodes/relationships/paths serialized. Needs the `cypher` scope, because it sees the "
        "WHOLE graph database of the deployment (every project): filter with `n.project IN $projects` "
        "(`$project`, `$projects` are set to the keys of your projects' current graphs: `n.project` is "
        "`owner/name`, or `owner/name@<version>.<token>` after a full ingest, so filter with the parameters, "
        "not a literal slug); elements of projects you cannot see are "
        "redacted. Nodes are `:CodeNode {project, id, kind, name, qualified_name, file, start_line, ...}`, "
        "relationships are typed CALLS, IMPORTS, DEFINES, INHERITS, DOCUMENTS, ... Read-only is enforced "
        "three ways: a text check (no writes, LOAD CSV, USE, SHOW, admin; CALL only db.labels, "
        "db.relationshipTypes, db.propertyKeys, db.index.fulltext.query*, db.schema.*TypeProperties), "
        "an EXPLAIN that must plan a read, and a READ transaction. `limit` (default 200, max 1000) caps "
        "rows; `more` tells whether rows were left out. Timeout 10 s by default."
    ),
    input_model=QueryInput,
    output_model=QueryOutput,
    run=run,
    scope="cypher",
)
