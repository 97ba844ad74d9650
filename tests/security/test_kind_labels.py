"""Nodes labelled by kind (`:Function`, `:Class`, ...) beside `:CodeNode`, through the real `query`
tool on both deployment shapes (SQLite, and Neo4j where the labels are written at ingest), and a
label or relationship type that matches nothing named in the answer's `warnings`, never silent:
a query for `:Function` answering 0 must not read as "no functions" when no node has the label."""

from __future__ import annotations

from pathlib import Path

from rhumbline.stores.graph.model import GraphBatch, Node

FIXTURE = Path(__file__).parents[1] / "fixtures" / "ingest" / "pyproj"
CYPHER = ("read", "cypher")


def _rows(world, cypher: str, **extra) -> dict:
    outcome = world.call("query", {"cypher": cypher, **extra}, scopes=CYPHER)
    assert outcome["ok"], outcome
    return outcome["result"]


def _count(world, label: str) -> int:
    result = _rows(world, f"MATCH (n:{label}) RETURN count(n) AS c")
    assert result["warnings"] == [], result["warnings"]
    return result["rows"][0]["c"]


def test_a_kind_label_counts_what_the_ingest_counted(world, tmp_path: Path) -> None:
    from rhumbline.ingest import pipeline

    summary = pipeline.ingest_local(
        FIXTURE, world.project, store=world.stores.graph(), engine=world.stores.relational(),
        clear=True, history=False,
    )  # fmt: skip
    kinds = summary.nodes_by_kind
    assert kinds.get("Function", 0) > 0 and kinds.get("Class", 0) > 0 and kinds.get("Method", 0) > 0, kinds
    for kind, count in kinds.items():
        assert _count(world, kind) == count, (world.shape, kind)
    assert _count(world, "CodeNode") >= sum(kinds.values())  # and the stubs of unresolved ends
    # The label is a predicate and a function too, as on Neo4j.
    where = _rows(world, "MATCH (n:CodeNode) WHERE n:Function RETURN count(n) AS c")
    assert where["rows"] == [{"c": kinds["Function"]}]
    labels = _rows(world, "MATCH (n:Method) RETURN labels(n) AS l, n LIMIT 1")["rows"][0]
    assert sorted(labels["l"]) == ["CodeNode", "Method"]
    assert labels["n"]["labels"] == ["CodeNode", "Method"]
    listed = _rows(world, "CALL db.labels() YIELD label RETURN label")["rows"]
    assert {row["label"] for row in listed} == {"CodeNode", *kinds}


def test_an_incremental_write_labels_by_kind_and_relabels_a_changed_kind(world) -> None:

    graph = world.stores.graph()
    before = _count(world, "Function"), _count(world, "Class")
    node = Node("function:shop/extra.py:helper", "Function", "helper", "shop.extra.helper", "shop/extra.py", 1, 2)
    graph.apply(world.project, GraphBatch(nodes=[node]))
    assert (_count(world, "Function"), _count(world, "Class")) == (before[0] + 1, before[1])
    changed = Node(node.id, "Class", "helper", "shop.extra.helper", "shop/extra.py", 1, 2)
    graph.apply(world.project, GraphBatch(nodes=[changed]))
    assert (_count(world, "Function"), _count(world, "Class")) == (before[0], before[1] + 1)


def test_a_label_or_type_that_matches_nothing_is_named(world) -> None:
    # The seeded graph has classes, methods, a function and CALLS, but no Decision and no INHERITS.
    cases = {
        "MATCH (n:Fucntion) RETURN count(n) AS c": ["the label :Fucntion matches no node"],
        "MATCH (n:Decision) RETURN count(n) AS c": ["the label :Decision matches no node in this token's projects"],
        "MATCH (a)-[:INHERITS]->(b) RETURN count(*) AS c": [
            "the relationship type :INHERITS matches no relationship in this token's projects"
        ],
        "MATCH (a:Class)-[:calls|CALLS]->(b) WHERE b:Enum RETURN count(*) AS c": [
            "the label :Enum matches no node in this token's projects",
            "the relationship type :calls matches no relationship",
        ],
        "MATCH (a:Method)-[:CALLS]->(b:Function) RETURN count(*) AS c": [],
        "MATCH (a) WHERE EXISTS { (a)-[:DEFINES]->(:Method) } RETURN count(a) AS c": [],
    }
    # No graph has these, whatever else the session's shared stores hold.
    nowhere = ("the label :Fucntion ", "the relationship type :calls ")
    for cypher, expected in cases.items():
        for projects in ((world.project,), ("*",)):  # "*": on Neo4j the query runs as written
            outcome = world.call("query", {"cypher": cypher}, projects=projects, scopes=CYPHER)
            assert outcome["ok"], outcome
            warnings = outcome["result"]["warnings"]
            if projects == ("*",):
                # Such a token also sees the projects earlier tests left in the session's stores:
                # a label one of them has is rightly not named, one that nothing has always is.
                assert all(any(said.startswith(start) for start in expected) for said in warnings), warnings
                needed = [start for start in expected if start.startswith(nowhere)]
                assert all(any(said.startswith(start) for said in warnings) for start in needed), warnings
                continue
            assert len(warnings) == len(expected), (world.shape, cypher, warnings)
            for said, start in zip(warnings, expected):
                assert said.startswith(start), (world.shape, cypher, warnings)
    # What another project has does not count: the token sees only its own.
    only_there = Node("decision:adr/1.md:d", "Decision", "d", "d", "adr/1.md", 1, 2)

    world.stores.graph().apply(world.other_project, GraphBatch(nodes=[only_there]))
    outcome = world.call("query", {"cypher": "MATCH (n:Decision) RETURN count(n) AS c"}, scopes=CYPHER)
    assert outcome["result"]["rows"] == [{"c": 0}]
    assert outcome["result"]["warnings"] == ["the label :Decision matches no node in this token's projects"]


def test_the_scoped_rewrite_writes_only_the_graphs_own_labels() -> None:
    from rhumbline.cypher.neo4j.scoping import scoped
    from rhumbline.cypher.parser import parse
    from rhumbline.cypher.schema import GRAPH_LABELS

    text = scoped(parse("MATCH (n:Function:Widget)-[:CALLS]->(m) WHERE m:Class OR m:`Dr op` RETURN n")).text
    assert ":`Function`" in text and ":`Class`" in text
    assert "Widget" not in text and "Dr op" not in text
    assert {"Function", "Class"} <= GRAPH_LABELS and "Widget" not in GRAPH_LABELS


def test_a_property_no_node_has_is_named(world) -> None:
    # A node's path is `file`: `f.path` reads null on every node, which must not read as "no file".
    path = "no node has the property `path`: it reads null"
    cases = {
        "MATCH (f:File) WHERE f.path ENDS WITH '.py' RETURN count(f) AS c": [path],
        "MATCH (f:File {path: 'shop/models.py'}) RETURN count(f) AS c": [path],
        "MATCH (f:File) RETURN f.path AS p, f.qualname AS q LIMIT 1": [path, "no node has the property `qualname`"],
        "MATCH (f:File) WHERE f.file ENDS WITH '.py' RETURN count(f) AS c": [],
        # A relationship's extra properties are open; an unwound map is no node.
        "MATCH (a)-[r:CALLS]->(b) RETURN r.commits AS n, a.name AS name LIMIT 1": [],
        "UNWIND [{path: 1}] AS f RETURN f.path AS p": [],
    }
    for cypher, expected in cases.items():
        for projects in ((world.project,), ("*",)):
            outcome = world.call("query", {"cypher": cypher}, projects=projects, scopes=CYPHER)
            assert outcome["ok"], (cypher, outcome)
            said = [w for w in outcome["result"]["warnings"] if "property" in w]
            assert len(said) == len(expected), (world.shape, projects, cypher, said)
            for warning, start in zip(said, expected):
                assert warning.startswith(start), (world.shape, projects, cypher, said)
