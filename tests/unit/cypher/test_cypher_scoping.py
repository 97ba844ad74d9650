"""The Cypher written back for Neo4j binds every node to the caller's projects."""

from __future__ import annotations

import re

from rhumbline.cypher.parser import parse
from rhumbline.cypher.scoping import scoped, string

BOUND = re.compile(r"\((`[^`]+`)(?::`[^`]+`)*:CodeNode(?: \{[^}]*\})? WHERE \1\.project IN \$projects\)")


def _node_patterns(text: str) -> list[str]:
    return re.findall(r"\(`[^`]+`[^()]*\)", text)


def test_every_new_node_is_bound_wherever_patterns_appear() -> None:
    text = scoped(parse(
        "MATCH (a)-->(:X {k: 1}) OPTIONAL MATCH (a)-[:R]->(b) "
        "WHERE EXISTS { (b)-->(c) } AND COUNT { (b)<--() } > 0 "
        "RETURN [(a)-->(d) | d.name] AS names"
    ))  # fmt: skip
    introduced = ["a", "rhumbline_n1", "b", "c", "rhumbline_n2", "d"]
    for var in introduced:
        assert re.search(rf"\(`{var}`(:`[^`]+`)*:CodeNode( \{{[^}}]*\}})? WHERE `{var}`\.project IN \$projects\)", text), (var, text)
    # A variable already bound is not bound again.
    assert "(`a`)-[:`R`]->" in text and "EXISTS { MATCH (`b`)-[]->" in text


def test_variable_length_and_shortest_paths_bind_the_nodes_inside() -> None:
    text = scoped(parse("MATCH (a)-[:CALLS*1..3]->(b) MATCH p = shortestPath((a)-[*..4]-(c)) RETURN b, p"))
    assert "`rhumbline_p1` = (`a`:CodeNode" in text
    assert "all(rhumbline_x IN nodes(`rhumbline_p1`) WHERE rhumbline_x:CodeNode AND rhumbline_x.project IN $projects)" in text
    assert "all(rhumbline_x IN nodes(`p`)" in text


def test_generated_names_never_reach_the_answer() -> None:
    text = scoped(parse("MATCH (a)-->() RETURN *"))
    assert text.endswith("RETURN `a` AS `a`")


def test_text_is_rebuilt_not_copied() -> None:
    text = scoped(parse("MATCH (n) WHERE n.name = 'x\\' }) MATCH (m) //' OR 1 = 1 RETURN n.`we``ird` AS `a b`"))
    assert "'x\\' }) MATCH (m) //'" in text  # the string stays one string
    assert "((((`n`).`name` = 'x\\' }) MATCH (m) //') OR (1 = 1)))" in text
    assert text.endswith("RETURN (`n`).`we``ird` AS `a b`")
    for value in ["it's", 'say "hi"', "back\\slash", "new\nline", "tab\tand \u00e9 \U0001f600"]:
        assert parse(f"RETURN {string(value)} AS v").clauses[0].items[0].expr.value == value  # type: ignore[union-attr]


def test_schema_procedures_are_scoped_subqueries() -> None:
    text = scoped(parse("CALL db.propertyKeys() YIELD propertyKey AS k WHERE k STARTS WITH 'q' RETURN k"))
    assert text.startswith("CALL () { MATCH (n:CodeNode) WHERE n.project IN $projects")
    assert "WITH `propertyKey` AS `k` WHERE (`k` STARTS WITH 'q') RETURN `k` AS `k`" in text
