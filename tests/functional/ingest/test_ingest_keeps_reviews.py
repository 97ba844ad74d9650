"""A rebuild (`clear`) must not lose the pull-request graph the review webhooks built."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from sqlalchemy import Engine

from rhumbline.ingest import pipeline
from rhumbline.reviews.graph_projection import project_pull_requests
from rhumbline.reviews.recording import record_pull_request, snapshot
from rhumbline.stores.graph.sqlite.store import SqliteGraphStore
from rhumbline.stores.relational import projects, pull_requests
from rhumbline.stores.relational.pull_requests import PullRequestFacts
from rhumbline.stores.relational.session import session_scope

PROJECT = "acme/shop"


def test_clearing_ingest_projects_recorded_pull_requests_again(
    pyproj: Path, graph_store: SqliteGraphStore, engine: Engine
):
    pipeline.ingest_local(pyproj, PROJECT, store=graph_store, engine=engine)
    at = datetime(2026, 11, 1, 12, tzinfo=timezone.utc)
    with session_scope(engine) as session:
        project = projects.get_or_create(session, PROJECT)
        _, pr = record_pull_request(
            session,
            project.id,
            PullRequestFacts(7, "Cache prices", "octocat", "open", "main", "cache", "a" * 40, at, None, None, at),
        )
        row = pull_requests.get(session, project.id, 7)
        pull_requests.set_files(session, row, ["shop/models.py"])
        pr = snapshot(row, ["shop/models.py"])
    project_pull_requests(graph_store, PROJECT, [pr])
    before = graph_store.get_node(PROJECT, "pull_request:7")
    assert before is not None and before.kind == "PullRequest"

    pipeline.ingest_local(pyproj, PROJECT, store=graph_store, engine=engine, clear=True)

    assert graph_store.get_node(PROJECT, "pull_request:7") == before
    outgoing, _ = graph_store.edges_of(PROJECT, "pull_request:7", "out", limit=10)
    assert [(edge.relation, edge.other_id) for edge in outgoing] == [("TOUCHES", "file:shop/models.py")]
    incoming, _ = graph_store.edges_of(PROJECT, "pull_request:7", "in", limit=10)
    assert [(edge.relation, edge.other_id) for edge in incoming] == [("AUTHORED", "contributor:octocat")]
