"""The Cypher written back for Neo4j binds every node to the caller's projects."""

from __future__ import annotations

import re

from rhumbline.cypher.parser import parse
from rhumbline.cypher.neo4j.scoping import PLAIN, scoped

BOUND = re.compile(r"\((`[^`]+`)(?::`[^`]+`)*:CodeNode(?: \{[^}]*\})? WHERE \1\.project IN \$projects\)")


def _node_patterns(text: str) -> list[str]:
    return re.findall(r"\(`[^`]+`[^()]*\)", text)


def test_every_new_node_is_bound_wherever_patterns_appear() -> None:
    text = scoped(parse(
        "MATCH (a)-->(:X {k: 1}) OPTIONAL MATCH (a)-[:R]->(b) "
        "WHERE EXISTS { (b)-->(c) } AND COUNT { (b)<--() } > 0 "
        "RETURN [(a)-->(d) | d.name] AS names"
    )).text  # fmt: skip
    # `:X` is not a label of the graph's: written as a generated name (rhumbline_i2).
    introduced = ["a", "rhumbline_n1", "b", "c", "rhumbline_n3", "d"]
    for var in introduced:
        assert re.search(rf"\(`{var}`(:`[^`]+`)*:CodeNode( \{{[^}}]*\}})? WHERE `{var}`\.project IN \$projects\)", text), (var, text)
    # A variable already bound is not bound again.
    assert "(`a`)-[:`R`]->" in text and "EXISTS { MATCH (`b`)-[]->" in text


def test_variable_length_and_shortest_paths_bind_the_nodes_inside() -> None:
    text = scoped(parse("MATCH (a)-[:CALLS*1..3]->(b) MATCH p = shortestPath((a)-[*..4]-(c)) RETURN b, p")).text
    assert "`rhumbline_p1` = (`a`:CodeNode" in text
    assert "all(rhumbline_x IN nodes(`rhumbline_p1`) WHERE rhumbline_x:CodeNode AND rhumbline_x.project IN $projects)" in text
    assert "all(rhumbline_x IN nodes(`p`)" in text


def test_generated_names_never_reach_the_answer() -> None:
    text = scoped(parse("MATCH (a)-->() RETURN *")).text
    assert text.endswith("RETURN `a` AS `a`")


def test_text_is_rebuilt_not_copied() -> None:
    """Strings go as parameters; names that are not plain become generated ones, mapped back."""
    bound = scoped(parse("MATCH (n) WHERE n.name = 'x\\' }) MATCH (m) //' OR 1 = 1 RETURN n.`we``ird` AS `a b`, n.name"))
    assert bound.strings == {"rhumbline_s1": "x' }) MATCH (m) //"}
    assert "((((`n`).`name` = $rhumbline_s1) OR (1 = 1)))" in bound.text
    assert bound.text.endswith("RETURN (`n`).`rhumbline_i2` AS `rhumbline_i3`, (`n`).`name` AS `rhumbline_i4`")
    assert bound.names == {"rhumbline_i2": "we`ird", "rhumbline_i3": "a b", "rhumbline_i4": "n.name"}
    for written in re.findall(r"`([^`]*)`", bound.text):
        assert PLAIN.fullmatch(written), written


def test_the_same_name_is_renamed_alike_throughout() -> None:
    bound = scoped(parse("WITH {`a b`: 1} AS `m x` RETURN `m x`.`a b` AS `a b` UNION RETURN 2 AS `a b`"))
    assert bound.text == (
        "WITH {`rhumbline_i1`: 1} AS `rhumbline_i2` RETURN (`rhumbline_i2`).`rhumbline_i1` AS `rhumbline_i1` "
        "UNION RETURN 2 AS `rhumbline_i1`"
    )
    assert bound.names == {"rhumbline_i1": "a b", "rhumbline_i2": "m x"}


def test_parameters_keep_plain_names_and_rename_the_others() -> None:
    bound = scoped(parse("RETURN $plain AS a, $é AS b, $projects AS c, 'é' AS d, 'é' AS e"))
    assert bound.text == "RETURN $plain AS `a`, $rhumbline_param1 AS `b`, $projects AS `c`, $rhumbline_s2 AS `d`, $rhumbline_s2 AS `e`"
    assert bound.parameters({"plain": 1, "é": 2, "unused": 3}) == {"plain": 1, "rhumbline_param1": 2, "rhumbline_s2": "é"}


def test_names_that_start_like_generated_ones_are_renamed() -> None:
    bound = scoped(parse("MATCH (n:rhumbline_x) RETURN n.rhumbline_n1 AS x"))
    assert "`rhumbline_x`" not in bound.text and "`rhumbline_n1`" not in bound.text.split("RETURN")[1]


def test_schema_procedures_are_scoped_subqueries() -> None:
    bound = scoped(parse("CALL db.propertyKeys() YIELD propertyKey AS k WHERE k STARTS WITH 'q' RETURN k"))
    text = bound.text
    assert text.startswith("CALL () { MATCH (n:CodeNode) WHERE n.project IN $projects")
    assert "WITH `propertyKey` AS `k` WHERE (`k` STARTS WITH $rhumbline_s1) RETURN `k` AS `k`" in text


def test_neo4j_messages_name_things_as_the_caller_wrote_them() -> None:
    bound = scoped(parse("MATCH (`a b`) RETURN `a b`.name + $é AS `c d`"))
    message = "Type mismatch for `rhumbline_i1` in `rhumbline_i3` with $rhumbline_param2"
    assert bound.readable(message) == "Type mismatch for `a b` in `c d` with $é"
