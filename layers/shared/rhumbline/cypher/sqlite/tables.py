"""The SQLite graph store's tables as Cypher sees them (schema.py: the same properties Neo4j stores).

Nodes are `:CodeNode` and `:<kind>` when their kind is one of schema.KIND_LABELS, with `project` and every column of rows.NODE_PROPERTIES that is not null;
relationships have `project` (their source node's), the edge columns that are not null and the
keys of the `properties` JSON. SQL snippets take the table alias they read from.
"""

from __future__ import annotations

from rhumbline.cypher.procedures import KINDS_SQL
from rhumbline.cypher.schema import EDGE_PROPERTY_TYPES, KIND_LABELS, LABEL, NODE_PROPERTY_TYPES
from rhumbline.cypher.sqlite.types import FLOAT, INT, STR, T

__all__ = ["KIND_LABELS", "KINDS_SQL", "LABEL"]
_TYPES = {str: STR, int: INT, float: FLOAT}
# The projects the caller's token sees, bound as `:scope` (a JSON list): every `nodes` row a
# statement reads is filtered on `project IN SCOPE`.
SCOPE = "(SELECT value FROM json_each(:scope))"
NODE_COLUMNS: dict[str, T] = {name: _TYPES[typ] for name, typ in NODE_PROPERTY_TYPES.items()}
EDGE_COLUMNS: dict[str, T] = {name: _TYPES[typ] for name, typ in EDGE_PROPERTY_TYPES.items()}
NODE_MAP = T("map", fields=tuple(NODE_COLUMNS.items()))
EDGE_MAP = T("map")  # extra properties vary


def node_properties(alias: str) -> str:
    """A node's properties as a JSON object without its null ones (a merge patch drops them)."""
    pairs = ", ".join(f"'{name}', {alias}.{name}" for name in NODE_COLUMNS)
    return f"json_patch('{{}}', json_object({pairs}))"


def edge_properties(alias: str, project_sql: str) -> str:
    pairs = ", ".join(f"'{name}', {alias}.{name}" for name in EDGE_COLUMNS)
    return (
        f"json_patch(json_patch('{{}}', json_object('project', {project_sql}, {pairs})),"
        f" coalesce({alias}.properties, '{{}}'))"
    )


EDGE_SELECT = "source, relation, target, confidence, confidence_score, explanation, file, line, properties"
# An undirected relationship pattern reads each edge from both ends: `near` is the end the
# pattern comes from. A self-loop is read once, as Neo4j expands it once.
EDGES_BOTH_WAYS = (
    f"(SELECT source AS near, target AS far, {EDGE_SELECT} FROM edges"
    f" UNION ALL SELECT target AS near, source AS far, {EDGE_SELECT} FROM edges WHERE source <> target)"
)
