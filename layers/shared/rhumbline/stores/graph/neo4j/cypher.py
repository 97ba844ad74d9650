"""The Cypher text of the Neo4j graph store (schema, writes, reads) and its Lucene queries.

Kept apart from the store's Python, as sqlite/sql.py is for SQLite. Relationship types and labels
cannot be parameters: `{relation}` in UPSERT_EDGES is replaced by a name checked by
rows.check_relation, and a node's kind label (`:Function` beside `:CodeNode`) is written only for
a kind of the fixed set vocabulary.NODE_KINDS (`set_kind_label`, `relabel`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rhumbline.stores.graph import rows
from rhumbline.stores.graph.ranking import Probe, SearchPlan
from rhumbline.stores.graph.words import title_key
from rhumbline.vocabulary import KNOWLEDGE_KINDS, NODE_KINDS

# The Lucene index is a boolean query: past this many projects, filter in Cypher only.
_MAX_PROJECT_CLAUSES = 100
FULLTEXT_INDEX = "code_node_search"
FULLTEXT_PROPERTIES = ("project", "name_words", "name_terms", "context_terms", "doc_terms", "body_terms")
# Full-text indexes an older version created: Neo4j keeps every full-text index up to date on
# each write, so a schema setup that finds one drops it.
RETIRED_FULLTEXT_INDEXES = ("code_node_text",)

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


def set_kind_label(kind: str) -> str:
    """The SET item labelling node `n` by `kind` (`, n:`Function``), or nothing for a kind outside
    the fixed set (such a node keeps `:CodeNode` alone)."""
    return f", n:`{kind}`" if kind in NODE_KINDS else ""


def relabel(kind: str) -> str:
    """Clauses giving node `n`, which may have had another kind, the label of `kind` alone."""
    others = ":".join(f"`{other}`" for other in NODE_KINDS if other != kind)
    label = f" SET n:`{kind}`" if kind in NODE_KINDS else ""
    return f" REMOVE n:{others}{label}"


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

PROBE_COUNTS = f"""
UNWIND range(0, size($probes) - 1) AS i
CALL (i) {{
    CALL db.index.fulltext.queryNodes('{FULLTEXT_INDEX}', $probes[i], {{limit: $cap}}) YIELD node
    RETURN count(node) AS matched
}}
WITH i, matched ORDER BY i
RETURN collect(matched) AS counts
"""
# GraphStore._search_rows: the selecting probes' nodes with the bits and weights they earn, the
# name matches, in $projects and $kinds; the best $cut by name tier, weight, qualified-name length,
# id and project, with the bits of the common probes ($common: [field, padded needles, bit]) added,
# and their nodes.
SEARCH_ROWS = f"""
CALL () {{
    UNWIND $selecting AS probe
    CALL db.index.fulltext.queryNodes('{FULLTEXT_INDEX}', probe[0]) YIELD node AS n
    RETURN n, probe[1] AS bit, probe[2] AS weight
    UNION ALL
    MATCH (n:CodeNode) WHERE $names AND n.project IN $projects AND n.name_lower = $q RETURN n, 0 AS bit, 0 AS weight
    UNION ALL
    MATCH (n:CodeNode) WHERE $names AND n.project IN $projects AND n.qn_lower = $q RETURN n, 0 AS bit, 0 AS weight
    UNION ALL
    MATCH (n:CodeNode) WHERE $names AND n.project IN $projects AND n.name_lower STARTS WITH $q
    RETURN n, 0 AS bit, 0 AS weight
    UNION ALL
    CALL db.index.fulltext.queryNodes('{FULLTEXT_INDEX}', $name_words) YIELD node AS n
    WITH n WHERE $names AND (' ' + n.name_words) CONTAINS $phrase
    RETURN n, 0 AS bit, 0 AS weight
}}
WITH n, sum(bit) AS mask, sum(weight) AS weight
WHERE n.project IN $projects AND ($kinds IS NULL OR n.kind IN $kinds)
WITH n, mask, weight, CASE WHEN n.name_lower = $q OR n.qn_lower = $q OR n.name_words = $phrase_words THEN 1 ELSE 0 END
    + CASE WHEN n.name = $typed THEN 2 ELSE 0 END
    + CASE WHEN n.name_lower STARTS WITH $q OR ($phrase IS NOT NULL AND (' ' + n.name_words) CONTAINS $phrase)
        THEN 4 ELSE 0 END AS flags
WITH n, mask, weight, flags, CASE WHEN flags % 2 = 1 THEN 3 + (flags / 2) % 2 WHEN flags >= 4 THEN 2 ELSE 1 END AS tier
ORDER BY tier DESC, weight DESC, size(n.qualified_name), n.id, split(n.project, "@")[0]
WITH collect([n, mask, flags]) AS found
UNWIND found[0..$cut] AS kept
WITH size(found) AS total, kept[0] AS n, kept[1] AS mask, kept[2] AS flags
RETURN total, n.project AS project, {rows.node_list_cypher("n")} AS node, size(n.qualified_name) AS qn_length, flags,
    coalesce(n.search_class, 0) AS search_class, coalesce(n.doc_len, 0) AS doc_len,
    COUNT {{ (n)<-[:CALLS]-() }} AS callers,
    mask + reduce(extra = 0, c IN $common |
        extra + CASE WHEN any(needle IN c[1] WHERE (' ' + coalesce(n[c[0]], '') + ' ') CONTAINS needle) THEN c[2] ELSE 0 END
    ) AS mask
"""


# Every node find_by_name finds, in its order, as `found` (node_bundle.py reads on from it). A
# document or section is also found by its title typed any way, as on SQLite (sqlite/sql.py _FIND_MATCHES).
FOUND_BY_NAME = f"""
CALL () {{
    MATCH (n:CodeNode) WHERE n.project = $project AND n.name_lower = $name RETURN n
    UNION
    MATCH (n:CodeNode) WHERE n.project = $project AND n.qn_lower = $name RETURN n
    UNION
    MATCH (n:CodeNode) WHERE n.project = $project AND n.qn_rev STARTS WITH $suffix RETURN n
    UNION
    CALL db.index.fulltext.queryNodes('{FULLTEXT_INDEX}', $title_terms) YIELD node AS n
    WITH n WHERE n.project = $project AND replace(n.name_words, ' ', '') = $title_letters
        AND n.kind IN $knowledge RETURN n
}}
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
    letters, terms = title_key(name)
    # Every term required (the letters then keep the whole title); `project:""` matches nothing.
    required = " ".join(f"+name_terms:{_quoted(t)}" for t in terms) or '+project:""'
    return {"name": lowered, "suffix": ("." + lowered)[::-1], "kinds": listed, "limit": limit,
            "title_letters": letters, "title_terms": required, "knowledge": list(KNOWLEDGE_KINDS)}  # fmt: skip


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


# Characters with a meaning in Lucene's query syntax. Search terms are letters and digits only
# (words.py); project keys are escaped inside quotes.
_LUCENE_SPECIAL = set('+-&|!(){}[]^"~*?:\\/')


def _lucene_escape(text: str) -> str:
    return "".join("\\" + c if c in _LUCENE_SPECIAL else c for c in text)


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def lucene_scope(projects: Sequence[str]) -> str:
    """A Lucene clause keeping a query to some projects (their physical keys); none past
    _MAX_PROJECT_CLAUSES (the statement filters them too)."""
    if len(projects) > _MAX_PROJECT_CLAUSES:
        return ""
    return "+(" + " ".join(f"project:{_quoted(p)}" for p in projects) + ") "


def lucene_probe(probe: Probe, scope: str) -> str:
    """A probe as a Lucene query: its field holds one of its needles (a term, or a phrase)."""
    return scope + "+(" + " ".join(f"{probe.field}:{_quoted(needle)}" for needle in probe.needles) + ")"


def lucene_name_words(plan: SearchPlan, scope: str) -> str:
    """Nodes whose name has every word of the query's phrase, the last as a prefix: a superset of
    the phrase matches, which the statement keeps."""
    if plan.phrase is None:
        return "+project:\"\""
    *leading, last = plan.phrase.split(" ")
    words = [f"+name_words:{_lucene_escape(w)}" for w in leading] + [f"+name_words:{_lucene_escape(last)}*"]
    return scope + " ".join(words)
