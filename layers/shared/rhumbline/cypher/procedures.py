"""The schema procedures the subset answers, on both backends, from the caller's projects only.

Neo4j's own db.labels(), db.relationshipTypes() and db.propertyKeys() list what the whole
database has ever held (every project's keys, the store's bookkeeping labels); these answer
what the caller's projects hold, the same on SQLite (`SQL`, one column `value`) and on Neo4j
(`CYPHER`, one column named as the procedure's), scoped to `$projects`.
"""

from __future__ import annotations

from rhumbline.cypher.schema import EDGE_PROPERTY_TYPES as EDGE_COLUMNS
from rhumbline.cypher.schema import KIND_LABELS, LABEL
from rhumbline.cypher.schema import NODE_PROPERTY_TYPES as NODE_COLUMNS

_SCOPE = "(SELECT value FROM json_each(:scope))"
# The kinds that are labels, as an SQL list (a fixed set of plain words, never the query's).
KINDS_SQL = "(" + ", ".join(f"'{kind}'" for kind in sorted(KIND_LABELS)) + ")"

SQL = {
    "db.labels": (
        f"SELECT '{LABEL}' AS value WHERE EXISTS (SELECT 1 FROM nodes WHERE project IN {_SCOPE})"
        f" UNION SELECT DISTINCT kind FROM nodes WHERE project IN {_SCOPE} AND kind IN {KINDS_SQL}"
    ),
    "db.relationshipTypes": (
        "SELECT DISTINCT e.relation AS value FROM nodes AS n JOIN edges AS e ON e.source = n.rid"
        f" WHERE n.project IN {_SCOPE}"
    ),
    "db.propertyKeys": " UNION ".join(
        [
            *(
                f"SELECT '{column}' AS value WHERE EXISTS (SELECT 1 FROM nodes"
                f" WHERE project IN {_SCOPE} AND {column} IS NOT NULL)"
                for column in NODE_COLUMNS
            ),
            *(
                f"SELECT '{column}' WHERE EXISTS (SELECT 1 FROM nodes AS n JOIN edges AS e ON e.source = n.rid"
                f" WHERE n.project IN {_SCOPE} AND e.{column} IS NOT NULL)"
                for column in EDGE_COLUMNS
            ),
            "SELECT DISTINCT j.key FROM nodes AS n JOIN edges AS e ON e.source = n.rid, json_each(e.properties) AS j"
            f" WHERE n.project IN {_SCOPE} AND e.properties IS NOT NULL",
        ]
    ),
}

_NODES = "MATCH (n:CodeNode) WHERE n.project IN $projects"
_RELATIONSHIPS = "MATCH (n:CodeNode)-[r]->(m:CodeNode) WHERE n.project IN $projects AND m.project IN $projects"
CYPHER = {
    "db.labels": f"{_NODES} UNWIND labels(n) AS label RETURN DISTINCT label",
    "db.relationshipTypes": f"{_RELATIONSHIPS} RETURN DISTINCT type(r) AS relationshipType",
    "db.propertyKeys": (
        f"{_NODES} UNWIND keys(n) AS propertyKey RETURN DISTINCT propertyKey"
        f" UNION {_RELATIONSHIPS} UNWIND keys(r) AS propertyKey RETURN DISTINCT propertyKey"
    ),
}
