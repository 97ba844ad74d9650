"""The subset's parser: what it builds, and what it refuses by name before anything runs."""

from __future__ import annotations

import pytest

from rhumbline.cypher import syntax as s
from rhumbline.cypher.parser import CypherSyntaxError, NotInSubset, parse


def _return(text: str) -> s.Projection:
    last = parse(text).clauses[-1]
    assert isinstance(last, s.Projection)
    return last


def test_columns_are_named_as_written_or_aliased() -> None:
    projection = _return("MATCH (n) RETURN n.name,  count( * ), n.kind AS kind")
    assert [item.name for item in projection.items] == ["n.name", "count( * )", "kind"]


def test_literals_and_operators() -> None:
    [item] = _return(r"RETURN 'it\'s \u00e9\n' AS s").items
    assert item.expr == s.Lit("it's é\n")
    assert _return("RETURN 0x1F AS h").items[0].expr == s.Lit(31)
    assert _return("RETURN 1.5e-3 AS f").items[0].expr == s.Lit(0.0015)
    chained = _return("RETURN 1 < 2 < 3 AS c").items[0].expr
    assert chained == s.Op("and", (s.Op("<", (s.Lit(1), s.Lit(2))), s.Op("<", (s.Lit(2), s.Lit(3)))))
    assert _return("RETURN 1 + 2 * 3 AS x").items[0].expr == s.Op("+", (s.Lit(1), s.Op("*", (s.Lit(2), s.Lit(3)))))
    assert _return("return NOT true or false as x").items[0].expr == s.Op("or", (s.Op("not", (s.Lit(True),)), s.Lit(False)))


def test_patterns() -> None:
    match = parse("MATCH p = (a:CodeNode {name: $n})-[r:CALLS|:IMPORTS*1..3]->(b)<--() RETURN p").clauses[0]
    assert isinstance(match, s.Match)
    [path] = match.patterns
    assert path.var == "p" and [n.var for n in path.nodes] == ["a", "b", None]
    assert path.nodes[0].labels == ("CodeNode",)
    assert path.rels[0] == s.RelPattern("r", ("CALLS", "IMPORTS"), "out", None, (1, 3))
    assert path.rels[1].direction == "in" and path.rels[1].hops is None
    star = parse("MATCH (a)-[*]-(b) RETURN a").clauses[0].patterns[0].rels[0]  # type: ignore[union-attr]
    assert (star.hops, star.direction) == ((1, None), "both")


@pytest.mark.parametrize(
    ("text", "construct"),
    [
        ("MATCH (n) FOREACH (x IN [1] | SET n.x = 1)", "the FOREACH clause"),
        ("CALL { MATCH (n) RETURN n } RETURN n", "a CALL { ... } subquery"),
        ("CALL db.index.fulltext.queryNodes('x', 'y') YIELD node RETURN node", "the procedure 'db.index.fulltext.queryNodes'"),
        ("MATCH (n:A|B) RETURN n", "label expressions (|, &)"),
        ("MATCH ((a)-->(b)){1,3} RETURN a", "quantified path patterns"),
        ("MATCH (n WHERE n.x = 1) RETURN n", "WHERE inside a node pattern"),
        ("MATCH (n $map) RETURN n", "a parameter map as pattern properties"),
        ("RETURN reduce(s = 0, x IN [1] | s + x) AS s", "reduce()"),
        ("RETURN apoc.text.join(['a'], ',') AS s", "the function 'apoc.text.join'"),
        ("RETURN timestamp() AS t", "the function timestamp()"),
        ("MATCH (rhumbline_x) RETURN 1 AS one", "variable names starting with 'rhumbline_'"),
        ("MATCH (n) RETURN n.name AS rhumbline_y", "variable names starting with 'rhumbline_'"),
        ("MATCH p = SHORTEST 1 (a)-->(b) RETURN p", "SHORTEST path selectors"),
        ("MATCH (n) RETURN COLLECT { MATCH (n)-->(m) RETURN m } AS c", "COLLECT { ... } subqueries"),
    ],
)
def test_what_the_subset_refuses_is_named(text: str, construct: str) -> None:
    with pytest.raises(NotInSubset) as refused:
        parse(text)
    assert refused.value.construct.startswith(construct)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("MATCH (n RETURN n", r"expected '\)' at offset 9"),
        ("MATCH (n)", "a query must end with RETURN"),
        ("RETURN 1 AS a, 2 AS a", "the column name 'a' is used twice"),
        ("WITH 1 + 1 RETURN 1 AS x", "expression in WITH must be aliased"),
        ("RETURN 'bad \\q' AS x", "unknown escape"),
        ("RETURN 1 AS a UNION RETURN 2 AS b", "same column names"),
        ("", "the query is empty"),
    ],
)
def test_syntax_errors_say_what_and_where(text: str, message: str) -> None:
    with pytest.raises(CypherSyntaxError, match=message):
        parse(text)
