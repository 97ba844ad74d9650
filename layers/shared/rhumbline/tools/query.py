"""query: read-only Cypher over the graph (needs the `cypher` scope), on both backends.

Where the query may read only some projects — always on the embedded SQLite store, and on Neo4j
for a token limited to some projects — it is parsed into the read-only subset and every pattern
is bound to those projects by construction: compiled to SQL for SQLite (cypher/sql.py), written
back as Cypher for Neo4j (cypher/scoping.py). A token that sees every project runs any read-only
Cypher on Neo4j as written, unless the database is shared with other stacks (a namespace). See
docs/query.md.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from rhumbline.errors import Forbidden, InvalidArguments, QueryTooLarge, Unsupported
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
SUBSET_HELP = (
    "The embedded store, and tokens limited to some projects on Neo4j, run a read-only Cypher subset "
    "(MATCH/OPTIONAL MATCH, WHERE, WITH, RETURN, UNWIND, aggregation, ORDER BY/SKIP/LIMIT, bounded "
    "variable-length relationships, shortestPath, EXISTS/COUNT subqueries, db.labels/relationshipTypes/"
    "propertyKeys; see docs/query.md). The full language runs on the Neo4j backend for a token that sees "
    "every project."
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


def run(arguments: QueryInput, context: ToolContext) -> QueryOutput:
    from rhumbline.contract import ALL_PROJECTS
    from rhumbline.cypher import guard

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
    if context.settings.graph_backend != "neo4j":
        return _embedded(arguments, context, projects, project, timeout)
    # As written only for a token that sees every project of a database of its own: a namespaced
    # deployment shares its database with other stacks, whose graphs no token may read.
    as_written = ALL_PROJECTS in context.caller.projects and not context.settings.neo4j_namespace
    return _neo4j(arguments, context, projects, project, timeout, scoped=not as_written)


def _parsed(text: str) -> Any:
    """The query in the subset, or the error saying what is outside it."""
    from rhumbline.cypher.parser import CypherSyntaxError, NotInSubset, parse

    try:
        return parse(text)
    except RecursionError:
        raise _too_deep() from None
    except NotInSubset as error:
        raise Unsupported(f"query refused: {error}. {SUBSET_HELP}", details={"construct": error.construct}) from None
    except CypherSyntaxError as error:
        raise InvalidArguments(f"invalid Cypher: {error}") from None


def _too_deep() -> QueryTooLarge:
    # The parser and the compiler recurse once per level of nesting: past Python's stack, the query
    # (or a parameter) nests too deeply to be read, whatever it would compute.
    return QueryTooLarge(
        "the query nests expressions or values too deeply to be read (a few dozen levels of brackets "
        "or parentheses at most)",
        details={"limit": "nesting"},
    )


def _compiled(parsed: Any, arguments: QueryInput, project: str | None, projects: list[str]) -> Any:
    """The query compiled for SQLite: what the embedded store runs, and on Neo4j the check that a
    scoped query stays within what both backends answer alike."""
    from rhumbline.cypher.parser import CypherSyntaxError, NotInSubset
    from rhumbline.cypher.sql import compile_query

    try:
        return compile_query(parsed, {**arguments.params, "project": project, "projects": projects})
    except RecursionError:
        raise _too_deep() from None
    except NotInSubset as error:
        raise Unsupported(f"query refused: {error}. {SUBSET_HELP}", details={"construct": error.construct}) from None
    except CypherSyntaxError as error:
        raise InvalidArguments(f"invalid Cypher: {error}") from None


def _embedded(
    arguments: QueryInput, context: ToolContext, projects: list[str], project: str | None, timeout: float
) -> QueryOutput:
    from rhumbline.cypher import sql_runner

    compiled = _compiled(_parsed(arguments.cypher), arguments, project, projects)
    done = sql_runner.run(context.graph, compiled, scope=projects, limit=arguments.limit, timeout=timeout)
    return _output(arguments, done, backend="sqlite", scoped=True, read_only_user=False)


def _neo4j(
    arguments: QueryInput,
    context: ToolContext,
    projects: list[str],
    project: str | None,
    timeout: float,
    *,
    scoped: bool,
) -> QueryOutput:
    from rhumbline.cypher.runner import Scope, runner_for
    from rhumbline.cypher.scoping import scoped as bound_to_projects
    from rhumbline.stores.graph.factory import neo4j_readonly_credentials
    from rhumbline.stores.graph.neo4j.keys import Namespace

    cypher, params, names = arguments.cypher, arguments.params, None
    if scoped:
        parsed = _parsed(arguments.cypher)
        _compiled(parsed, arguments, project, projects)  # the same subset as the embedded store
        bound = bound_to_projects(parsed)
        cypher, params, names = bound.text, bound.parameters(arguments.params), bound.names
    credentials, dedicated = neo4j_readonly_credentials(context.settings)
    if context.settings.mode == "hosted" and not dedicated:
        # Hosted, the database's own roles are a layer of their own (no LOAD, no other sessions'
        # transactions): never run an agent's Cypher as the user that writes the graph.
        raise Unsupported(
            "`query` is not available: this deployment has no read-only Neo4j user for it "
            "(Neo4jReadOnlySecretArn, docs/query.md)",
            details={"setting": "RHUMBLINE_NEO4J_READONLY_SECRET_ARN"},
        )
    runner = runner_for(credentials, dedicated=dedicated, connect_timeout=context.settings.graph_timeout)
    # `$project`/`$projects` name the graphs readers are served from: a project's active physical
    # key (`owner/name` or, after a staged write, `owner/name@<version>.<token>`), resolved in
    # the query's own transaction. Redaction stays as a second line behind the binding.
    visible = set(context.caller.projects) if scoped else None
    try:
        done = runner.run(
            cypher,
            params,
            limit=arguments.limit,
            timeout=timeout,
            visible=visible,
            scope=Scope(projects=tuple(projects), project=project),
            namespace=Namespace(context.settings.neo4j_namespace),
            names=names,
        )
    except InvalidArguments as error:
        if not scoped:
            raise
        # Neo4j's message is about the rewritten text: name things as the caller wrote them.
        raise InvalidArguments(bound.readable(error.message), details=error.details) from error
    return _output(arguments, done, backend="neo4j", scoped=scoped, read_only_user=runner.dedicated)


def _output(arguments: QueryInput, done: Any, *, backend: str, scoped: bool, read_only_user: bool) -> QueryOutput:
    return QueryOutput(
        columns=done.columns,
        rows=done.rows,
        row_count=len(done.rows),
        more=done.more,
        limit=arguments.limit,
        cut_by_size=done.cut_by_size,
        redacted=done.redacted,
        query_type=done.query_type,
        read_only_user=read_only_user,
        elapsed_ms=done.elapsed_ms,
        backend=backend,
        scoped=scoped,
        scope=SCOPE_NOTE if scoped else UNSCOPED_NOTE,
    )


SPEC = ToolSpec(
    name="query",
    families=("code",),
    title="Read-only Cypher",
    description=(
        "Run one read-only Cypher statement against the code graph and get rows as JSON (nodes, "
        "relationships and paths as {type: node|relationship|path, ...}). Needs the `cypher` scope. Nodes "
        "are `:CodeNode {project, id, kind, name, qualified_name, file, start_line, ...}`; relationships are "
        "typed CALLS, IMPORTS, DEFINES, INHERITS, IMPLEMENTS, CONTAINS, ... On the embedded store, and for "
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
