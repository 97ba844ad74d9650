"""The Cypher engine of the embedded store: every query in the subset, compiled to one SELECT
bound to the caller's projects (compiler.py) and run on a read-only connection (runner.py)."""

from __future__ import annotations

from rhumbline.cypher import subset
from rhumbline.cypher import syntax as s
from rhumbline.cypher.answer import Answer
from rhumbline.cypher.mentions import mentioned
from rhumbline.cypher.protocol import Query, Scope
from rhumbline.cypher.sqlite import runner
from rhumbline.cypher.sqlite.compiler import Compiled, compile_query


class SqliteCypher:
    def __init__(self, store: runner.ReadOnlyFile) -> None:
        self.store = store

    def run(self, query: Query, scope: Scope, *, limit: int, timeout: float) -> Answer:
        parsed = subset.parse(query.text)
        done = compiled(parsed, query, scope)
        return runner.run(
            self.store, done, scope=list(scope.projects), limit=limit, timeout=timeout, mentions=mentioned(parsed)
        )


def compiled(parsed: s.Query, query: Query, scope: Scope) -> Compiled:
    """`parsed` as SQL, `$project` and `$projects` set from the scope; a refusal says what is outside
    the subset."""
    with subset.refusals():
        return compile_query(parsed, {**query.params, "project": scope.project, "projects": list(scope.projects)})
