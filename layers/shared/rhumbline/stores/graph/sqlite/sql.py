"""The SQL text of the SQLite graph store (schema and statements), kept apart from its Python.

Stub rows (dangling edge ends) have a NULL kind and NULL names: index lookups on names never
return them, and reads that list nodes filter `kind IS NOT NULL`.
"""

from __future__ import annotations

from functools import lru_cache

from rhumbline.stores.graph.rows import NODE_FIELDS, NODE_PROPERTIES
from rhumbline.vocabulary import KNOWLEDGE_KINDS

# 2: search text by field (words.py), stemmed, ranked by ranking.py. 3: a body field.
SCHEMA_VERSION = 3

# The lookup indexes of nodes, by name: a large clearing write drops and rebuilds them (one sort
# each instead of a B-tree insert per row), see SqliteGraphStore.apply.
NODE_INDEXES = {
    name: f"CREATE INDEX IF NOT EXISTS {name} ON nodes ({columns})"
    for name, columns in (
        ("nodes_by_name", "project, name_lower"),
        ("nodes_by_qn", "project, qn_lower"),
        ("nodes_by_qn_rev", "project, qn_rev"),
        ("nodes_by_file", "project, file"),
    )
}
# Incoming edges (the primary key covers outgoing ones); rebuilt after a large clearing write too.
EDGE_INDEXES = {"edges_in": "CREATE INDEX IF NOT EXISTS edges_in ON edges (target, relation, source)"}
BULK_INDEXES = {**NODE_INDEXES, **EDGE_INDEXES}
COUNT_ALL_NODES = "SELECT count(*) FROM nodes"
_NODE_INDEX_STATEMENTS = ";\n".join(NODE_INDEXES.values())
_EDGE_INDEX_STATEMENTS = ";\n".join(EDGE_INDEXES.values())

# The search text is indexed in one FTS5 table per field group (ranking.FIELDS): a probe of one
# field then walks that field's postings only (a column filter in a shared index walks every
# column's).
# External content: the words live once, in `nodes`. New rows are indexed by one INSERT ... SELECT
# per batch and table (INDEX_NEW_NODES); triggers keep updates and deletes in step, and re-index a
# node's words only when they changed: an incremental write upserts every node of a rebuilt file,
# most of which only moved (line numbers).
# `project` is indexed as one token (tokenchars: every character a project slug holds) so that a
# probe can be limited to some projects inside the index.
FTS_TABLES = {
    "name_fts": ("name_words", "name_terms"), "context_fts": ("context_terms",), "doc_fts": ("doc_terms",),
    "body_fts": ("body_terms",),
}  # fmt: skip
FTS_TABLE_OF = {column: table for table, columns in FTS_TABLES.items() for column in columns}


# Tables no phrase is looked up in keep no term positions (FTS5 `detail=column`): a smaller index,
# written faster.
_NO_PHRASES = frozenset({"body_fts"})


def _fts_schema(table: str, fields: tuple[str, ...]) -> str:
    columns = ("project", *fields)
    listed, old, new = (", ".join(f"{prefix}{c}" for c in columns) for prefix in ("", "old.", "new."))
    detail = ", detail=column" if table in _NO_PHRASES else ""
    return f"""
CREATE VIRTUAL TABLE IF NOT EXISTS {table} USING fts5(
    {listed}, content='nodes', content_rowid='rid',
    tokenize="unicode61 remove_diacritics 0 tokenchars '-_./@'", columnsize=0{detail}
);
CREATE TRIGGER IF NOT EXISTS {table}_delete AFTER DELETE ON nodes BEGIN
    INSERT INTO {table} ({table}, rowid, {listed}) VALUES ('delete', old.rid, {old});
END;
CREATE TRIGGER IF NOT EXISTS {table}_update AFTER UPDATE OF {listed} ON nodes
WHEN {" OR ".join(f"old.{c} IS NOT new.{c}" for c in columns)}
BEGIN
    INSERT INTO {table} ({table}, rowid, {listed}) VALUES ('delete', old.rid, {old});
    INSERT INTO {table} (rowid, {listed}) VALUES (new.rid, {new});
END;"""


INDEX_NEW_NODES = tuple(
    f"INSERT INTO {table} (rowid, project, {', '.join(fields)}) SELECT rid, project, {', '.join(fields)}"
    " FROM nodes WHERE rid > ?"
    for table, fields in FTS_TABLES.items()
)

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS nodes (
    -- An explicit INTEGER PRIMARY KEY: edges and the FTS index refer to it, VACUUM keeps it.
    rid INTEGER PRIMARY KEY,
    project TEXT NOT NULL,
    id TEXT NOT NULL,
    kind TEXT,  -- NULL: a stub
    name TEXT,
    name_lower TEXT,
    qualified_name TEXT,
    qn_lower TEXT,
    qn_rev TEXT,
    name_words TEXT,
    name_terms TEXT,
    context_terms TEXT,
    doc_terms TEXT,
    body_terms TEXT,
    doc_len INTEGER,
    search_class INTEGER,
    file TEXT,
    start_line INTEGER,
    end_line INTEGER,
    language TEXT,
    signature TEXT,
    docstring TEXT,
    content_hash TEXT,
    UNIQUE (project, id)
);
{_NODE_INDEX_STATEMENTS};

-- The primary key is the covering index for outgoing edges, edges_in for incoming ones.
CREATE TABLE IF NOT EXISTS edges (
    source INTEGER NOT NULL,
    relation TEXT NOT NULL,
    target INTEGER NOT NULL,
    confidence TEXT NOT NULL,
    confidence_score REAL NOT NULL,
    explanation TEXT NOT NULL,
    file TEXT,
    line INTEGER,
    properties TEXT,  -- Edge.properties as JSON, NULL for most edges (see ADD_EDGE_PROPERTIES)
    PRIMARY KEY (source, relation, target)
) WITHOUT ROWID;
{_EDGE_INDEX_STATEMENTS};

-- Which graph version each project's graph holds (GraphBatch.version / expect_version).
CREATE TABLE IF NOT EXISTS graph_meta (
    project TEXT PRIMARY KEY,
    version INTEGER NOT NULL
) WITHOUT ROWID;

{"".join(_fts_schema(table, fields) for table, fields in FTS_TABLES.items())}
PRAGMA user_version = {SCHEMA_VERSION};
"""

# Files created before edges had properties gain the column in place (ensure_schema).
EDGE_COLUMNS = "SELECT name FROM pragma_table_info('edges')"
ADD_EDGE_PROPERTIES = "ALTER TABLE edges ADD COLUMN properties TEXT"
# From version 2: the body field's column, before SCHEMA creates the table that indexes it; nodes
# written before it have no body words until their next write.
UPGRADABLE_VERSIONS = (2,)
ADD_BODY_TERMS = "ALTER TABLE nodes ADD COLUMN body_terms TEXT"
REBUILD_BODY_INDEX = "INSERT INTO body_fts (body_fts) VALUES ('rebuild')"

GET_STAMP = "SELECT version FROM graph_meta WHERE project = ?"
SET_STAMP = (
    "INSERT INTO graph_meta (project, version) VALUES (?, ?)"
    " ON CONFLICT (project) DO UPDATE SET version = excluded.version"
)
DELETE_STAMP = "DELETE FROM graph_meta WHERE project = ?"

# Per connection: the working sets of remove_files.
TEMP_TABLES = """
CREATE TEMP TABLE IF NOT EXISTS removed_nodes (rid INTEGER PRIMARY KEY);
CREATE TEMP TABLE IF NOT EXISTS stub_candidates (rid INTEGER PRIMARY KEY);
"""

NODE_COLUMNS = ("project", *NODE_PROPERTIES)
UPSERT_NODE = (
    f"INSERT INTO nodes ({', '.join(NODE_COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in NODE_COLUMNS)}) "
    "ON CONFLICT (project, id) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in NODE_COLUMNS[2:])
)
# A clearing write chooses the rids itself (SqliteGraphStore._insert_cleared).
INSERT_NODE_AT = (
    f"INSERT INTO nodes (rid, {', '.join(NODE_COLUMNS)}) "
    f"VALUES (?, {', '.join('?' for _ in NODE_COLUMNS)})"
)
INSERT_STUB_AT = "INSERT INTO nodes (rid, project, id) VALUES (?, ?, ?)"
ADD_STUB = "INSERT INTO nodes (project, id) VALUES (?, ?) ON CONFLICT (project, id) DO NOTHING"
RIDS_OF = "SELECT id, rid FROM nodes WHERE project = ? AND id IN (SELECT value FROM json_each(?))"
UPSERT_EDGE = """
INSERT INTO edges (
    source, relation, target, confidence, confidence_score, explanation, file, line, properties
)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (source, relation, target) DO UPDATE SET
    confidence = excluded.confidence, confidence_score = excluded.confidence_score,
    explanation = excluded.explanation, file = excluded.file, line = excluded.line,
    properties = excluded.properties
"""

REMOVE_FILES = (
    "DELETE FROM temp.removed_nodes",
    "INSERT INTO temp.removed_nodes SELECT rid FROM nodes"
    " WHERE project = :project AND file IN (SELECT value FROM json_each(:files))",
    "DELETE FROM temp.stub_candidates",
    # The far ends of the edges about to go: stubs among them may be left with no edge.
    "INSERT OR IGNORE INTO temp.stub_candidates"
    " SELECT target FROM edges WHERE source IN (SELECT rid FROM temp.removed_nodes)",
    "INSERT OR IGNORE INTO temp.stub_candidates"
    " SELECT source FROM edges WHERE target IN (SELECT rid FROM temp.removed_nodes)",
    "DELETE FROM edges WHERE source IN (SELECT rid FROM temp.removed_nodes)",
    "DELETE FROM edges WHERE target IN (SELECT rid FROM temp.removed_nodes)",
    "DELETE FROM nodes WHERE rid IN (SELECT rid FROM temp.removed_nodes)",
    "DELETE FROM nodes WHERE rid IN (SELECT rid FROM temp.stub_candidates) AND kind IS NULL"
    " AND NOT EXISTS (SELECT 1 FROM edges WHERE source = nodes.rid)"
    " AND NOT EXISTS (SELECT 1 FROM edges WHERE target = nodes.rid)",
)
# remove_nodes: the same steps as REMOVE_FILES, nodes chosen by id (:ids, a JSON array).
REMOVE_NODES = (
    REMOVE_FILES[0],
    "INSERT INTO temp.removed_nodes SELECT rid FROM nodes"
    " WHERE project = :project AND id IN (SELECT value FROM json_each(:ids))",
    *REMOVE_FILES[2:],
)
# remove_edges: :keys is a JSON array of [source id, relation, target id]. CROSS JOIN fixes the
# join order (as in traversal.py): left to itself the planner may put the JSON list last and pair
# every node of the project with every other; this way each key is two (project, id) seeks.
REMOVE_EDGES = (
    "DELETE FROM temp.stub_candidates",
    "INSERT OR IGNORE INTO temp.stub_candidates SELECT rid FROM nodes WHERE project = :project"
    " AND id IN (SELECT json_extract(value, '$[0]') FROM json_each(:keys)"
    " UNION SELECT json_extract(value, '$[2]') FROM json_each(:keys))",
    "DELETE FROM edges WHERE (source, relation, target) IN ("
    " SELECT s.rid, json_extract(k.value, '$[1]'), t.rid FROM json_each(:keys) AS k"
    " CROSS JOIN nodes AS s ON s.project = :project AND s.id = json_extract(k.value, '$[0]')"
    " CROSS JOIN nodes AS t ON t.project = :project AND t.id = json_extract(k.value, '$[2]'))",
    REMOVE_FILES[-1],
)
# Edges never cross projects, so a project's edges are those leaving its rows.
DELETE_PROJECT_EDGES = "DELETE FROM edges WHERE source IN (SELECT rid FROM nodes WHERE project = ?)"
DELETE_PROJECT_NODES = "DELETE FROM nodes WHERE project = ?"
COUNT_ROWS = "SELECT count(*) FROM nodes WHERE project = ?"

_COLUMNS = ", ".join(f"n.{f}" for f in NODE_FIELDS)
GET_NODE = (
    f"SELECT {_COLUMNS} FROM nodes AS n WHERE n.project = ? AND n.id = ? AND n.kind IS NOT NULL"
)

# Read by position (lookups.edge_view_at): keep this column order.
_EDGES = """
SELECT e.relation, e.confidence, e.confidence_score, e.explanation, e.file, e.line,
       e.properties, o.id AS other_id, coalesce(o.kind, 'Unknown') AS other_kind,
       coalesce(o.name, o.id) AS other_name
FROM nodes AS me JOIN edges AS e ON e.{this} = me.rid JOIN nodes AS o ON o.rid = e.{other}
WHERE me.project = ? AND me.id = ?
ORDER BY e.relation, o.id
LIMIT ? OFFSET ?
"""
_EDGES_TOTAL = (
    "SELECT count(*) FROM nodes AS me JOIN edges AS e ON e.{this} = me.rid"
    " WHERE me.project = ? AND me.id = ?"
)
EDGES_PAGE = {
    "out": _EDGES.format(this="source", other="target"),
    "in": _EDGES.format(this="target", other="source"),
}
EDGES_TOTAL = {"out": _EDGES_TOTAL.format(this="source"), "in": _EDGES_TOTAL.format(this="target")}

_IN_PROJECTS = "project IN (SELECT value FROM json_each(:projects))"
_KIND_FILTER = "(:kinds IS NULL OR n.kind IN (SELECT value FROM json_each(:kinds)))"

NAME_CANDIDATES = f"""
    SELECT rid FROM nodes WHERE {_IN_PROJECTS} AND name_lower = :q
    UNION SELECT rid FROM nodes WHERE {_IN_PROJECTS} AND qn_lower = :q
    UNION SELECT rid FROM nodes WHERE {_IN_PROJECTS} AND name_lower >= :q AND name_lower < :q_end
"""
# Every project of the file: the distinct values of the (project, id) key's first column.
PROJECTS = "SELECT DISTINCT project FROM nodes"
PHRASE_CANDIDATES = "SELECT rowid FROM name_fts WHERE name_fts MATCH :name_phrase"


@lru_cache(maxsize=256)
def probe_counts(tables: tuple[str, ...]) -> str:
    """How many nodes match each probe (:m0, :m1, ...: FTS5 queries of `tables` in order), up to :cap."""
    return "SELECT " + ", ".join(
        f"(SELECT count(*) FROM (SELECT 1 FROM {t} WHERE {t} MATCH :m{i} LIMIT :cap))" for i, t in enumerate(tables)
    )


# Name tier of a candidate (ranking.tier_of, as an integer for ordering) and its flags.
_FLAGS = """(n.name_lower = :q OR n.qn_lower = :q OR n.name_words = :words) + 2 * (n.name = :typed)
        + 4 * (substr(n.name_lower, 1, length(:q)) = :q OR instr(' ' || n.name_words, :phrase) > 0)"""
_TIER = "CASE WHEN flags & 1 THEN 3 + (flags & 2) / 2 WHEN flags & 4 THEN 2 ELSE 1 END"


@lru_cache(maxsize=256)
def search_rows(
    selecting: tuple[str, ...], names: bool, phrase: bool, checks: tuple[tuple[str, int, int], ...]
) -> str:
    """ranking.SearchRow values of the best :cut candidates (their nodes last), and their total
    (GraphStore._search_rows).
    `selecting`: the FTS5 table of each selecting probe, :s<i> (an FTS5 query), its bit :b<i> and
    weight :w<i>; `checks`: (field, needle count, bit) of the common probes, tested on the kept
    rows (:c<i>_<j>, padded needles)."""
    hits = [f"SELECT rowid, :b{i}, :w{i} FROM {t} WHERE {t} MATCH :s{i}" for i, t in enumerate(selecting)]
    if names:
        by_name = NAME_CANDIDATES + (f" UNION {PHRASE_CANDIDATES}" if phrase else "")
        hits.append(f"SELECT rid, 0, 0 FROM ({by_name})")
    tests = [
        "(CASE WHEN " + " OR ".join(
            f"instr(' ' || coalesce(n.{field}, '') || ' ', :c{i}_{j}) > 0" for j in range(count)
        ) + f" THEN {1 << bit} ELSE 0 END)"
        for i, (field, count, bit) in enumerate(checks)
    ]  # fmt: skip
    return f"""
WITH hits (rid, bit, weight) AS ({" UNION ALL ".join(hits) or "SELECT 0, 0, 0 WHERE 0"}),
masks AS (SELECT rid, sum(bit) AS mask, sum(weight) AS weight FROM hits GROUP BY rid),
ranked AS MATERIALIZED (
    SELECT n.rid, n.project, n.id, length(n.qualified_name) AS qn_length, {_FLAGS} AS flags,
        n.search_class, n.doc_len, m.mask, m.weight
    FROM masks AS m CROSS JOIN nodes AS n ON n.rid = m.rid
    WHERE n.{_IN_PROJECTS} AND {_KIND_FILTER}
),
kept AS (
    SELECT * FROM ranked ORDER BY {_TIER} DESC, weight DESC, qn_length, id, project LIMIT :cut
)
SELECT k.project, k.qn_length, k.flags, k.search_class, coalesce(k.doc_len, 0),
    k.mask + {" + ".join(tests) or "0"},
    (SELECT count(*) FROM edges AS e WHERE e.target = k.rid AND e.relation = 'CALLS'),
    (SELECT count(*) FROM ranked), {_COLUMNS}
FROM kept AS k CROSS JOIN nodes AS n ON n.rid = k.rid
"""


# find_by_name: a document or section is also found by its title whatever the case, punctuation or
# markup typed (`handling application errors.` finds "Handling Application Errors"): the title's
# terms narrow through the FTS index, its letters in order keep only the whole title (words.title_key).
# CROSS JOIN keeps the FTS first: the planner would otherwise scan the project's nodes.
_FIND_MATCHES = f"""
WITH matches (rid) AS (
    SELECT rid FROM nodes WHERE project = :project AND name_lower = :name
    UNION SELECT rid FROM nodes WHERE project = :project AND qn_lower = :name
    UNION SELECT rid FROM nodes
        WHERE project = :project AND qn_rev >= :suffix AND qn_rev < :suffix_end
    UNION SELECT n.rid FROM name_fts CROSS JOIN nodes AS n ON n.rid = name_fts.rowid
        WHERE name_fts MATCH :title_terms AND n.project = :project
        AND replace(n.name_words, ' ', '') = :title_letters AND n.kind IN ({", ".join(f"'{k}'" for k in KNOWLEDGE_KINDS)})
)
SELECT {{columns}} FROM matches JOIN nodes AS n ON n.rid = matches.rid
WHERE {_KIND_FILTER}
"""
FIND_PAGE = (
    _FIND_MATCHES.format(columns=_COLUMNS)
    + " ORDER BY length(n.qualified_name), n.id LIMIT :limit"
)
FIND_TOTAL = _FIND_MATCHES.format(columns="count(*)")

# nodes_of_kind: a scan of the project's (project, id) index filtered by kind; callers list small
# kinds (contributors), so no extra index slows every bulk load.
KIND_PAGE = (
    f"SELECT {_COLUMNS} FROM nodes AS n WHERE n.project = ? AND n.kind = ? ORDER BY n.id LIMIT ? OFFSET ?"
)
KIND_TOTAL = "SELECT count(*) FROM nodes WHERE project = ? AND kind = ?"

COUNT_KINDS = (
    "SELECT kind, count(*) FROM nodes WHERE project = ? AND kind IS NOT NULL"
    " GROUP BY kind ORDER BY kind"
)
COUNT_RELATIONS = (
    "SELECT e.relation, count(*) FROM nodes AS n JOIN edges AS e ON e.source = n.rid"
    " WHERE n.project = ? GROUP BY e.relation ORDER BY e.relation"
)
