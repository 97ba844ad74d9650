"""Whether any annotation could be in a read tool's answer: one indexed read on the pooled DBAPI
connection, asked by every code-context tool and get_node on every call.

Most projects have no annotation, so the usual answer is "none" and the full read (SQLAlchemy Core,
rhumbline.annotations) is skipped. Through a SQLAlchemy Connection that one-row probe would cost
many times the statement itself (connection object, execution context, events, result). The
statements are still SQLAlchemy Core, compiled
once per dialect, so the SQL is the same on SQLite and PostgreSQL (pg8000); the pool still checks
the connection out (pre-ping on PostgreSQL) and rolls it back on return. Bounded as every
relational call is: PostgreSQL's session `statement_timeout`, SQLite's busy timeout (a WAL reader
waits for no writer).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Engine, bindparam, select

from rhumbline.stores.relational.schema.exploration import Annotation
from rhumbline.stores.relational.schema.core import Project

_OF_PROJECT = select(Annotation.id).join(Project, Project.id == Annotation.project_id).where(
    Project.slug == bindparam("project")
)
# A seek on the (project_id, node_id) index either way.
_STATEMENTS = {
    "project": _OF_PROJECT.limit(1),
    "node": _OF_PROJECT.where(Annotation.node_id == bindparam("node_id")).limit(1),
}
_compiled: dict[tuple[str, str], tuple[str, tuple[str, ...] | None, dict[str, Any]]] = {}


def _statement(engine: Engine, which: str) -> tuple[str, tuple[str, ...] | None, dict[str, Any]]:
    """The statement's SQL for this engine's dialect, its positional parameter names (None for a
    named paramstyle) and their compiled defaults (the LIMIT)."""
    key = (engine.dialect.name, which)
    found = _compiled.get(key)
    if found is None:
        compiled = _STATEMENTS[which].compile(dialect=engine.dialect)
        names = tuple(compiled.positiontup or ()) if compiled.positional else None
        found = _compiled[key] = (str(compiled), names, dict(compiled.params))
    return found


def any_annotation(engine: Engine, project: str, node_ids: Sequence[str]) -> bool:
    """True when `project` may hold an annotation of one of `node_ids`: for one node, whether it
    has any; for several, whether the project has any at all (an expanding IN per call is what
    this probe spares)."""
    if not node_ids:
        return False
    which = "node" if len(set(node_ids)) == 1 else "project"
    sql, names, defaults = _statement(engine, which)
    values = {**defaults, "project": project, "node_id": node_ids[0]}
    connection = engine.raw_connection()
    try:
        cursor = connection.cursor()
        try:
            cursor.execute(sql, tuple(values[name] for name in names) if names is not None else values)
            return cursor.fetchone() is not None
        finally:
            cursor.close()
    finally:
        connection.close()  # back to the pool, rolled back
