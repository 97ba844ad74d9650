"""query against the REAL Neo4j: read-only really enforced, row caps, serialization, scoping.

The attack corpus covers writes (SET/CREATE/MERGE/DELETE/DETACH DELETE/REMOVE/FOREACH, CALL
subqueries, IN TRANSACTIONS), exfiltration (LOAD CSV from files and URLs, apoc.load.json,
apoc.cypher.*), server procedures (dbms.*, db.create*), schema and administration commands
(CREATE INDEX, DROP CONSTRAINT, USE system, SHOW USERS, CREATE USER) and text tricks (several
statements, comments, case, strings, EXPLAIN/PROFILE prefixes). Every one must fail, and the graph
must be verifiably unchanged: the project's node and relationship counts, a canary node's
properties, and no trace of the attack's unique marker (label, property key, index, user).
Other suites share this server, so the checks are scoped to this test's project and marker.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest

from tests.functional.tools.code_context import shop_graph
from tests.functional.tools.code_context.cypher_attacks import ATTACKS, MARK, PROP
from tests.functional.tools.code_context.conftest import failed, ok

pytestmark = [pytest.mark.neo4j, pytest.mark.parametrize("world", ["production"], indirect=True)]

@pytest.fixture
def neo(shop, neo4j_server) -> Any:
    """The shop world plus a direct driver to inspect the database behind the tool's back."""
    import neo4j

    driver = neo4j.GraphDatabase.driver(
        neo4j_server["uri"], auth=(neo4j_server["user"], neo4j_server["password"]), notifications_min_severity="OFF"
    )
    yield shop, driver
    driver.close()


def query(world, arguments: dict, **options) -> dict:
    options.setdefault("scopes", ("read", "cypher"))
    return world.call("query", arguments, **options)


def _served(driver, project: str) -> str:
    """The physical key the project's graph is served from (a full ingest stages a new one)."""
    from rhumbline.stores.graph.neo4j.keys import RESOLVE

    with driver.session() as session:
        [(graph, key)] = session.run(RESOLVE, graphs=[project]).single()["found"]
    assert graph == project and (key == project or key.startswith(project + "@"))
    return key


def _state(driver, project: str) -> dict:
    """What an attack could change, scoped to this test's project and marker."""
    project = _served(driver, project)
    with driver.session() as session:
        nodes = session.run("MATCH (n:CodeNode {project: $p}) RETURN count(n) AS c", p=project).single()["c"]
        relationships = session.run(
            "MATCH (:CodeNode {project: $p})-[r]->() RETURN count(r) AS c", p=project
        ).single()["c"]
        canary = session.run(
            "MATCH (n:CodeNode {project: $p, id: $id}) RETURN properties(n) AS p", p=project, id=shop_graph.CHECKOUT.id
        ).single()["p"]
        marked = session.run(f"MATCH (n:{MARK}) RETURN count(n) AS c").single()["c"]
        keys = [r["propertyKey"] for r in session.run("CALL db.propertyKeys()")]
        labels = [r["label"] for r in session.run("CALL db.labels()")]
        indexes = sorted(r["name"] for r in session.run("SHOW INDEXES YIELD name"))
        constraints = sorted(r["name"] for r in session.run("SHOW CONSTRAINTS YIELD name"))
    with driver.session(database="system") as session:
        users = sorted(r["user"] for r in session.run("SHOW USERS YIELD user"))
    return {
        "nodes": nodes, "relationships": relationships, "canary": canary, "marked": marked,
        "marker_key": PROP in keys, "marker_label": MARK in labels, "marker_index": PROP in indexes,
        "code_indexes": [i for i in indexes if i.startswith("code_node")], "constraints": constraints,
        "users": users,
    }  # fmt: skip


@pytest.mark.parametrize("token", ["limited", "admin"])
def test_every_write_and_exfiltration_attempt_fails_and_changes_nothing(neo, token) -> None:
    """Through the subset (a token limited to one project) and as written (an admin token)."""
    world, driver = neo
    options = {} if token == "limited" else {"projects": ("*",), "scopes": ("admin",)}
    before = _state(driver, world.project)
    assert before["nodes"] == len(shop_graph.NODES) + 1  # + the unresolved base's stub
    assert not (before["marked"] or before["marker_key"] or before["marker_label"] or before["marker_index"])
    passed = []
    for cypher in ATTACKS:
        outcome = query(world, {"cypher": cypher, "params": {"q": f"CREATE (:{MARK})"}}, **options)
        if outcome["ok"]:
            passed.append(cypher)
        else:
            assert outcome["error"]["code"] in ("forbidden", "invalid_arguments", "unsupported"), (cypher, outcome["error"])
    assert passed == []
    assert _state(driver, world.project) == before


def test_each_layer_refuses_writes_on_its_own(neo, neo4j_server) -> None:
    """With the text check bypassed: EXPLAIN reports the write, and the READ transaction refuses it."""
    from rhumbline.cypher.neo4j.runner import CypherRunner, ReadOnlyViolation
    from rhumbline.stores.graph.factory import Neo4jCredentials

    world, driver = neo
    credentials = Neo4jCredentials(neo4j_server["uri"], neo4j_server["user"], neo4j_server["password"], "neo4j")
    runner = CypherRunner(credentials, dedicated=False, connect_timeout=5)
    before = _state(driver, world.project)
    try:
        params = {"project": world.project}
        assert runner.plan_type("MATCH (n:CodeNode {project: $project}) RETURN n", params, timeout=5) == "r"
        assert runner.plan_type(f"CREATE (:{MARK})", params, timeout=5) == "w"
        assert runner.plan_type("MATCH (n:CodeNode {project: $project}) SET n.x = 1 RETURN n", params, timeout=5) == "rw"
        assert runner.plan_type(f"CALL db.createLabel('{MARK}')", params, timeout=5) == "w"
        assert runner.plan_type(f"CREATE INDEX {PROP} FOR (n:CodeNode) ON (n.x)", params, timeout=5) == "s"
        for cypher in (
            f"CREATE (:{MARK})",
            "MATCH (n:CodeNode {project: $project}) DETACH DELETE n",
            f"CALL db.createLabel('{MARK}')",
            f"MATCH (n:CodeNode {{project: $project}}) CALL (n) {{ SET n.{PROP} = 1 }} RETURN 1",
        ):
            with pytest.raises(ReadOnlyViolation, match="not read-only"):
                runner.run(cypher, params, limit=10, timeout=5, visible=None)
            with pytest.raises(ReadOnlyViolation, match="AccessMode"):
                runner.run(cypher, params, limit=10, timeout=5, visible=None, check_plan=False)
    finally:
        runner.close()
    assert _state(driver, world.project) == before


def test_a_remembered_verdict_never_lets_a_write_through(neo, neo4j_server) -> None:
    """The plan verdict is remembered per exact text, for reads only; and even a poisoned memory
    (a write text marked read) is refused by the READ transaction, with nothing written."""
    from rhumbline.cypher.neo4j.runner import CypherRunner, ReadOnlyViolation
    from rhumbline.stores.graph.factory import Neo4jCredentials

    world, driver = neo
    credentials = Neo4jCredentials(neo4j_server["uri"], neo4j_server["user"], neo4j_server["password"], "neo4j")
    runner = CypherRunner(credentials, dedicated=False, connect_timeout=5)
    before = _state(driver, world.project)
    params = {"project": _served(driver, world.project)}
    read = "MATCH (n:CodeNode {project: $project}) RETURN count(n) AS c"
    write = f"MATCH (n:CodeNode {{project: $project}}) SET n.{PROP} = 1 RETURN count(n) AS c"
    try:
        assert not runner.verdicts.known_read(read)
        first = runner.run(read, params, limit=10, timeout=5, visible=None)
        assert runner.verdicts.known_read(read) and not runner.verdicts.known_read(read + " ")
        assert runner.run(read, params, limit=10, timeout=5, visible=None).rows == first.rows == [{"c": before["nodes"]}]
        with pytest.raises(ReadOnlyViolation, match="not read-only"):
            runner.run(write, params, limit=10, timeout=5, visible=None)
        assert not runner.verdicts.known_read(write)
        runner.verdicts.remember_read(write)  # as if the memory were wrong: layer 3 still holds
        with pytest.raises(ReadOnlyViolation, match="AccessMode"):
            runner.run(write, params, limit=10, timeout=5, visible=None)
    finally:
        runner.close()
    assert _state(driver, world.project) == before


READ_ONLY_TRICKS = [
    # Every node of the shop graph, and the stub of its unresolved base.
    ("/* CREATE (:X) */ MATCH (n:CodeNode {project: $project}) RETURN count(n) AS c;", [{"c": len(shop_graph.NODES) + 1}]),
    ("RETURN 'a\\' CREATE (:X) ' AS s, \"DELETE; it\" AS t, n.`set` AS u", None),
    ("RETURN {create: 1, `delete`: 2} AS m", [{"m": {"create": 1, "delete": 2}}]),
]


def test_read_only_text_that_looks_like_writes_runs(neo) -> None:
    world, _ = neo
    first = ok(query(world, {"cypher": READ_ONLY_TRICKS[0][0]}))
    assert first["rows"] == READ_ONLY_TRICKS[0][1]
    second = query(world, {"cypher": READ_ONLY_TRICKS[1][0]})
    # `n` is undefined: the subset's own error, after the text check let the strings through...
    assert failed(second, "invalid_arguments")["message"] == "invalid Cypher: variable `n` is not defined"
    # ...and Neo4j's, for a token that sees every project (its query runs as written).
    admin = query(world, {"cypher": READ_ONLY_TRICKS[1][0]}, projects=("*",), scopes=("admin",))
    assert failed(admin, "invalid_arguments")["message"].startswith("Neo4j rejected the query (Neo.ClientError.Statement")
    assert ok(query(world, {"cypher": READ_ONLY_TRICKS[2][0]}))["rows"] == READ_ONLY_TRICKS[2][1]


def test_rows_are_exact_with_more_indication(neo) -> None:
    world, _ = neo
    cypher = "MATCH (n:CodeNode {project: $project}) WHERE n.kind = 'Class' RETURN n.qualified_name AS name ORDER BY name"
    result = ok(query(world, {"cypher": cypher}))
    assert result["columns"] == ["name"]
    assert result["rows"] == [
        {"name": "shop.base.Model"}, {"name": "shop.digital.DigitalProduct"},
        {"name": "shop.models.Order"}, {"name": "shop.models.Product"},
    ]  # fmt: skip
    assert (result["row_count"], result["more"], result["query_type"], result["redacted"]) == (4, False, "r", 0)
    capped = ok(query(world, {"cypher": cypher, "limit": 3}))
    assert (capped["row_count"], capped["more"], capped["limit"]) == (3, True, 3)
    exact = ok(query(world, {"cypher": cypher, "limit": 4}))
    assert (exact["row_count"], exact["more"]) == (4, False)
    assert (result["backend"], result["scoped"]) == ("neo4j", True)
    assert "binds each pattern" in result["scope"]
    assert result["read_only_user"] is False


def test_nodes_relationships_and_paths_are_serialized(neo) -> None:
    world, driver = neo
    cypher = (
        "MATCH p = (a:CodeNode {project: $project, id: $id})-[r:CALLS]->(b:CodeNode) "
        "RETURN a, r, p, b.start_line AS line ORDER BY b.id LIMIT 1"
    )
    row = ok(query(world, {"cypher": cypher, "params": {"id": shop_graph.INNER.id}}))["rows"][0]
    assert row["line"] == 10
    # Labelled by kind too, written at ingest (the schema agents expect).
    assert row["a"]["type"] == "node" and row["a"]["labels"] == ["CodeNode", "Function"]
    assert row["a"]["properties"]["qualified_name"] == "shop.services.checkout.inner"
    # The served graph's key, which names the project: what `$project` is set to.
    assert row["a"]["properties"]["project"] == _served(driver, world.project)
    assert row["r"]["type"] == "relationship" and row["r"]["rel_type"] == "CALLS"
    assert row["r"]["properties"]["explanation"] == "call `helper(...)` at shop/services.py:22"
    assert (row["r"]["start"], row["r"]["end"]) == (row["a"]["element_id"], row["p"]["nodes"][1]["element_id"])
    assert row["p"]["type"] == "path"
    assert [n["properties"]["id"] for n in row["p"]["nodes"]] == [shop_graph.INNER.id, shop_graph.HELPER.id]
    assert [r["rel_type"] for r in row["p"]["relationships"]] == ["CALLS"]


def test_other_projects_never_match_and_params_are_scoped(neo) -> None:
    """A token limited to one project gets its query bound to it: nodes of another project do not
    match at all, even when the query names that project's key (nothing left to redact)."""
    world, driver = neo
    other = _served(driver, world.other_project)
    cypher = (
        "MATCH (n:CodeNode) WHERE n.project IN [$project, $other] AND n.kind = 'File' "
        "RETURN n, n.project = $project AS mine, $projects AS projects ORDER BY n.project, n.id"
    )
    result = ok(query(world, {"cypher": cypher, "params": {"other": other}}))
    assert [r["mine"] for r in result["rows"]] == [True] * len(shop_graph.FILES)
    assert result["redacted"] == 0 and result["scoped"] is True
    assert result["rows"][0]["projects"] == [_served(driver, world.project)]
    # An admin token sees every project: its query runs as written, over both.
    admin = ok(query(world, {"cypher": cypher, "params": {"other": other}}, projects=("*",), scopes=("admin",)))
    assert sum(not r["mine"] for r in admin["rows"]) == 2
    assert (admin["redacted"], admin["scoped"]) == (0, False)


def test_scope_reserved_params_and_timeout(neo) -> None:
    world, _ = neo
    denied = failed(world.call("query", {"cypher": "RETURN 1"}, scopes=("read",)), "forbidden")
    assert "cypher" in denied["message"]
    reserved = failed(query(world, {"cypher": "RETURN $projects", "params": {"projects": ["x/y"]}}), "invalid_arguments")
    assert "reserved" in reserved["message"]
    other = failed(query(world, {"cypher": "RETURN 1", "project": world.other_project}), "forbidden")
    assert world.other_project in other["message"]
    too_many = failed(query(world, {"cypher": "RETURN 1", "limit": 1001}), "invalid_arguments")
    assert "limit" in too_many["message"]
    # Ten billion rows of small ranges: a range of a billion is refused (query_too_large), before
    # it runs when its bounds are constants, as it runs when they are computed.
    slow = "UNWIND range(1, 100000) AS x UNWIND range(1, 100000) AS y WITH x WHERE x < 0 RETURN count(x) AS c"
    timed_out = failed(query(world, {"cypher": slow, "timeout_s": 1}), "deadline_exceeded")
    # The effective timeout is the smaller of timeout_s and what is left of the call's deadline,
    # so a loaded machine may report 0.9 s: what matters is that the 1 s bound, not 10 s, applied.
    assert re.search(r"ran past its (0\.\d|1\.0) s timeout", timed_out["message"]), timed_out["message"]


def test_allowed_procedures_answer(neo) -> None:
    world, _ = neo
    labels = ok(query(world, {"cypher": "CALL db.labels() YIELD label RETURN label ORDER BY label"}))
    # The caller's nodes' labels (`:CodeNode` and their kinds), not the store's own.
    assert labels["rows"] == [{"label": label} for label in sorted({"CodeNode", *(n.kind for n in shop_graph.NODES)})]
    fulltext = "CALL db.index.fulltext.queryNodes('code_node_search', 'checkout') YIELD node WHERE node.project = $project RETURN node.id AS id ORDER BY id"
    # Outside the subset: refused for a token limited to some projects...
    refused = failed(query(world, {"cypher": fulltext}), "unsupported")
    assert "db.index.fulltext.queryNodes" in refused["message"] and refused["details"]["construct"].startswith("the procedure")
    # ...and run as written for a token that sees every project.
    found = ok(query(world, {"cypher": fulltext, "project": world.project}, projects=("*",), scopes=("admin",)))
    assert {"id": shop_graph.CHECKOUT.id} in found["rows"]


def test_project_params_follow_a_full_rewrite(neo) -> None:
    """`$project` is resolved in each call's own transaction: a staged rewrite between two calls
    (a new physical key) is seen by the next call, never a stale key."""
    from rhumbline.stores.graph.model import GraphBatch

    world, driver = neo
    cypher = "MATCH (n:CodeNode {project: $project}) RETURN $project AS key, $projects AS keys, count(n.kind) AS c"
    before = ok(query(world, {"cypher": cypher}))["rows"]
    assert before == [{"key": _served(driver, world.project), "keys": [_served(driver, world.project)],
                       "c": len(shop_graph.NODES)}]  # fmt: skip
    fewer = shop_graph.NODES[:3]
    world.graph.apply(world.project, GraphBatch(nodes=fewer, edges=[], clear=True))
    after = ok(query(world, {"cypher": cypher}))["rows"]
    assert after == [{"key": _served(driver, world.project), "keys": [_served(driver, world.project)], "c": 3}]
    assert after[0]["key"] != before[0]["key"]


@pytest.fixture
def namespace(monkeypatch) -> str:
    """A Neo4j shared with other stacks (RHUMBLINE_NEO4J_NAMESPACE), set before the world is built."""
    name = f"ns{uuid.uuid4().hex[:6]}"
    monkeypatch.setenv("RHUMBLINE_NEO4J_NAMESPACE", name)
    return name


def test_in_a_namespace_even_an_admin_token_runs_bound_queries(namespace, shop) -> None:
    """Another stack's graphs share the database: no token's query is run as written there."""
    world = shop
    admin = ok(query(world, {"cypher": "MATCH (n:CodeNode {kind: 'Class'}) RETURN count(n) AS c"}, projects=("*",), scopes=("admin",)))
    assert admin["scoped"] is True and admin["rows"] == [{"c": 4}]
    refused = failed(query(world, {"cypher": "CALL { MATCH (n) RETURN n } RETURN count(n) AS c"}, projects=("*",), scopes=("admin",)), "unsupported")
    assert "CALL { ... } subquery" in refused["message"]
