"""SQLite: `file_rows`, context's reads of a file as plain tuples, in one snapshot.

A part of SqliteGraphStore, like lookups.py (whose statements and helpers it reuses), reading in
one `_reading()` snapshot (every statement bounded by the store's timeout). The answer is defined
as `bundles.file_rows_of(GraphStore.file_bundle(...))`; this reads the same rows without building
a Node, an EdgeView and a LinkedEdge per row (and, for links, without reading the far end's wide
columns: signature, docstring), and in one snapshot instead of one per read.
tests/functional/stores/graph/test_graph_store_bundles.py checks both agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rhumbline.stores.graph import rows
from rhumbline.stores.graph.model import MODULE, FileQuery, FileRows, RelationRows
from rhumbline.stores.graph.sqlite.connection import SqliteConnections
from rhumbline.stores.graph.sqlite.lookups import around_rows, around_statements, cut_by_relation, nodes_in_file_page
from rhumbline.stores.graph.sqlite.sql import GET_NODE, GET_STAMP

# AROUND rows ending with the far end's reference (bundles.LINK_FIELDS' last three) instead of all
# its NODE_FIELDS: a stub (no kind, no names) is named by its id.
LINK_STATEMENTS = around_statements("coalesce(o.qualified_name, o.name, o.id), o.file, o.start_line")
_PROPERTIES = 7  # an AROUND row's column that a LINK row leaves out


def _relation_rows(
    found: Sequence[Sequence[Any]], limit: int, totals: dict[str, int] | None
) -> dict[str, RelationRows]:
    return {
        relation: RelationRows(
            [(*row[:_PROPERTIES], *row[_PROPERTIES + 1 :]) for row in kept], total
        )
        for relation, (kept, total) in cut_by_relation(found, limit, totals).items()
    }


class SqliteFileRows(SqliteConnections):
    """GraphStore.file_rows in one snapshot."""

    def file_rows(self, project: str, file_id: str, query: FileQuery) -> FileRows | None:
        with self._reading() as conn:
            found = conn.execute(GET_NODE, (project, file_id)).fetchone()
            if found is None or found[1] != "File":
                return None
            file = rows.node_at(found)
            path = file.file or file.qualified_name
            module_rows, _ = nodes_in_file_page(conn, project, path, (MODULE,), query.module_limit, 0)
            modules = [rows.node_at(r) for r in module_rows]
            defined, total = nodes_in_file_page(
                conn, project, path, query.definition_kinds, query.limit, query.offset
            )
            own = [file.id, *(m.id for m in modules)]
            inside = own + [d[0] for d in defined]
            outside = own + [d[0] for d in defined if d[1] in query.section_kinds]
            rows.check_ids(inside, "in")
            links = (query.relations, query.link_limit, LINK_STATEMENTS)
            inward = around_rows(conn, project, inside, "in", *links)
            outward = around_rows(conn, project, outside, "out", *links)
            stamp = conn.execute(GET_STAMP, (project,)).fetchone()
        return FileRows(
            file=file,
            modules=modules,
            definitions=[tuple(d) for d in defined],
            definitions_total=total,
            inward=_relation_rows(inward[0], query.link_limit, inward[1]),
            outward=_relation_rows(outward[0], query.link_limit, outward[1]),
            version=stamp[0] if stamp else None,
        )
