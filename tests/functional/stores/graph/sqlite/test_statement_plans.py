"""SQLite statements whose join order matters keep the plan that seeks each JSON key by index.

A plan is the one deterministic witness here: timing a wrong order needs a project of thousands
of nodes (an incremental ingest of a 10k-node repository ran past its 10 s budget on one of them).
"""

from __future__ import annotations

from pathlib import Path

from rhumbline.stores.graph.sqlite import sql
from rhumbline.stores.graph.sqlite.store import SqliteGraphStore


def _plan(store: SqliteGraphStore, statement: str, parameters: dict) -> list[str]:
    with store._bounded(5) as conn:
        return [row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {statement}", parameters)]


def test_removing_edges_seeks_both_ends_of_each_key(tmp_path: Path) -> None:
    store = SqliteGraphStore(tmp_path / "graph.sqlite3")
    store.ensure_schema()
    delete = next(statement for statement in sql.REMOVE_EDGES if statement.startswith("DELETE FROM edges"))
    plan = _plan(store, delete, {"project": "acme/shop", "keys": "[]"})
    ends = [step for step in plan if step.startswith(("SEARCH s ", "SEARCH t "))]
    assert len(ends) >= 2, plan
    assert all("(project=? AND id=?)" in step for step in ends), plan
    # The JSON list drives the lookups: it is scanned before the nodes are searched.
    assert plan.index(next(step for step in plan if step.startswith("SCAN k"))) < plan.index(ends[0]), plan
