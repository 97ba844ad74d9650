"""`query` never returns data of a project outside the token (issue 15, item 3), on both backends.

A token with the `cypher` scope limited to two projects asks for everything it can think of:
whole nodes, `properties(n)`, `n {.*}`, scalar projections, labels, the schema procedures,
aggregations over every node, the list of project slugs, existence probes. The third project
(worlds.py's `marker`) has nodes, a relationship type and an edge property spelled with MARKER:
neither MARKER nor that project's slug may appear in any answer. An admin token is the control:
it reaches the marker, so the probes would see it if the binding let them.

Outside the subset a limited token is refused (the refused path); a token that sees every
project runs the same text as written on Neo4j (the allowed path).
"""

from __future__ import annotations

import json

import pytest

from tests.functional.cypher.worlds import MARKER, project_names, world

pytestmark = pytest.mark.neo4j

PROBES = [
    "MATCH (n) RETURN n",
    "MATCH (n) RETURN properties(n) AS p",
    "MATCH (n) RETURN n {.*} AS m",
    "MATCH (n) RETURN n.name AS name, n.docstring AS doc, n.file AS file, n.qualified_name AS qn, n.id AS id",
    "MATCH (n) RETURN labels(n) AS labels, keys(n) AS keys",
    "MATCH (a)-[r]->(b) RETURN a, r, b",
    "MATCH (a)-[r]->(b) RETURN type(r) AS t, properties(r) AS p, keys(r) AS k",
    "MATCH p = (a)-[*1..3]-(b) RETURN p LIMIT 1000",
    "MATCH (n) RETURN DISTINCT n.project AS project",
    "MATCH ()-[r]->() RETURN DISTINCT r.project AS project",
    "MATCH (n) RETURN collect(n.name) AS names, count(n) AS c",
    "MATCH (n) WITH n.project AS p, count(*) AS c RETURN p, c",
    "MATCH (n) WHERE n.name CONTAINS $marker RETURN count(n) AS c",
    "MATCH (n {project: $slug}) RETURN n",
    "MATCH (n) WHERE n.project STARTS WITH $rival RETURN n.project AS p",
    "MATCH (n) WHERE EXISTS { (n)-[:SECRET_LINK]->() } RETURN n",
    "MATCH (n) RETURN [(n)-[r]->(m) | [type(r), m.name]] AS out",
    "MATCH (a), (b) WHERE a.name = $marker RETURN count(*) AS c",
    "OPTIONAL MATCH (n {name: $marker}) RETURN n",
    "MATCH (n) RETURN COUNT { (n)-[:SECRET_LINK]-() } AS c",
    "CALL db.labels()",
    "CALL db.relationshipTypes()",
    "CALL db.propertyKeys()",
    "CALL db.propertyKeys() YIELD propertyKey RETURN collect(propertyKey) AS keys",
    "MATCH p = shortestPath((a)-[*..4]-(b {name: $marker})) RETURN p",
]


@pytest.fixture(scope="module", params=["embedded", "production"])
def shape(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    with world(request.param, tmp_path_factory.mktemp(request.param), request, project_names()) as w:
        yield w


def _params(w) -> dict:
    return {"marker": MARKER, "slug": w.marker, "rival": w.marker.split("/")[0]}


@pytest.mark.parametrize("probe", PROBES)
def test_a_limited_token_never_sees_the_marker_project(shape, probe: str) -> None:
    outcome = shape.ask(probe, _params(shape))
    assert outcome["ok"], outcome["error"]
    assert MARKER not in json.dumps(outcome["result"])
    assert shape.marker.split("/")[0] not in json.dumps(outcome["result"]["rows"])
    assert outcome["result"]["scoped"] is True and outcome["result"]["redacted"] == 0


def test_the_projects_a_limited_token_sees_are_its_own(shape) -> None:
    rows = shape.ask("MATCH (n) RETURN DISTINCT n.project AS p")["result"]["rows"]
    assert sorted(row["p"].split("@")[0] for row in rows) == sorted([shape.mine, shape.also_mine])
    one = shape.ask("MATCH (n) RETURN DISTINCT n.project AS p", projects=(shape.mine,))["result"]["rows"]
    assert [row["p"].split("@")[0] for row in one] == [shape.mine]


def test_the_control_token_does_reach_the_marker(shape) -> None:
    """The probes could fail: a token that sees every project finds the marker's node."""
    outcome = shape.ask("MATCH (n {name: $marker}) RETURN n.docstring AS doc", {"marker": MARKER}, projects=("*",), scopes=("admin",))
    assert outcome["result"]["rows"] == [{"doc": f"The {MARKER} docstring."}]
    keys = shape.ask("CALL db.propertyKeys()", projects=("*",), scopes=("admin",))["result"]["rows"]
    assert {"propertyKey": "zz_" + MARKER} in keys


@pytest.mark.parametrize(
    "cypher",
    [
        "CALL db.index.fulltext.queryNodes('code_node_search', $marker) YIELD node RETURN node.name AS name",
        "CALL () { MATCH (n {name: $marker}) RETURN n.name AS name } RETURN name",
    ],
)
def test_outside_the_subset_a_limited_token_is_refused_and_an_all_projects_token_runs(shape, cypher: str) -> None:
    refused = shape.ask(cypher, {"marker": MARKER})
    assert not refused["ok"] and refused["error"]["code"] == "unsupported"
    assert "is not in the read-only Cypher subset" in refused["error"]["message"]
    everything = shape.ask(cypher, {"marker": MARKER}, projects=("*",), scopes=("admin",))
    if shape.shape == "production":
        assert everything["ok"] and everything["result"]["scoped"] is False
        assert {"name": MARKER} in everything["result"]["rows"]
    else:  # the embedded store runs the subset for every token
        assert not everything["ok"] and everything["error"]["code"] == "unsupported"
