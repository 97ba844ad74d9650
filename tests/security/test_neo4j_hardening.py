"""Issue 15, items 4 and 8: the Neo4j behind `query` is hardened by its configuration, its answers
are read within bounds, and hosted deployments run Cypher only as a read-only user.

The text guard (cypher/guard.py) and the subset parser stop LOAD CSV and SHOW before a query is
sent. These tests send them anyway, straight to the runner (as written: the path of a token that
sees every project), to prove what the server itself does:
- LOAD CSV of a file, and of any URL, is refused by the server's configuration
  (infra/neo4j/hardening.conf: file URLs off, every address blocked), even with the plan check off;
- SHOW TRANSACTIONS / SETTINGS and TERMINATE TRANSACTIONS plan as reads, and are refused by the
  plan check on Neo4j's own plan. Neo4j Community has no roles; hosted, the read-only user's role
  (docs/query.md) adds the database's own refusal: no LOAD privilege, no other users' transactions;
- a 2^28-character value neither adds 100 MB to the client nor runs past the timeout.
"""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from rhumbline.cypher.neo4j.runner import MAX_ANSWER_BYTES, READ_DEADLINE_GRACE_SECONDS, CypherRunner, ReadOnlyViolation
from rhumbline.errors import InvalidArguments
from rhumbline.stores.graph.factory import Neo4jCredentials

pytestmark = pytest.mark.neo4j


@pytest.fixture(scope="module")
def runner(neo4j_server: dict[str, str]) -> Iterator[CypherRunner]:
    credentials = Neo4jCredentials(neo4j_server["uri"], neo4j_server["user"], neo4j_server["password"], "neo4j")
    runner = CypherRunner(credentials, dedicated=False, connect_timeout=5)
    yield runner
    runner.close()


def _as_written(runner: CypherRunner, cypher: str, *, check_plan: bool) -> Any:
    return runner.run(cypher, {}, limit=10, timeout=10, visible=None, check_plan=check_plan)


def test_load_csv_of_a_server_file_is_refused_by_the_configuration(runner: CypherRunner) -> None:
    with pytest.raises(InvalidArguments) as refused:
        _as_written(runner, "LOAD CSV FROM 'file:///etc/passwd' AS line RETURN line", check_plan=False)
    assert "dbms.security.allow_csv_import_from_file_urls' is false" in refused.value.message
    assert "root:" not in refused.value.message


class _Csv(http.server.BaseHTTPRequestHandler):
    requests: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 - the http.server interface
        type(self).requests.append(self.path)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"secret,value\nMARKER,42\n")

    def log_message(self, *args: Any) -> None:
        pass


def test_load_csv_of_any_url_is_refused_by_the_configuration(runner: CypherRunner) -> None:
    """A real server that would answer: the database never asks it."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Csv)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/data.csv"
        with pytest.raises(InvalidArguments) as refused:
            _as_written(runner, f"LOAD CSV FROM '{url}' AS line RETURN line", check_plan=False)
    finally:
        server.shutdown()
    assert "is blocked via the configuration property internal.dbms.cypher_ip_blocklist" in refused.value.message
    assert _Csv.requests == [] and "MARKER" not in refused.value.message


@pytest.mark.parametrize("cypher", [
    "SHOW TRANSACTIONS YIELD username, currentQuery, parameters RETURN *", "SHOW TRANSACTIONS",
    "TERMINATE TRANSACTIONS 'neo4j-transaction-1'", "SHOW SETTINGS", "SHOW PROCEDURES",
    "LOAD CSV FROM 'https://example.com/x.csv' AS line RETURN line",
    "MATCH (n) CALL (n) { LOAD CSV FROM 'https://example.com/x.csv' AS l RETURN l } RETURN l",
])  # fmt: skip
def test_reads_of_something_other_than_the_graph_are_refused_by_their_plan(runner: CypherRunner, cypher: str) -> None:
    with pytest.raises(ReadOnlyViolation, match="`query` reads the graph only"):
        _as_written(runner, cypher, check_plan=True)


def test_the_all_projects_path_still_runs_graph_reads(runner: CypherRunner) -> None:
    """The refusals above are not a broken runner."""
    done = _as_written(runner, "CALL db.labels() YIELD label RETURN count(label) AS labels", check_plan=True)
    assert done.rows and done.rows[0]["labels"] >= 0


CHILD = """
import json, resource, sys, time
from rhumbline.cypher.neo4j.runner import CypherRunner
from rhumbline.errors import ToolFailure
from rhumbline.stores.graph.factory import Neo4jCredentials
uri, user, password, doublings = sys.argv[1:5]
runner = CypherRunner(Neo4jCredentials(uri, user, password, "neo4j"), dedicated=False, connect_timeout=5)
runner.run("RETURN 1 AS warm", {}, limit=1, timeout=5, visible=None)  # driver and connection ready
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.monotonic()
try:
    runner.run(f"RETURN reduce(s = 'x', i IN range(1, {doublings}) | s + s) AS big", {}, limit=1, timeout=10, visible=None)
    outcome = {"ok": True}
except ToolFailure as failure:
    outcome = {"ok": False, "code": failure.code, "message": failure.message}
outcome["seconds"] = time.monotonic() - started
outcome["added_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
outcome["after"] = runner.run("RETURN 2 AS x", {}, limit=1, timeout=5, visible=None).rows
print(json.dumps(outcome))
"""


def _huge_value(neo4j_server: dict[str, str], doublings: int) -> dict[str, Any]:
    """What the runner does, in a process of its own, with a value of 2^doublings characters."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, neo4j_server["uri"], neo4j_server["user"], neo4j_server["password"], str(doublings)],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert outcome["after"] == [{"x": 2}], outcome  # the runner is still usable
    return outcome


def test_a_value_past_the_answer_cap_is_refused_without_being_buffered(neo4j_server: dict[str, str]) -> None:
    outcome = _huge_value(neo4j_server, 23)  # 8 MiB of text: twice the cap
    assert not outcome["ok"] and outcome["code"] == "invalid_arguments", outcome
    assert f"larger than {MAX_ANSWER_BYTES} bytes" in outcome["message"]
    assert outcome["added_kib"] < 100 * 1024, outcome


def test_a_huge_value_is_neither_buffered_whole_nor_read_past_the_timeout(neo4j_server: dict[str, str]) -> None:
    """Before: a 2^28-character string added 131 MB to the server and ran 15 s past a 10 s timeout.
    Now it stops at the answer cap, or (on a loaded machine, while the server still builds the
    value) at the read deadline: the timeout and its grace for the server's own timeout error."""
    outcome = _huge_value(neo4j_server, 28)
    assert not outcome["ok"] and outcome["code"] in ("invalid_arguments", "deadline_exceeded"), outcome
    assert outcome["added_kib"] < 100 * 1024, outcome
    assert outcome["seconds"] < 10 + READ_DEADLINE_GRACE_SECONDS + 1, outcome


@pytest.fixture
def reader(neo4j_server: dict[str, str]) -> Iterator[dict[str, str]]:
    """A second Neo4j user for `query` (Community has no roles: a read-only role is Enterprise's)."""
    from neo4j import GraphDatabase

    name, password = f"reader_{uuid.uuid4().hex[:8]}", uuid.uuid4().hex
    with GraphDatabase.driver(neo4j_server["uri"], auth=(neo4j_server["user"], neo4j_server["password"])) as driver:
        driver.execute_query(f"CREATE USER {name} SET PASSWORD $p CHANGE NOT REQUIRED", p=password, database_="system")
        yield {"user": name, "password": password}
        driver.execute_query(f"DROP USER {name} IF EXISTS", database_="system")


@pytest.mark.parametrize("world", ["production"], indirect=True)
def test_a_hosted_deployment_runs_query_only_as_its_read_only_user(world, reader, neo4j_server) -> None:
    from dataclasses import replace

    from rhumbline.cypher.engines import open_engine
    from tests.stores import neo4j_settings

    def deployed(**configured: str) -> None:
        """The world's stores, their Cypher engine opened as a hosted deployment so configured would."""
        hosted = replace(neo4j_settings(neo4j_server), mode="hosted", **configured)
        world.stores = replace(world.stores, cypher=lambda: open_engine(hosted, world.stores.graph))

    admin = {"projects": ("*",), "scopes": ("admin",)}
    deployed()
    refused = world.call("query", {"cypher": "MATCH (n) RETURN count(n) AS c"}, **admin)
    assert not refused["ok"] and refused["error"]["code"] == "unsupported", refused
    assert "no read-only Neo4j user" in refused["error"]["message"]
    deployed(neo4j_readonly_user=reader["user"], neo4j_readonly_password=reader["password"])
    answered = world.call("query", {"cypher": "MATCH (n) RETURN count(n) AS c"}, **admin)
    assert answered["ok"] and answered["result"]["read_only_user"] is True, answered
