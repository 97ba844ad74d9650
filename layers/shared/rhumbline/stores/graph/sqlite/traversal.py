"""The SQLite side of traversals (see traversal.py): set-based reads inside one snapshot.

Each breadth-first level is one statement over the whole frontier, passed as a JSON array of
integer row ids: the reader remembers the row id of every node it has returned, so a level never
looks ids up again: a level costs one statement however wide its frontier.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from rhumbline.stores.graph import rows
from rhumbline.stores.graph.model import Leg, Node
from rhumbline.stores.graph.rows import NODE_FIELDS
from rhumbline.stores.graph.traversal import EdgeFacts, EdgeKey, Expansion

_COLUMNS = ", ".join(f"n.{f}" for f in NODE_FIELDS)
_RELATION_FILTER = "(:relations IS NULL OR e.relation IN (SELECT value FROM json_each(:relations)))"

NODES = f"""
SELECT n.rid AS rid, {_COLUMNS} FROM json_each(:ids) AS f
CROSS JOIN nodes AS n ON n.project = :project AND n.id = f.value
WHERE n.kind IS NOT NULL
"""
# CROSS JOIN fixes the join order (SQLite never reorders it): the JSON list drives every lookup.
# Left to itself the planner may scan the project's nodes and probe the list instead.
# {this}: the frontier's end of the edge; {other}: the far end. Stubs (kind NULL) are skipped.
_EXPAND = f"""
SELECT p.id AS parent, e.relation AS relation, o.id AS other, o.rid AS other_rid,
       '{{seen_as}}' AS seen_as, e.confidence_score AS score
FROM json_each(:frontier) AS f
CROSS JOIN nodes AS p ON p.rid = f.value
CROSS JOIN edges AS e ON e.{{this}} = p.rid
CROSS JOIN nodes AS o ON o.rid = e.{{other}}
WHERE o.kind IS NOT NULL AND {_RELATION_FILTER}
"""
EXPAND = {
    "out": _EXPAND.format(this="source", other="target", seen_as="out"),
    "in": _EXPAND.format(this="target", other="source", seen_as="in"),
}
EXPAND["both"] = f"{EXPAND['out']} UNION ALL {EXPAND['in']}"

# :keys is a JSON array of [source rid, relation, target rid]: a primary-key lookup per key.
EDGES = """
SELECT s.id AS source, e.relation AS relation, t.id AS target, e.confidence, e.confidence_score,
       e.explanation, e.file, e.line, e.properties
FROM json_each(:keys) AS k
CROSS JOIN edges AS e ON e.source = json_extract(k.value, '$[0]')
    AND e.relation = json_extract(k.value, '$[1]') AND e.target = json_extract(k.value, '$[2]')
JOIN nodes AS s ON s.rid = e.source
JOIN nodes AS t ON t.rid = e.target
"""
# Edges inside a node set: out of each member (primary key), kept when the target is a member.
AMONG = f"""
WITH members (rid) AS (
    SELECT n.rid FROM json_each(:ids) AS f
    CROSS JOIN nodes AS n ON n.project = :project AND n.id = f.value WHERE n.kind IS NOT NULL
)
SELECT s.id AS source, e.relation AS relation, t.id AS target
FROM members AS m
CROSS JOIN edges AS e ON e.source = m.rid
CROSS JOIN nodes AS s ON s.rid = e.source
CROSS JOIN nodes AS t ON t.rid = e.target
WHERE e.target IN (SELECT rid FROM members) AND {_RELATION_FILTER}
"""
_PAIRS = """
FROM nodes AS s JOIN edges AS e ON e.source = s.rid JOIN nodes AS t ON t.rid = e.target
WHERE s.project = :project AND s.kind IS NOT NULL AND t.kind IS NOT NULL
  AND e.relation IN (SELECT value FROM json_each(:relations))
"""
PAIRS = f"SELECT s.id, t.id {_PAIRS} LIMIT :limit"
PAIRS_TOTAL = f"SELECT count(*) {_PAIRS}"


class SqliteReader:
    def __init__(self, conn: sqlite3.Connection, project: str) -> None:
        self._conn = conn
        self._project = project
        self._rid: dict[str, int] = {}

    def nodes(self, ids: Sequence[str]) -> dict[str, Node]:
        if not ids:
            return {}
        found = {}
        params = {"project": self._project, "ids": json.dumps(list(ids))}
        for row in self._conn.execute(NODES, params):  # rid, then NODE_FIELDS (id first)
            self._rid[row[1]] = row[0]
            found[row[1]] = rows.node_at(row, 1)
        return found

    def _rids(self, ids: Sequence[str]) -> list[int]:
        missing = [i for i in ids if i not in self._rid]
        if missing:
            self.nodes(missing)
        return [self._rid[i] for i in ids if i in self._rid]

    def expand(self, frontier: Sequence[str], legs: Sequence[Leg]) -> list[Expansion]:
        found: list[Expansion] = []
        rids = json.dumps(self._rids(frontier))
        for direction, relations in legs:
            if relations is not None and not relations:
                continue
            params = {
                "frontier": rids,
                "relations": json.dumps(list(relations)) if relations is not None else None,
            }
            for parent, relation, other, other_rid, seen_as, score in self._conn.execute(EXPAND[direction], params):
                self._rid[other] = other_rid
                found.append((parent, relation, other, seen_as, score))
        return found

    def edges(self, keys: Sequence[EdgeKey]) -> dict[EdgeKey, EdgeFacts]:
        if not keys:
            return {}
        rid_keys = [[self._rid[s], r, self._rid[t]] for s, r, t in keys]
        found = {}
        for row in self._conn.execute(EDGES, {"keys": json.dumps(rid_keys)}):
            stored = row["properties"]
            found[(row["source"], row["relation"], row["target"])] = EdgeFacts(
                confidence=row["confidence"],
                confidence_score=row["confidence_score"],
                explanation=row["explanation"],
                file=row["file"],
                line=row["line"],
                properties=json.loads(stored) if stored else None,
            )
        return found

    def details(self, ids: Sequence[str], keys: Sequence[EdgeKey]) -> tuple[dict[str, Node], dict[EdgeKey, EdgeFacts]]:
        # Statements on an open connection cost no round trip: two reads are as cheap as one.
        return self.nodes(ids), self.edges(keys)

    def among(self, ids: Sequence[str], relations: Sequence[str] | None) -> list[EdgeKey]:
        params = {
            "project": self._project,
            "ids": json.dumps(list(ids)),
            "relations": json.dumps(list(relations)) if relations is not None else None,
        }
        found = []
        for source, relation, target in self._conn.execute(AMONG, params):
            found.append((source, relation, target))
        # The details (edges()) are looked up by row id.
        if found:
            self.nodes(sorted({end for key in found for end in (key[0], key[2])} - self._rid.keys()))
        return found

    def pairs(self, relations: Sequence[str], limit: int) -> tuple[list[tuple[str, str]], int]:
        params = {"project": self._project, "relations": json.dumps(list(relations)), "limit": limit}
        found = [(s, t) for s, t in self._conn.execute(PAIRS, params)]
        if len(found) < limit:
            return found, len(found)
        (total,) = self._conn.execute(PAIRS_TOTAL, params).fetchone()
        return found, total
