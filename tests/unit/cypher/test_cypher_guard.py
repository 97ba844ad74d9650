"""The `query` tool's text check (layer 1 of 3): what it refuses, what it lets through, and why.

The real database is the judge of the other two layers (tests/functional/tools/code_context/
test_query_readonly.py); these pin the tokenizer's behaviour on comments, strings and names.
"""

from __future__ import annotations

import pytest

from rhumbline.cypher.guard import CypherRejected, check, decoded, tokenize

ALLOWED = [
    "MATCH (n:CodeNode {project: $project}) RETURN n LIMIT 5",
    "MATCH (n) WHERE n.name STARTS WITH 'x' RETURN n.set, n.`create`",  # properties named like keywords
    "MATCH (n:Create)-[:SET]->(m) RETURN m",  # labels and types named like keywords
    "RETURN {delete: 1, remove: 2} AS m",  # map keys
    "/* CREATE (n) */ MATCH (n) RETURN count(n);",  # a comment, one trailing semicolon
    "MATCH (n) // DETACH DELETE n\nRETURN n",
    "RETURN 'CREATE (n); DROP INDEX x' AS s, \"it's; SET\" AS t, 'a\\' CREATE ' AS u",
    "CALL db.labels() YIELD label RETURN label",
    "CALL db.index.fulltext.queryNodes('code_node_search', 'cart') YIELD node RETURN node.id",
    "CALL `db`.`propertyKeys`() YIELD propertyKey RETURN propertyKey",
    "MATCH (n) CALL (n) { RETURN n.id AS i } RETURN i",  # a read-only subquery
    "RETURN date.truncate('month', date()) AS d, duration.between(date(), date()) AS x",
    "RETURN vector.similarity.cosine([1.0], [1.0]) AS s, point.distance(point({x: 0, y: 0}), point({x: 1, y: 1}))",
    "MATCH p = (a)-[:CALLS*1..3]->(b) RETURN p, n {.name, .kind} LIMIT 1",
    "MATCH (`set`) RETURN `set`",  # a backticked variable
]

REFUSED = {
    "CREATE (n)": "'CREATE' at offset 0",
    "cReAtE (n)": "'cReAtE' at offset 0",
    "MATCH (n) SET n.x = 1": "'SET' at offset 10",
    "MATCH (n) // note\nDETACH DELETE n": "'DETACH'",
    "MATCH (n) /* a */ REMOVE /* b */ n.x": "'REMOVE'",
    "MATCH (n) RETURN n; CREATE (m)": "only one statement",
    "RETURN 1 /* ; */ ; RETURN 2": "only one statement",
    "RETURN 'a\\\\' CREATE (x) //'": "'CREATE'",  # the string ends at the second quote
    "LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l": "'LOAD'",
    "CALL apoc.load.json('http://x')": "procedure 'apoc.load.json' is not allowed",
    "CALL `apoc.load.json`('http://x')": "procedure 'apoc.load.json' is not allowed",
    "CALL `apoc`.`load`.`json`('http://x')": "procedure 'apoc.load.json' is not allowed",
    "CALL dbms.listConfig()": "procedure 'dbms.listConfig' is not allowed",
    "CALL db.createLabel('X')": "procedure 'db.createLabel' is not allowed",
    "CALL db.labels() YIELD label CALL dbms.killQuery('x') YIELD queryId RETURN 1": "'dbms.killQuery'",
    "RETURN apoc.util.md5(['x'])": "function 'apoc.util.md5' is not allowed",
    "RETURN APOC.util.md5(['x'])": "function 'APOC.util.md5' is not allowed",
    "RETURN `apoc.util.md5`(['x'])": "function 'apoc.util.md5' is not allowed",
    "RETURN `apoc`.`util`.`md5`(['x'])": "function 'apoc.util.md5' is not allowed",
    "MATCH (n) CALL (n) { DELETE n }": "'DELETE'",
    "MATCH (n) CALL (n) { RETURN n } IN TRANSACTIONS": "'TRANSACTIONS'",
    "FOREACH (x IN [1] | CREATE (:Y))": "'FOREACH'",
    "USE system SHOW USERS": "'USE'",
    "SHOW USERS": "'SHOW'",
    "CREATE USER x SET PASSWORD 'y'": "'CREATE'",
    "DROP CONSTRAINT c": "'DROP'",
    "PROFILE MATCH (n) RETURN n": "'PROFILE'",
    "EXPLAIN MATCH (n) RETURN n": "'EXPLAIN'",
    "MATCH (n) RETURN n /* unterminated": "unterminated /* comment",
    "RETURN 'unterminated": "unterminated string",
    "RETURN `unterminated": "unterminated `identifier`",
    "   // only a comment": "the query is empty",
}


@pytest.mark.parametrize("cypher", ALLOWED)
def test_read_only_queries_pass(cypher: str) -> None:
    check(cypher)


@pytest.mark.parametrize(("cypher", "reason"), REFUSED.items())
def test_writes_loads_admin_and_tricks_are_refused(cypher: str, reason: str) -> None:
    with pytest.raises(CypherRejected, match=None) as refused:
        check(cypher)
    assert reason in str(refused.value)


def test_tokens_keep_strings_and_identifiers_whole() -> None:
    tokens = tokenize("MATCH (`a``b`) WHERE a.x = 'it''s' // c\nRETURN $p")
    assert [(t.kind, t.text) for t in tokens if t.kind != "symbol"] == [
        ("word", "MATCH"), ("quoted", "a`b"), ("word", "WHERE"), ("word", "a"), ("word", "x"),
        ("string", "'it'"), ("string", "'s'"), ("word", "RETURN"), ("param", "$p"),
    ]  # fmt: skip


def test_an_oversized_query_is_refused() -> None:
    with pytest.raises(CypherRejected, match="limit is 20000"):
        check("RETURN 1 " + " " * 20_000)


def test_unicode_escapes_are_read_as_neo4j_reads_them() -> None:
    """Neo4j decodes \\uXXXX everywhere before it lexes (probed on 5.26; the security suite checks
    this reading against the real server): so does the text check."""
    with pytest.raises(CypherRejected, match="read-only"):
        check(r"\u0043REATE (n)")
    with pytest.raises(CypherRejected, match="read-only"):
        check(r"MATCH (n) RETURN n // \u000a DETACH DELETE n")
    assert decoded(r"RETURN 1 AS `a\u0060b` // \\u0060") == "RETURN 1 AS `a`b` // \\\\u0060"
    assert decoded(r"'\\\u0041' \u005cu0041 \ud83d\ude00") == "'\\\\A' \\u0041 \U0001f600"
    for bad in (r"\uu0041", r"\u00g1", r"x \u004", r"\ud83d alone"):
        with pytest.raises(CypherRejected):
            decoded(bad)
