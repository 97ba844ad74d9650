"""delete_project on both deployment shapes: a dry run counts, a confirmed run deletes the graph and
its records, and reviews stay or go as asked."""

from __future__ import annotations

import pytest


ADMIN = ("admin",)


@pytest.fixture
def seeded(world):
    """The world's project with a completed graph version, an annotation and a recorded review (its PR
    is projected into the graph: one more node)."""
    from rhumbline.stores.relational import versions
    from rhumbline.stores.relational.session import session_scope

    with session_scope(world.engine) as session:
        version = versions.start(session, world.project)
        versions.finish(session, version.id, status="completed", node_count=7, edge_count=8)
    annotated = world.call(
        "add_annotation",
        {"project": world.project, "node_id": "function:shop/pricing.py:price_of", "content": "Prices are in cents."},
        scopes=("write",),
    )
    assert annotated["ok"], annotated
    reviewed = world.call(
        "record_review",
        {"project": world.project, "pr_number": 7, "verdict": "APPROVED", "summary": "Looks right."},
        scopes=("write",),
    )
    assert reviewed["ok"], reviewed
    return world


def test_without_confirm_nothing_is_deleted_and_the_answer_counts_what_would_be(seeded) -> None:
    answer = seeded.call("delete_project", {"project": seeded.project, "reviews": "drop"}, scopes=ADMIN)
    assert answer["ok"], answer
    assert answer["result"] == {
        "project": seeded.project, "deleted": False, "reviews": "drop",
        "counts": {"nodes": 8, "edges": 8, "graph_versions": 1, "snapshots": 0, "annotations": 1, "pull_requests": 1, "reviews": 1},
    }  # fmt: skip
    assert seeded.graph.get_node(seeded.project, "function:shop/pricing.py:price_of") is not None


def test_keeping_reviews_deletes_the_graph_and_its_records_and_keeps_the_project(seeded) -> None:
    answer = seeded.call(
        "delete_project", {"project": seeded.project, "reviews": "keep", "confirm": seeded.project}, scopes=ADMIN
    )
    assert answer["ok"] and answer["result"]["deleted"] is True, answer
    graph = seeded.graph
    assert graph.get_node(seeded.project, "function:shop/pricing.py:price_of") is None
    assert graph.graph_version(seeded.project) is None
    # The other project's graph is untouched.
    assert graph.get_node(seeded.other_project, "repository:") is not None
    listed = seeded.call("list_projects", {}, projects=(seeded.project,))["result"]["projects"]
    assert [(item["slug"], item["last_build"]) for item in listed] == [(seeded.project, None)]
    reviews = seeded.call("get_recent_reviews", {"repo": seeded.project})
    assert reviews["ok"] and reviews["result"]["total"] == 1, reviews
    again = seeded.call("delete_project", {"project": seeded.project, "reviews": "drop"}, scopes=ADMIN)["result"]
    assert again["counts"] == {"nodes": 0, "edges": 0, "graph_versions": 0, "snapshots": 0, "annotations": 0, "pull_requests": 1, "reviews": 1}


def test_dropping_reviews_deletes_the_project_itself(seeded) -> None:
    answer = seeded.call(
        "delete_project", {"project": seeded.project, "reviews": "drop", "confirm": seeded.project}, scopes=ADMIN
    )
    assert answer["ok"], answer
    assert seeded.call("list_projects", {}, projects=(seeded.project,))["result"]["projects"] == []
    gone = seeded.call("delete_project", {"project": seeded.project, "reviews": "drop"}, scopes=ADMIN)
    assert gone["error"] == {"code": "not_found", "message": f"no project '{seeded.project}'", "details": {}}


def test_refusals_are_specific(seeded) -> None:
    wrong = seeded.call("delete_project", {"project": seeded.project, "reviews": "keep", "confirm": "acme/other"}, scopes=ADMIN)
    assert wrong["error"]["message"] == f"`confirm` must repeat the project slug '{seeded.project}' exactly"
    unchosen = seeded.call("delete_project", {"project": seeded.project, "confirm": seeded.project}, scopes=ADMIN)
    assert unchosen["error"]["code"] == "invalid_arguments" and "reviews: Field required" in unchosen["error"]["message"]
    writer = seeded.call("delete_project", {"project": seeded.project, "reviews": "keep"}, scopes=("write",))
    assert writer["error"]["code"] == "forbidden"
