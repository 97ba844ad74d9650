"""No user text re-enters the Cypher written for Neo4j as text (issue 26, item 2), on both backends.

Neo4j decodes `\\uXXXX` escapes everywhere in a statement before it lexes it, backtick-quoted
names included: a name that ended in `\\u0060` used to close its backticks in Neo4j's reading of
the scoped rewrite, and what followed ran unbound. A token limited to one project (`mine`) sends
such names through every identifier position; the other two projects' slugs and the marker
project's MARKER must appear in no answer, and every answer must say `scoped`.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from tests.functional.cypher.worlds import MARKER, project_names, world

pytestmark = pytest.mark.neo4j

LEAK = "m.project + ' ' + coalesce(m.docstring, m.name)"
# The issue's payload: with the token limited to one project, it listed every project.
ISSUE = r"RETURN 1 AS `x\u0060 LIMIT 0 UNION ALL MATCH (m) RETURN DISTINCT m.project AS \u0060x`"
# Each closes its backticks with \u0060 in Neo4j's reading, runs an unbound part, then reopens them.
PAYLOADS = {
    "alias": r"RETURN 'a' AS `x\u0060 UNION ALL MATCH (m) RETURN DISTINCT m.project AS \u0060x`",
    "variable": rf"MATCH (`v\u0060) RETURN 'a' AS x UNION ALL MATCH (m) RETURN {LEAK} AS x UNION ALL MATCH (\u0060v`) RETURN 'a' AS x",
    "label": rf"MATCH (a:`L\u0060) RETURN 'a' AS x UNION ALL MATCH (m) RETURN {LEAK} AS x UNION ALL MATCH (b:\u0060L`) RETURN 'b' AS x",
    "type": rf"MATCH (a)-[:`T\u0060]-() RETURN 'a' AS x UNION ALL MATCH (m) RETURN {LEAK} AS x UNION ALL MATCH (a)-[:\u0060T`]-() RETURN 'a' AS x",
    "property": rf"MATCH (n) RETURN toString(n.`p\u0060) AS x UNION ALL MATCH (m) RETURN {LEAK} AS x UNION ALL MATCH (n) RETURN toString(n.\u0060p`) AS x",
    "map key": rf"WITH {{`k\u0060: 1}} AS q RETURN 'a' AS x UNION ALL MATCH (m) RETURN {LEAK} AS x UNION ALL WITH {{\u0060k`: 1}} AS q RETURN 'a' AS x",
    "projection": rf"MATCH (n) WITH n {{.`p\u0060 }} AS q RETURN 'a' AS x UNION ALL MATCH (m) RETURN {LEAK} AS x UNION ALL MATCH (n) WITH n {{.\u0060p` }} AS q RETURN 'a' AS x",
    "yield": rf"CALL db.labels() YIELD label AS `y\u0060 RETURN 'a' AS x UNION ALL MATCH (m) RETURN {LEAK} AS x UNION ALL CALL db.labels() YIELD label AS \u0060y` RETURN 'a' AS x",
}


@pytest.fixture(scope="module", params=["embedded", "production"])
def shape(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    with world(request.param, tmp_path_factory.mktemp(request.param), request, project_names()) as w:
        yield w


def others(shape) -> list[str]:
    """What of the other projects an answer must never hold: their slugs and the marker's MARKER."""
    return [shape.also_mine, shape.marker, shape.marker.split("/")[0], MARKER]


def assert_mine_only(shape, outcome: dict) -> None:
    text = json.dumps(outcome, ensure_ascii=False)
    leaked = [other for other in others(shape) if other in text]
    assert not leaked, (leaked, text[:2000])
    if outcome["ok"]:
        assert outcome["result"]["scoped"] is True


@pytest.mark.parametrize("position", sorted(PAYLOADS))
def test_a_unicode_escaped_backtick_never_leaves_the_binding(shape, position: str) -> None:
    outcome = shape.ask(PAYLOADS[position], projects=(shape.mine,))
    assert_mine_only(shape, outcome)
    assert outcome["ok"], outcome["error"]


def test_the_issue_payload_lists_the_tokens_project_only(shape) -> None:
    """Read as Neo4j reads it, the payload is a UNION of an integer and strings: the subset refuses
    it (the SQLite compiler's own limit) or, where it runs, answers with the token's project only."""
    outcome = shape.ask(ISSUE, projects=(shape.mine,))
    assert_mine_only(shape, outcome)
    if not outcome["ok"]:
        assert outcome["error"]["code"] == "unsupported" and "UNION" in outcome["error"]["message"]
    else:
        assert {str(row["x"]).split("@")[0] for row in outcome["result"]["rows"]} <= {"1", shape.mine}


def test_the_escape_is_read_as_neo4j_reads_it(shape) -> None:
    """Our parse decodes the escape like Neo4j: the payload is the UNION it spells, bound to `mine`."""
    rows = shape.ask(PAYLOADS["alias"], projects=(shape.mine,))["result"]["rows"]
    assert rows[0] == {"x": "a"} and {row["x"].split("@")[0] for row in rows[1:]} == {shape.mine}


def test_the_control_token_does_reach_the_other_projects(shape) -> None:
    """The probes could fail: the same union read by a token that sees every project finds them."""
    outcome = shape.ask(PAYLOADS["alias"], projects=("*",), scopes=("admin",))
    seen = {row["x"].split("@")[0] for row in outcome["result"]["rows"][1:]}
    assert {shape.mine, shape.also_mine, shape.marker} <= seen



def test_answers_carry_the_callers_names(shape) -> None:
    """Renamed columns and map keys come back as written (`` doubles a backtick in a name)."""
    outcome = shape.ask(
        "MATCH (n {name: 'slugify', kind: 'Function'}) WITH n, {`a b`: 1, plain: {`c``d`: 'é'}} AS `x y` "
        "RETURN `x y`, n {.name, .`no such`} AS `ü`, `x y`['a b'] AS i, n['no such'] AS j",
        projects=(shape.mine,),
    )
    assert outcome["ok"], outcome["error"]
    assert outcome["result"]["columns"] == ["`x y`", "ü", "i", "j"]  # unaliased: the text as written
    assert outcome["result"]["rows"] == [
        {"`x y`": {"a b": 1, "plain": {"c`d": "é"}}, "ü": {"name": "slugify", "no such": None}, "i": 1, "j": None}
    ]


# -- the generator: hostile names through every identifier position --------------------------------

# What a name may hold to end its quoting, a string, a comment or a line in someone's reading:
# backticks (raw, doubled, as Neo4j escapes), backslashes, quotes, comment marks, newlines, the
# query text of an unbound part, and non-ASCII letters, marks and controls.
FRAGMENTS = [
    "`", "``", "\\", "\\\\", r"\u0060", r"\\u0060", r"\u005c", r"\u005cu0060", r"\u0027", r"\u0022",
    r"\u000a", r"\u002f\u002f", r"\u002a/", "'", '"', "//", "/*", "*/", "\n", "\r", " ", "}", ")", "]",
    ":", ",", " UNION ALL MATCH (m) RETURN m.project AS x ", "a", "x", "é", "名", "\u202e", "\u0000", "😀",
    r"\ud83d\ude00", "rhumbline_i1",
]  # fmt: skip
HOSTILE = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=2), min_size=1, max_size=6).map("".join)


def quoted(raw: str) -> str:
    """A name as the caller writes it between backticks (Cypher doubles a backtick to escape it);
    the escapes in `raw` stay for the readers to decode."""
    return "`" + raw.replace("`", "``") + "`"


# Each position: a query placing the name `{i}` there (twice where the name must agree with
# itself), or a string body `{s}`; every pattern's nodes are the caller's to read.
POSITIONS = {
    "variable": "MATCH ({i}) RETURN {i}.project AS x",
    "alias": "MATCH (n) RETURN n.project AS {i} UNION MATCH (n) RETURN n.name AS {i}",
    "with alias": "MATCH (n) WITH n.project AS {i} RETURN {i} AS x",
    "label": "MATCH (n:{i}) RETURN n.project AS x",
    "label predicate": "MATCH (n) WHERE NOT n:{i} RETURN n.project AS x",
    "relationship type": "MATCH (a)-[r:{i}|CONTAINS]->(b) RETURN b.project AS x, type(r) AS t",
    "relationship variable": "MATCH (a)-[{i}]->(b) RETURN type({i}) AS t, b.project AS x",
    "property key": "MATCH (n) RETURN n.{i} AS x, n.project AS p",
    "pattern property": "MATCH (n {{{i}: 1}}) RETURN n.project AS x",
    "map key": "MATCH (n) RETURN {{{i}: n.project}} AS x",
    "map projection": "MATCH (n) RETURN n {{.{i}, .project}} AS x",
    "list variable": "MATCH (n) RETURN [{i} IN [n.project] | {i}] AS x",
    "unwind": "MATCH (n) UNWIND [n.project] AS {i} RETURN {i} AS x",
    "yield": "CALL db.labels() YIELD label AS {i} RETURN {i} AS x",
    "string": "MATCH (n) WHERE n.name <> '{s}' RETURN n.project AS x",
}
EXAMPLES = 20  # per position and backend: bounded, so the file stays a small part of the suite


@pytest.mark.parametrize("position", sorted(POSITIONS))
def test_no_hostile_name_reads_another_project(shape, position: str) -> None:
    template = POSITIONS[position]
    answered: list[str] = []

    @seed(26)
    @settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(raw=HOSTILE)
    def probe(raw: str) -> None:
        text = template.format(i=quoted(raw), s=raw)
        outcome = shape.ask(text, projects=(shape.mine,))
        assert_mine_only(shape, outcome)
        if not outcome["ok"]:
            # Refused by name or by the database, never a failure of ours.
            assert outcome["error"]["code"] in ("invalid_arguments", "unsupported", "forbidden"), (text, outcome)
            return
        answered.append(raw)
        columns = outcome["result"]["columns"]
        assert not any(c.startswith("rhumbline_") for c in columns if "rhumbline_" not in text), (text, columns)

    probe()
    print(f"{shape.shape} {position}: {len(answered)}/{EXAMPLES} answered")


@seed(26)
@settings(max_examples=300, deadline=None, database=None)
@given(position=st.sampled_from(sorted(POSITIONS)), raw=HOSTILE)
def test_the_rewrite_holds_no_text_of_the_caller(position: str, raw: str) -> None:
    """The construction itself, without a database: whatever the names, the scoped text has no
    escape for Neo4j to decode (not one backslash), no string literal, and only plain names."""
    from rhumbline.cypher.guard import CypherRejected, decoded
    from rhumbline.cypher.parser import parse
    from rhumbline.cypher.neo4j.scoping import PLAIN, scoped

    try:
        parsed = parse(POSITIONS[position].format(i=quoted(raw), s=raw))
    except CypherRejected:
        return
    bound = scoped(parsed)
    assert "\\" not in bound.text and decoded(bound.text) == bound.text
    assert "'" not in bound.text and '"' not in bound.text
    names = bound.text.split("`")[1::2]
    assert names and all(PLAIN.fullmatch(name) for name in names), bound.text
    assert set(bound.names) <= set(names)


# -- our reading of escapes is Neo4j's --------------------------------------------------------------

ESCAPE_PIECES = ["\\", "\\\\", "u", "uu", "0060", "005c", "0041", "0027", "00", "g", "`", "``", "'", "a", "d83d", "de00", "U"]
ESCAPED = st.lists(st.sampled_from(ESCAPE_PIECES), min_size=1, max_size=8).map("".join)


@pytest.fixture(scope="module")
def neo4j_session(neo4j_server: dict[str, str]):
    import neo4j

    driver = neo4j.GraphDatabase.driver(neo4j_server["uri"], auth=(neo4j_server["user"], neo4j_server["password"]))
    with driver.session(default_access_mode=neo4j.READ_ACCESS) as session:
        yield session
    driver.close()


def neo4j_reading(session, text: str) -> tuple[list[str], list] | None:
    """The columns and first row Neo4j answers for `text` (nothing of the graph), None if it refuses it."""
    import neo4j

    try:
        result = session.run(text)
        return list(result.keys()), list(result.single(strict=True).values())
    except neo4j.exceptions.CypherSyntaxError:
        return None


def our_reading(text: str) -> tuple[list[str], list] | None:
    from rhumbline.cypher.guard import CypherRejected
    from rhumbline.cypher.parser import parse

    try:
        items = parse(text).clauses[0].items  # type: ignore[union-attr]
    except CypherRejected:
        return None
    return [item.name for item in items], [item.expr.value for item in items]


@seed(26)
@settings(max_examples=150, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(raw=ESCAPED, where=st.sampled_from(["name", "string"]))
def test_escapes_read_as_neo4j_reads_them(neo4j_session, raw: str, where: str) -> None:
    """A name or a string made of backslashes, `u`s, hex digits and quotes: where both read it,
    the same name or value; where Neo4j refuses it, so do we (we refuse a few Neo4j keeps, like
    an unknown string escape `\\g`, by name)."""
    text = f"RETURN 1 AS {quoted(raw)}" if where == "name" else f"RETURN '{raw}' AS x"
    ours, theirs = our_reading(text), neo4j_reading(neo4j_session, text)
    if theirs is None:
        assert ours is None, (text, ours)
    elif ours is not None:
        assert ours == theirs, text
