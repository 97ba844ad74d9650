"""A lookup in a project with no graph says why: never ingested, being ingested, failed, or
ingested but empty — not "no function named X"."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import Engine

from rhumbline.stores.relational import versions
from rhumbline.stores.relational.session import session_scope
from tests.functional.tools.code_context.conftest import failed

LOOKUPS = [
    ("context", {"file": "shop/models.py"}),
    ("function", {"name": "checkout"}),
    ("class", {"name": "Product"}),
    ("explain", {"name": "Product"}),
    # The exploration tools that start from a node or a question.
    ("get_node", {"node_id": "function:shop/cart.py:checkout"}),
    ("trace_path", {"from_node": "checkout", "to_node": "Product"}),
    ("blast_radius", {"node_id": "checkout"}),
    ("query_graph", {"question": "checkout"}),
    ("add_annotation", {"node_id": "checkout", "content": "a note"}),
]


def _project(engine: Engine, state: str) -> str:
    slug = f"acme/{state}{uuid.uuid4().hex[:8]}"
    if state == "never":
        return slug  # not even a project row
    with session_scope(engine) as session:
        if state == "listed":
            from rhumbline.stores.relational import projects

            projects.get_or_create(session, slug)
            return slug
        version = versions.start(session, slug, commit_sha="0123456789abcdef0123")
        if state == "empty":
            versions.finish(session, version.id, status="completed", node_count=0, edge_count=0)
        elif state == "failed":
            versions.finish(session, version.id, status="failed", node_count=0, edge_count=0, error="RuntimeError: boom")
    return slug


EXPECTED = {
    "never": ("not_ingested", "project '{slug}' has not been ingested yet: run `ingest` first"),
    "listed": ("not_ingested", "project '{slug}' has not been ingested yet: run `ingest` first"),
    "running": ("ingest_running", "project '{slug}' is being ingested (version 1) and has no graph yet: retry shortly"),
    "failed": ("ingest_failed", "project '{slug}' has no graph: its ingest (version 1) failed: RuntimeError: boom"),
    "empty": (
        "empty",
        "project '{slug}' was ingested (version 1 at commit 0123456789ab) but its graph is empty: "
        "the ingest found no source files it could parse",
    ),
}


@pytest.mark.parametrize("state", sorted(EXPECTED))
@pytest.mark.parametrize(("tool", "arguments"), LOOKUPS, ids=[tool for tool, _ in LOOKUPS])
def test_an_empty_project_says_why(world, state: str, tool: str, arguments: dict) -> None:
    slug = _project(world.engine, state)
    error = failed(world.call(tool, {**arguments, "project": slug}, projects=(slug,), scopes=("read", "write")), "not_found")
    reason, message = EXPECTED[state]
    assert error["message"] == message.format(slug=slug)
    assert error["details"]["reason"] == reason
