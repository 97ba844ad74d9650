"""The query runner's round trips to a REAL Neo4j: what a repeated query costs on the wire.

Counted as the Bolt socket's writes (each is one round trip: the driver writes, then waits for the
replies). A repeated read is BEGIN pipelined with the key read, the query, ROLLBACK: three.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from rhumbline.cypher.neo4j.runner import CypherRunner, ReadOnlyViolation, Scope
from rhumbline.stores.graph.factory import Neo4jCredentials

pytestmark = pytest.mark.neo4j


@pytest.fixture
def runner(neo4j_server) -> Iterator[CypherRunner]:
    credentials = Neo4jCredentials(neo4j_server["uri"], neo4j_server["user"], neo4j_server["password"], "neo4j")
    runner = CypherRunner(credentials, dedicated=False, connect_timeout=5)
    yield runner
    runner.close()



def test_a_repeated_query_is_three_round_trips(runner, bolt_writes) -> None:
    project = f"trips/p{uuid.uuid4().hex[:8]}"
    scope = Scope(projects=(project,), project=project)
    text = "RETURN $project AS p, $projects AS ps"
    runner.run("RETURN 1 AS one", {}, limit=5, timeout=5, visible=None, scope=scope)  # connected
    bolt_writes.clear()
    first = runner.run(text, {}, limit=5, timeout=5, visible=None, scope=scope)
    assert len(bolt_writes) == 4  # the first time, the EXPLAIN too
    bolt_writes.clear()
    again = runner.run(text, {}, limit=5, timeout=5, visible=None, scope=scope)
    assert again.rows == first.rows == [{"p": project, "ps": [project]}]
    assert len(bolt_writes) == 3
    # BEGIN (READ mode: 'r') went out in the same write as the key read, not on its own.
    assert b"GraphHead" in bolt_writes[0] and b"mode" in bolt_writes[0]


def test_the_pipelined_begin_keeps_the_read_mode_and_the_timeout(runner) -> None:
    """BEGIN carries the access mode and the server-side timeout: a write is refused by Neo4j
    (plan check bypassed), and a slow query ends at its timeout."""
    from rhumbline.errors import DeadlineExceeded

    with pytest.raises(ReadOnlyViolation, match="AccessMode"):
        runner.run(f"CREATE (:Trips{uuid.uuid4().hex[:8]})", {}, limit=5, timeout=5, visible=None, check_plan=False)
    slow = "UNWIND range(1, 100000000) AS i WITH i WHERE i % 7 = 99 RETURN count(*) AS c"
    with pytest.raises(DeadlineExceeded):
        runner.run(slow, {}, limit=5, timeout=0.5, visible=None, scope=Scope(projects=(), project=None))
