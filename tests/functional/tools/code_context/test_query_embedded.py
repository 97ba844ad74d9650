"""query on the embedded shape: the read-only Cypher subset compiled to SQL over the SQLite graph,
and every write and exfiltration attempt of the red-team corpus refused with nothing changed."""

from __future__ import annotations

import sqlite3

import pytest

from tests.functional.tools.code_context import shop_graph
from tests.functional.tools.code_context.conftest import failed, ok
from tests.functional.tools.code_context.cypher_attacks import ATTACKS, MARK, PROP

pytestmark = pytest.mark.parametrize("world", ["embedded"], indirect=True)


def query(world, arguments: dict, **options) -> dict:
    options.setdefault("scopes", ("read", "cypher"))
    return world.call("query", arguments, **options)


def _state(path: str, project: str) -> dict:
    """What an attack could change in the graph file, read behind the tool's back."""
    with sqlite3.connect(path) as db:
        return {
            "schema": db.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall(),
            "nodes": db.execute("SELECT count(*) FROM nodes WHERE project = ?", (project,)).fetchone(),
            "edges": db.execute(
                "SELECT count(*) FROM edges JOIN nodes ON rid = source WHERE project = ?", (project,)
            ).fetchone(),
            "canary": db.execute("SELECT * FROM nodes WHERE project = ? AND id = ?", (project, shop_graph.CHECKOUT.id)).fetchone(),
            "version": db.execute("PRAGMA user_version").fetchone(),
            "marked": db.execute(
                "SELECT count(*) FROM nodes WHERE instr(coalesce(name, '') || id || coalesce(kind, ''), ?) > 0", (MARK,)
            ).fetchone(),
        }


def test_cypher_runs_on_the_embedded_store(shop) -> None:
    result = ok(query(shop, {"cypher": "MATCH (n:CodeNode {kind: 'Class'}) RETURN n.qualified_name AS name ORDER BY name"}))
    assert result["rows"] == [
        {"name": "shop.base.Model"}, {"name": "shop.digital.DigitalProduct"},
        {"name": "shop.models.Order"}, {"name": "shop.models.Product"},
    ]  # fmt: skip
    assert (result["backend"], result["scoped"], result["query_type"], result["more"]) == ("sqlite", True, "r", False)
    # The scope is checked first: without `cypher`, the answer does not depend on the backend.
    assert failed(shop.call("query", {"cypher": "MATCH (n) RETURN n"}), "forbidden")["message"] == (
        "this token lacks the 'cypher' scope"
    )


def test_nodes_relationships_and_paths_are_shaped_as_on_neo4j(shop) -> None:
    cypher = (
        "MATCH p = (a:CodeNode {id: $id})-[r:CALLS]->(b:CodeNode) "
        "RETURN a, r, p, b.start_line AS line ORDER BY b.id LIMIT 1"
    )
    row = ok(query(shop, {"cypher": cypher, "params": {"id": shop_graph.INNER.id}}))["rows"][0]
    assert row["line"] == 10
    assert row["a"]["type"] == "node" and row["a"]["labels"] == ["CodeNode", "Function"]
    assert row["a"]["properties"]["qualified_name"] == "shop.services.checkout.inner"
    assert row["a"]["properties"]["project"] == shop.project
    assert row["r"]["type"] == "relationship" and row["r"]["rel_type"] == "CALLS"
    assert row["r"]["properties"]["explanation"] == "call `helper(...)` at shop/services.py:22"
    assert (row["r"]["start"], row["r"]["end"]) == (row["a"]["element_id"], row["p"]["nodes"][1]["element_id"])
    assert [n["properties"]["id"] for n in row["p"]["nodes"]] == [shop_graph.INNER.id, shop_graph.HELPER.id]
    assert [r["rel_type"] for r in row["p"]["relationships"]] == ["CALLS"]


def test_rows_caps_timeout_and_refusals(shop) -> None:
    cypher = "MATCH (n:CodeNode) WHERE n.kind = 'Class' RETURN n.qualified_name AS name ORDER BY name"
    capped = ok(query(shop, {"cypher": cypher, "limit": 3}))
    assert (capped["row_count"], capped["more"], capped["limit"]) == (3, True, 3)
    assert ok(query(shop, {"cypher": cypher, "limit": 4}))["more"] is False
    slow = "MATCH (a), (b), (c), (d), (e) RETURN count(*) AS c"
    timed_out = failed(query(shop, {"cypher": slow, "timeout_s": 0.5}), "deadline_exceeded")
    assert "timeout" in timed_out["message"]
    refused = failed(query(shop, {"cypher": "MATCH (n) CALL (n) { RETURN 1 AS x } RETURN x"}), "unsupported")
    assert refused["details"] == {"construct": "a CALL { ... } subquery"}
    assert "Neo4j backend" in refused["message"]
    bad = failed(query(shop, {"cypher": "MATCH (n RETURN n"}), "invalid_arguments")
    assert bad["message"].startswith("invalid Cypher:")
    division = failed(query(shop, {"cypher": "RETURN 1 / 0 AS x"}), "invalid_arguments")
    assert division["message"] == "the query failed: / by zero"


def test_every_write_and_exfiltration_attempt_fails_and_changes_nothing(shop) -> None:
    path = shop.graph._path  # the file the tool reads, opened behind its back
    before = _state(path, shop.project)
    assert before["nodes"] == (len(shop_graph.NODES) + 1,)  # + the unresolved base's stub
    passed = []
    for cypher in ATTACKS:
        for options in ({}, {"projects": ("*",), "scopes": ("admin",)}):
            outcome = query(shop, {"cypher": cypher, "params": {"q": f"CREATE (:{MARK})"}}, **options)
            if outcome["ok"]:
                passed.append(cypher)
            else:
                assert outcome["error"]["code"] in ("forbidden", "invalid_arguments", "unsupported"), (cypher, outcome["error"])
    assert passed == []
    after = _state(path, shop.project)
    assert after == before
    assert PROP not in repr(after["schema"])
