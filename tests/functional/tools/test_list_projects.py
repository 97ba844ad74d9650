from __future__ import annotations

from rhumbline.contract import Caller
from rhumbline.runtime.context import ToolContext
from rhumbline.stores.relational import versions
from rhumbline.stores.relational.session import session_scope


def test_lists_only_the_tokens_projects_with_graph_sizes(world):
    outcome = world.call("list_projects", {})
    assert outcome["ok"], outcome
    assert outcome["result"] == {
        "projects": [
            {"slug": world.project, "last_build": None, "serving": None, "node_count": 7, "edge_count": 8}
        ],
        "total": 1,
    }


def test_shows_running_and_failed_builds_honestly(world):
    engine = world.engine
    with session_scope(engine) as session:
        first = versions.start(session, world.project, commit_sha="a" * 40)
        versions.finish(session, first.id, status="completed", node_count=7, edge_count=8)
        versions.start(session, world.project, commit_sha="b" * 40)
    running = world.call("list_projects", {})["result"]["projects"][0]["last_build"]
    assert (running["version"], running["commit"], running["status"]) == (2, "b" * 40, "running")
    assert running["finished_at"] is None
    # What is served meanwhile is the last completed build, not the running one.
    serving = world.call("list_projects", {})["result"]["projects"][0]["serving"]
    assert (serving["version"], serving["commit"]) == (1, "a" * 40)

    with session_scope(engine) as session:
        latest = versions.latest(session, world.project)
        versions.finish(session, latest.id, status="failed", node_count=0, edge_count=0, error="parse crashed")
    failed = world.call("list_projects", {})["result"]["projects"][0]["last_build"]
    assert (failed["version"], failed["status"], failed["error"]) == (2, "failed", "parse crashed")
    assert world.call("list_projects", {})["result"]["projects"][0]["serving"]["version"] == 1


def test_two_projects_sorted(world):
    outcome = world.call("list_projects", {}, projects=(world.other_project, world.project))
    assert [p["slug"] for p in outcome["result"]["projects"]] == sorted([world.project, world.other_project])
    assert outcome["result"]["total"] == 2


def test_a_token_sees_only_the_existing_projects_it_names(world):
    # The token names a project that was never created: it is not listed (nor counted).
    outcome = world.call("list_projects", {}, projects=("never/created", world.project))
    assert [p["slug"] for p in outcome["result"]["projects"]] == [world.project]
    assert outcome["result"]["total"] == 1
    # A token for every project sees every existing one (the shared test database holds others).
    everyone = ToolContext(
        caller=Caller(principal="t", token_id="t", projects=("*",), scopes=("read",)), request_id="r", deadline=0,
        stores=world.stores,
    )
    assert {world.project, world.other_project} <= set(everyone.visible_projects())


def test_unexpected_argument_is_refused(world):
    outcome = world.call("list_projects", {"project": world.project})
    assert outcome["error"]["code"] == "invalid_arguments"
    assert "project: Extra inputs are not permitted" in outcome["error"]["message"]
