"""The Cypher text of the Neo4j graph store (schema, writes, reads) and its Lucene queries.

Kept apart from the store's Python, as sqlite/sql.py is for SQLite. Relationship types cannot be
parameters: `{relation}` in UPSERT_EDGES is replaced by a name checked by rows.check_relation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rhumbline.stores.graph import rows, words
from rhumbline.stores.graph.words import SearchQuery

# The Lucene index is a boolean query: past this many projects, filter in Cypher only.
_MAX_PROJECT_CLAUSES = 100
FULLTEXT_INDEX = "code_node_text"
FULLTEXT_PROPERTIES = ("name_words", "words", "doc_words", "project")

# `n.id IS NOT NULL` lets the planner use the (project, id) constraint index for a project scan.
SCHEMA = (
    "CREATE CONSTRAINT code_node_key IF NOT EXISTS FOR (n:CodeNode) REQUIRE (n.project, n.id) IS UNIQUE",
    "CREATE INDEX code_node_name IF NOT EXISTS FOR (n:CodeNode) ON (n.project, n.name_lower)",
    "CREATE INDEX code_node_qn IF NOT EXISTS FOR (n:CodeNode) ON (n.project, n.qn_lower)",
    "CREATE INDEX code_node_qn_rev IF NOT EXISTS FOR (n:CodeNode) ON (n.project, n.qn_rev)",
    "CREATE INDEX code_node_file IF NOT EXISTS FOR (n:CodeNode) ON (n.project, n.file)",
    # For the `query` tool: users scope their Cypher with `{project: $project}` alone, which the
    # composite indexes above cannot seek on; without it such a query scans every project's nodes.
    "CREATE INDEX code_node_project IF NOT EXISTS FOR (n:CodeNode) ON (n.project)",
    "CREATE CONSTRAINT graph_meta_key IF NOT EXISTS FOR (m:GraphMeta) REQUIRE m.project IS UNIQUE",
    # Whitespace analyzer: the indexed words are already split and lowercased (see words.py), so
    # Lucene tokenizes exactly as SQLite's FTS5 does and both backends match the same nodes.
    f"CREATE FULLTEXT INDEX {FULLTEXT_INDEX} IF NOT EXISTS FOR (n:CodeNode)"
    f" ON EACH [{', '.join('n.' + p for p in FULLTEXT_PROPERTIES)}]"
    " OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace'}}",
)  # fmt: skip

_NODE_MAP = "{" + ", ".join(f".{f}" for f in rows.NODE_FIELDS) + "}"

# Explicit SETs: `SET n = row` would also write the MERGE keys, and the planner would then buffer
# every row (an Eager operator: all rows in transaction memory before the first write).
UPSERT_NODES = (
    "UNWIND $rows AS row MERGE (n:CodeNode {project: $project, id: row.id}) SET "
    + ", ".join(f"n.{p} = row.{p}" for p in rows.NODE_PROPERTIES if p != "id")
)
# Both ends first, one MERGE per statement: MERGE-ing both ends of each edge in one statement
# makes the planner buffer every row (Eager) since one end may be the other's new node.
ADD_ENDS = "UNWIND $ids AS id MERGE (:CodeNode {project: $project, id: id})"
UPSERT_EDGES = """
UNWIND $rows AS row
MATCH (a:CodeNode {project: $project, id: row.source})
MATCH (b:CodeNode {project: $project, id: row.target})
MERGE (a)-[r:`{relation}`]->(b)
SET r = row.properties
"""
# Version stamp (GraphBatch.version): one GraphMeta node per project, outside the CodeNode label
# so no read sees it. Touching it first takes its write lock: a conditional batch then reads the
# stamp no concurrent batch can change before this transaction ends.
LOCK_STAMP = "MERGE (m:GraphMeta {project: $project}) SET m.written_at = timestamp()"
GET_STAMP = "MATCH (m:GraphMeta {project: $project}) RETURN m.version AS version"
SET_STAMP = "MERGE (m:GraphMeta {project: $project}) SET m.version = $version, m.graph = $graph"
DELETE_STAMP = "MATCH (m:GraphMeta {project: $project}) DELETE m"
REMOVE_EDGES = """
UNWIND $keys AS key
MATCH (a:CodeNode {project: $project, id: key[0]})-[r]->(b:CodeNode {project: $project, id: key[2]})
WHERE type(r) = key[1]
DELETE r
"""
STUBS_NEXT_TO_NODES = """
UNWIND $ids AS node_id
MATCH (n:CodeNode {project: $project, id: node_id})--(m:CodeNode) WHERE m.kind IS NULL
RETURN collect(DISTINCT m.id) AS ids
"""
DELETE_NODES = """
UNWIND $ids AS node_id
MATCH (n:CodeNode {project: $project, id: node_id})
DETACH DELETE n
"""
# What edges_of reports as an edge's own fields; any other relationship property is one of
# Edge.properties.
EDGE_FIELDS = frozenset({"project", "confidence", "confidence_score", "explanation", "file", "line"})


def extra_properties(stored: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Edge.properties from a relationship's stored properties: those that are not its own fields."""
    extra = {k: v for k, v in sorted(stored.items()) if k not in EDGE_FIELDS} if stored else None
    return extra or None
STUBS_NEXT_TO_FILES = """
MATCH (n:CodeNode) WHERE n.project = $project AND n.file IN $files
MATCH (n)--(m:CodeNode) WHERE m.kind IS NULL
RETURN collect(DISTINCT m.id) AS ids
"""
DELETE_FILES = "MATCH (n:CodeNode) WHERE n.project = $project AND n.file IN $files DETACH DELETE n"
DELETE_LONELY_STUBS = """
UNWIND $ids AS stub_id
MATCH (s:CodeNode {project: $project, id: stub_id})
WHERE s.kind IS NULL AND NOT EXISTS { (s)--() }
DELETE s
"""
# Relationships first, then nodes, each in small inner transactions: a DETACH DELETE of a batch of
# highly connected nodes can need more than the transaction memory limit.
DELETE_PROJECT = (
    """
    MATCH (n:CodeNode)-[r]->() WHERE n.project = $project AND n.id IS NOT NULL
    CALL (r) { DELETE r } IN TRANSACTIONS OF 5000 ROWS
    """,
    """
    MATCH (n:CodeNode) WHERE n.project = $project AND n.id IS NOT NULL
    CALL (n) { DELETE n } IN TRANSACTIONS OF 5000 ROWS
    """,
)
NODE_COUNT = (
    "MATCH (n:CodeNode) WHERE n.project = $project AND n.id IS NOT NULL RETURN count(n) AS c"
)

GET_NODE = f"""
MATCH (n:CodeNode {{project: $project, id: $id}}) WHERE n.kind IS NOT NULL
RETURN n {_NODE_MAP} AS node
"""
EDGES_OF = """
MATCH (n:CodeNode {{project: $project, id: $id}})
CALL (n) {{
    MATCH (n){pattern}(m)
    WITH r, m ORDER BY type(r), m.id SKIP $offset LIMIT $limit
    RETURN collect({{
        relation: type(r), confidence: r.confidence, confidence_score: r.confidence_score,
        explanation: r.explanation, file: r.file, line: r.line, properties: properties(r),
        other_id: m.id,
        other_kind: coalesce(m.kind, 'Unknown'), other_name: coalesce(m.name, m.id)
    }}) AS page
}}
RETURN page, COUNT {{ (n){count_pattern}() }} AS total
"""
EDGE_PATTERNS = {"out": ("-[r]->", "-->"), "in": ("<-[r]-", "<--")}
_EDGE_MAP = """{
        relation: type(r), confidence: r.confidence, confidence_score: r.confidence_score,
        explanation: r.explanation, file: r.file, line: r.line, properties: properties(r),
        other_id: m.id,
        other_kind: coalesce(m.kind, 'Unknown'), other_name: coalesce(m.name, m.id)
    }"""
# GET_NODE + EDGES_OF both ways + GET_STAMP as one statement (get_node's one round trip): the
# (project, id) index finds the node, each page is sorted and cut in its own subquery, the totals
# are degree counts (no rows built), the stamp is a (project) index seek.
NODE_WITH_EDGES = f"""
MATCH (n:CodeNode {{project: $project, id: $id}}) WHERE n.kind IS NOT NULL
CALL (n) {{
    MATCH (n)-[r]->(m)
    WITH r, m ORDER BY type(r), m.id SKIP $out_offset LIMIT $limit
    RETURN collect({_EDGE_MAP}) AS out_page
}}
CALL (n) {{
    MATCH (n)<-[r]-(m)
    WITH r, m ORDER BY type(r), m.id SKIP $in_offset LIMIT $limit
    RETURN collect({_EDGE_MAP}) AS in_page
}}
OPTIONAL MATCH (g:GraphMeta {{project: $project}})
RETURN n {_NODE_MAP} AS node, out_page, COUNT {{ (n)-->() }} AS out_total,
       in_page, COUNT {{ (n)<--() }} AS in_total, g.version AS version
"""

_NAME_CANDIDATES = """
    MATCH (n:CodeNode) WHERE n.project IN $projects AND n.name_lower = $q RETURN n
    UNION
    MATCH (n:CodeNode) WHERE n.project IN $projects AND n.qn_lower = $q RETURN n
    UNION
    MATCH (n:CodeNode) WHERE n.project IN $projects AND n.name_lower STARTS WITH $q RETURN n
"""
_FULLTEXT_CANDIDATES = f"""
    CALL db.index.fulltext.queryNodes('{FULLTEXT_INDEX}', $lucene) YIELD node AS n
    WHERE n.project IN $projects RETURN n
"""


def _search_cypher(candidates: str) -> str:
    """Score every candidate exactly as the SQLite backend does; count them; keep the best."""
    return f"""
CALL () {{ {candidates} }}
WITH n WHERE $kinds IS NULL OR n.kind IN $kinds
WITH n, reduce(s = 0.0, t IN $terms | s + CASE
        WHEN (' ' + n.name_words + ' ') CONTAINS (' ' + t + ' ') THEN {words.WEIGHT_NAME}
        WHEN (' ' + n.qn_words + ' ') CONTAINS (' ' + t + ' ') THEN {words.WEIGHT_QUALIFIED_NAME}
        ELSE {words.WEIGHT_OTHER} END) / $term_count AS s
WITH n, CASE
    WHEN n.name_lower = $q OR n.qn_lower = $q THEN {words.SCORE_EXACT}
    WHEN n.name_lower STARTS WITH $q
        OR ($phrase IS NOT NULL AND (' ' + n.name_words) CONTAINS (' ' + $phrase))
        THEN {words.SCORE_PREFIX}
    WHEN size($terms) > 0
        AND all(t IN $terms WHERE (' ' + n.words + ' ') CONTAINS (' ' + t + ' '))
        THEN {words.SCORE_FULLTEXT} + s / (1.0 + s)
    END AS score
WHERE score IS NOT NULL
WITH collect([n, score]) AS found
WITH found, size(found) AS total
UNWIND found AS hit
WITH total, hit[0] AS n, hit[1] AS score
ORDER BY score DESC, size(n.qualified_name), n.id, split(n.project, "@")[0]
LIMIT $limit
RETURN total, n.project AS project, n {_NODE_MAP} AS node, score
"""


SEARCH_NAMES = _search_cypher(_NAME_CANDIDATES)
SEARCH_NAMES_AND_TEXT = _search_cypher(f"{_NAME_CANDIDATES} UNION {_FULLTEXT_CANDIDATES}")
SEARCH_DOCS = _search_cypher(_FULLTEXT_CANDIDATES)

# Every node find_by_name finds, in its order, as `found` (node_bundle.py reads on from it).
FOUND_BY_NAME = """
CALL () {
    MATCH (n:CodeNode) WHERE n.project = $project AND n.name_lower = $name RETURN n
    UNION
    MATCH (n:CodeNode) WHERE n.project = $project AND n.qn_lower = $name RETURN n
    UNION
    MATCH (n:CodeNode) WHERE n.project = $project AND n.qn_rev STARTS WITH $suffix RETURN n
}
WITH n WHERE $kinds IS NULL OR n.kind IN $kinds
WITH n ORDER BY size(n.qualified_name), n.id
WITH collect(n) AS found
"""
# Only the page is projected, as lists (a map ships every key: see rows.node_list_cypher).
FIND_BY_NAME = (
    FOUND_BY_NAME + f"""RETURN size(found) AS total, [n IN found[0..$limit] | {rows.node_list_cypher("n")}] AS page
"""
)


def by_name_params(name: str, kinds: Sequence[str] | None, limit: int) -> dict[str, Any]:
    """FOUND_BY_NAME's parameters (and `$limit`, its page) for what an agent typed."""
    rows.check_page(limit)
    lowered = name.strip().lower()
    if not lowered:
        raise ValueError("name is empty")
    listed = list(kinds) if kinds is not None else None
    return {"name": lowered, "suffix": ("." + lowered)[::-1], "kinds": listed, "limit": limit}


NODES_OF_KIND = f"""
MATCH (n:CodeNode) WHERE n.project = $project AND n.id IS NOT NULL AND n.kind = $kind
WITH n ORDER BY n.id
WITH collect(n {_NODE_MAP}) AS found
RETURN size(found) AS total, found[$offset..$offset + $limit] AS page
"""
COUNT_KINDS = """
MATCH (n:CodeNode) WHERE n.project = $project AND n.id IS NOT NULL AND n.kind IS NOT NULL
RETURN n.kind AS key, count(*) AS c
"""
COUNT_RELATIONS = """
MATCH (n:CodeNode)-[r]->() WHERE n.project = $project AND n.id IS NOT NULL
RETURN type(r) AS key, count(*) AS c
"""


# Characters with a meaning in Lucene's query syntax. Query words are letters and digits only
# (words.py), so this is a second line of defence, not the first.
_LUCENE_SPECIAL = set('+-&|!(){}[]^"~*?:\\/')


def _lucene_escape(text: str) -> str:
    return "".join("\\" + c if c in _LUCENE_SPECIAL else c for c in text)


def lucene_query(
    parsed: SearchQuery, projects: Sequence[str], *, docs_only: bool
) -> str | None:
    """Candidates: consecutive name words with the last as a prefix, or every query word (only
    docstring words with `docs_only`). Ranking is done in Cypher, exactly as in SQLite; Lucene
    only narrows the candidates."""
    if not parsed.terms or parsed.phrase is None:
        return None
    if docs_only:
        query = " ".join(f"+doc_words:{_lucene_escape(t)}" for t in parsed.terms)
    else:
        *leading, last = parsed.phrase.split(" ")
        name_words = " ".join(
            [
                *(f"+name_words:{_lucene_escape(w)}" for w in leading),
                f"+name_words:{_lucene_escape(last)}*",
            ]
        )
        every_term = " ".join(f"+words:{_lucene_escape(t)}" for t in parsed.terms)
        query = f"({name_words}) ({every_term})"
    if len(projects) > _MAX_PROJECT_CLAUSES:
        return query
    scope = " ".join(f'project:"{_lucene_escape(p)}"' for p in projects)
    return f"+({scope}) +({query})"
