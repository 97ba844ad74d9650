"""The PR projection in the graph, `nodes_of_kind`, and what happens when the graph is down."""

from __future__ import annotations

from rhumbline.reviews.graph_projection import reproject
from rhumbline.runtime import resources
from rhumbline.stores.graph.model import Edge, GraphBatch, Node
from rhumbline.stores.relational import projects
from tests.functional.reviews.review_world import ReviewWorld, payload


def test_nodes_of_kind_pages_with_exact_totals_and_hides_stubs(review_world: ReviewWorld) -> None:
    graph = review_world.graph()
    people = [Node(f"contributor:p{i:02d}", "Contributor", f"p{i:02d}", f"p{i:02d}") for i in range(7)]
    graph.apply(review_world.repo, GraphBatch(
        nodes=[*people, Node("file:a.py", "File", "a.py", "a.py", "a.py")],
        # An edge to a contributor id with no node makes a stub: never listed.
        edges=[Edge("file:a.py", "contributor:ghost", "REFERENCES", "EXTRACTED", 1.0, "a dangling end")],
    ))  # fmt: skip
    graph.apply(review_world.other_repo, GraphBatch(nodes=[Node("contributor:zz", "Contributor", "zz", "zz")]))
    first, total = graph.nodes_of_kind(review_world.repo, "Contributor", limit=3)
    rest, again = graph.nodes_of_kind(review_world.repo, "Contributor", limit=10, offset=3)
    assert (total, again) == (7, 7)
    assert [n.id for n in first + rest] == [f"contributor:p{i:02d}" for i in range(7)]
    assert graph.nodes_of_kind(review_world.repo, "Nothing", limit=5) == ([], 0)


def test_an_ingested_contributor_node_is_linked_not_overwritten(review_world: ReviewWorld) -> None:
    graph = review_world.graph()
    graph.apply(review_world.repo, GraphBatch(nodes=[Node("contributor:octocat", "Contributor", "The Octocat", "octocat@github.com")]))
    review_world.deliver("pull_request", payload("pull_request.opened", review_world.repo))
    node = graph.get_node(review_world.repo, "contributor:octocat")
    assert (node.name, node.qualified_name) == ("The Octocat", "octocat@github.com")
    edges, _ = graph.edges_of(review_world.repo, "contributor:octocat", "out", limit=5)
    assert [(e.relation, e.other_id) for e in edges] == [("AUTHORED", "pull_request:1347")]


def test_reproject_restores_the_prs_after_a_rebuild_with_clear(review_world: ReviewWorld) -> None:
    review_world.deliver("pull_request", payload("pull_request.opened", review_world.repo))
    review_world.call(
        "record_review",
        {"project": review_world.repo, "pr_number": 1347, "verdict": "APPROVED", "summary": "", "files": ["shop/pricing.py"]},
        scopes=("write",),
    )
    graph = review_world.graph()
    graph.apply(review_world.repo, GraphBatch(nodes=[Node("file:shop/pricing.py", "File", "pricing.py", "shop/pricing.py", "shop/pricing.py")], clear=True))
    assert graph.get_node(review_world.repo, "pull_request:1347") is None
    with review_world.db() as session:
        assert reproject(graph, review_world.repo, session, projects.get(session, review_world.repo).id) == 1
    pr = graph.get_node(review_world.repo, "pull_request:1347")
    assert (pr.kind, pr.name, pr.docstring, pr.signature) == ("PullRequest", "#1347", "Cache the price lookups", "open")
    touched, total = graph.edges_of(review_world.repo, "file:shop/pricing.py", "in", limit=5)
    assert (total, touched[0].relation, touched[0].other_id) == (1, "TOUCHES", "pull_request:1347")
    authored, _ = graph.edges_of(review_world.repo, "pull_request:1347", "in", limit=5)
    assert [(e.relation, e.other_id) for e in authored] == [("AUTHORED", "contributor:octocat")]


def test_a_webhook_with_the_graph_down_still_records_the_pr(review_world: ReviewWorld, monkeypatch, closed_port: int) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("RHUMBLINE_GRAPH_BACKEND", "neo4j")
    monkeypatch.setenv("RHUMBLINE_NEO4J_URI", f"bolt://127.0.0.1:{closed_port}")
    monkeypatch.setenv("RHUMBLINE_NEO4J_PASSWORD", "unused")
    monkeypatch.setenv("RHUMBLINE_GRAPH_TIMEOUT", "1")
    resources.reset()
    answer = review_world.deliver("pull_request", payload("pull_request.opened", review_world.repo))
    assert (answer.status, answer.body["outcome"]) == (200, "processed")
    assert answer.body["graph"].startswith(f"not updated: the graph store is unavailable (Neo4j at bolt://127.0.0.1:{closed_port}")
    outcome = review_world.call("get_pr_verdict", {"repo": review_world.repo, "pr_number": 1347})
    assert outcome["error"]["code"] == "not_reviewed"  # recorded: found, just not reviewed
    # Relational tools keep working while the graph is down.
    assert review_world.call("get_repo_health", {"repo": review_world.repo})["result"]["open_prs"] == 1
