"""Betweenness after an incremental ingest: copied when no dependency edge came or went,
recomputed otherwise (both graph backends)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine, select
from tests.functional.ingest.test_incremental import B_V1, B_V2, app  # noqa: F401 - fixture

from rhumbline import centrality
from rhumbline.ingest import pipeline
from rhumbline.stores.graph.protocol import GraphStore
from rhumbline.stores.relational.schema.exploration import GraphCentrality
from rhumbline.stores.relational.schema.core import Project
from rhumbline.stores.relational.session import session_scope


def _stored(engine: Engine, project: str) -> dict[str, dict[str, float]]:
    with session_scope(engine) as session:
        rows = session.scalars(select(GraphCentrality).join(Project).where(Project.slug == project))
        return {row.graph_key: dict(row.scores) for row in rows}


def test_scores_are_copied_when_only_bodies_changed_and_recomputed_when_edges_did(
    app: Path, store: GraphStore, engine: Engine, unique_project: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    computed: list[str] = []
    handed: list[bool] = []
    real = centrality._compute

    def counting(graph, project, key, seconds, pairs=None):
        computed.append(key)
        handed.append(pairs is not None)
        return real(graph, project, key, seconds, pairs)

    monkeypatch.setattr(centrality, "_compute", counting)
    pipeline.ingest_local(app, unique_project, store=store, engine=engine)
    first = _stored(engine, unique_project)["v1"]
    # A body-only edit: lines and hashes move, no dependency edge comes or goes.
    (app / "pkg" / "b.py").write_text(B_V1.replace("return 1\n\n\ndef mover", "return 1 + 0\n\n\ndef mover"))
    body_only = pipeline.ingest_local(app, unique_project, store=store, engine=engine)
    assert body_only.changes.mode == "incremental" and body_only.changes.nodes_changed > 0
    assert _stored(engine, unique_project) == {"v2": first}
    unchanged = pipeline.ingest_local(app, unique_project, store=store, engine=engine)
    assert unchanged.changes.mode == "unchanged"
    assert _stored(engine, unique_project) == {"v3": first}
    assert computed == ["v1"]

    # doomed() goes and future() comes: CALLS edges change, so the scores are computed again.
    (app / "pkg" / "b.py").write_text(B_V2)
    pipeline.ingest_local(app, unique_project, store=store, engine=engine)
    assert computed == ["v1", "v4"]
    # Both were whole builds: their pairs came from memory, and are exactly the store's.
    assert handed == [True, True]
    centrality.forget()
    fresh = centrality._compute(store, unique_project, "check", 10.0).values
    assert _stored(engine, unique_project)["v4"] == fresh and fresh
