"""The Cypher engine of the Neo4j backend.

Where the query may read only some projects (a token limited to some, or any token of a
deployment whose database is shared with other stacks, a namespace) it is read into the subset,
checked to be one the embedded store answers alike (`conforms`), and rewritten so every pattern
is bound to those projects (scoping.py). A token that sees every project of a database of its own
runs any read-only Cypher as written. Either way it runs as the read-only user when there is one
(runner.py).
"""

from __future__ import annotations

from collections.abc import Callable

from rhumbline.config import Settings
from rhumbline.cypher import subset
from rhumbline.cypher import syntax as s
from rhumbline.cypher.answer import Answer
from rhumbline.cypher.mentions import mentioned
from rhumbline.cypher.neo4j.runner import Scope as Graphs
from rhumbline.cypher.parser import CypherSyntaxError, NotInSubset, parse
from rhumbline.cypher.neo4j.runner import runner_for
from rhumbline.cypher.neo4j.scoping import scoped as bound_to_projects
from rhumbline.cypher.protocol import Query, Scope
from rhumbline.errors import InvalidArguments, Unsupported
from rhumbline.stores.graph.factory import neo4j_readonly_credentials
from rhumbline.stores.graph.neo4j.keys import Namespace


class Neo4jCypher:
    def __init__(self, settings: Settings, *, conforms: Callable[[s.Query, Query, Scope], object]) -> None:
        """`conforms` raises the subset's refusal for a parsed query both backends do not answer alike."""
        self.settings = settings
        self.conforms = conforms

    def run(self, query: Query, scope: Scope, *, limit: int, timeout: float) -> Answer:
        settings = self.settings
        # As written only for a token that sees every project of a database of its own: a namespaced
        # deployment shares its database with other stacks, whose graphs no token may read.
        scoped = not (scope.every_project and not settings.neo4j_namespace)
        cypher, params, names, bound = query.text, dict(query.params), None, None
        parsed = subset.parse(query.text) if scoped else _read(query.text)
        if scoped and parsed is not None:
            self.conforms(parsed, query, scope)
            bound = bound_to_projects(parsed)
            cypher, params, names = bound.text, bound.parameters(query.params), bound.names
        credentials, dedicated = neo4j_readonly_credentials(settings)
        if settings.mode == "hosted" and not dedicated:
            # Hosted, the database's own roles are a layer of their own (no LOAD, no other sessions'
            # transactions): never run an agent's Cypher as the user that writes the graph.
            raise Unsupported(
                "`query` is not available: this deployment has no read-only Neo4j user for it "
                "(Neo4jReadOnlySecretArn, docs/query.md)",
                details={"setting": "RHUMBLINE_NEO4J_READONLY_SECRET_ARN"},
            )
        runner = runner_for(credentials, dedicated=dedicated, connect_timeout=settings.graph_timeout)
        # `$project`/`$projects` name the graphs readers are served from: a project's active physical
        # key (`owner/name` or, after a staged write, `owner/name@<version>.<token>`), resolved in
        # the query's own transaction. Redaction stays as a second line behind the binding.
        try:
            return runner.run(
                cypher,
                params,
                limit=limit,
                timeout=timeout,
                visible=set(scope.projects) if scoped else None,
                scope=Graphs(projects=scope.projects, project=scope.project),
                namespace=Namespace(settings.neo4j_namespace),
                names=names,
                mentions=mentioned(parsed),
            )
        except InvalidArguments as error:
            if bound is None:
                raise
            # Neo4j's message is about the rewritten text: name things as the caller wrote them.
            raise InvalidArguments(bound.readable(error.message), details=error.details) from error


def _read(text: str) -> s.Query | None:
    """A query run as written, in the subset when it is (for its warnings), else None: the full
    language is not the subset's to read."""
    try:
        return parse(text)
    except (NotInSubset, CypherSyntaxError, RecursionError):
        return None
