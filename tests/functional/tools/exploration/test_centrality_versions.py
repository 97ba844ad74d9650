"""Centrality is computed by the ingest, once per graph version, and never served for another."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import select
from tests.functional.tools.exploration.depot import ok
from tests.functional.tools.exploration.shop_repo import TWO, commit, ingest, new_repo

from rhumbline import centrality
from rhumbline.stores.relational.schema.exploration import GraphCentrality
from rhumbline.stores.relational.schema.core import Project
from rhumbline.stores.relational.session import session_scope


@pytest.fixture
def real_project(world):
    slug = f"acme/bc{uuid.uuid4().hex[:10]}"
    yield slug
    world.graph.delete_project(slug)


def _stored_keys(world, project: str) -> list[str]:
    with session_scope(world.engine) as session:
        query = select(GraphCentrality.graph_key).join(Project).where(Project.slug == project)
        return sorted(session.scalars(query))


def test_each_ingest_stores_its_versions_scores_and_drops_the_old_ones(world, call_as, real_project, tmp_path, monkeypatch):
    repo = new_repo(tmp_path / "repo")
    ingest(world.stores, repo, real_project)
    assert _stored_keys(world, real_project) == ["v1"]
    commit(repo, TWO, "two")
    ingest(world.stores, repo, real_project)
    assert _stored_keys(world, real_project) == ["v2"]

    # Served from the store: no computation on a call, even in a cold process.
    centrality.forget()
    monkeypatch.setattr(centrality, "betweenness", lambda *a, **k: pytest.fail("recomputed on a call"))
    result = ok(call_as("blast_radius", {"project": real_project, "node_id": "function:shop/pricing.py:price_of"},
                        projects=(real_project,)))  # fmt: skip
    assert result["centrality"]["graph"] == "v2" and result["centrality"]["exact"] is True
    # add() calls price_of: its only dependent (and the file that imports pricing is not one of
    # price_of's dependents: a function is not a container).
    assert [(i["id"], i["distance"]) for i in result["impacted"]] == [("method:shop/cart.py:Cart.add", 1)]
