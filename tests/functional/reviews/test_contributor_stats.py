"""get_contributor_stats: PRs from the relational store, commits from git history in the graph
(Contributor –MODIFIED→ File edges, written here through the store's own `apply` as the ingester
writes them), identities merged on the login, and an honest answer when the graph is down."""

from __future__ import annotations

from collections.abc import Callable

from rhumbline.stores.graph.model import Edge, GraphBatch, Node
from tests.functional.reviews.review_world import ReviewWorld, payload

OCTOCAT_NOREPLY = "contributor:583231+octocat@users.noreply.github.com"


def pr(world: ReviewWorld, number: int, author: str, updated: str, files: list[str] | None = None) -> None:
    changes = {"pull_request.number": number, "pull_request.user.login": author,
               "pull_request.created_at": updated, "pull_request.updated_at": updated}  # fmt: skip
    assert world.deliver("pull_request", payload("pull_request.opened", world.repo, **changes)).status == 200
    if files is not None:
        recorded = world.call(
            "record_review",
            {"project": world.repo, "pr_number": number, "verdict": "COMMENT", "summary": "", "files": files},
            scopes=("write",),
        )
        assert recorded["ok"], recorded


def modified(contributor: str, path: str, commits: int, last_at: str) -> Edge:
    return Edge(contributor, f"file:{path}", "MODIFIED", "EXTRACTED", 1.0,
                f"{commits} commits to {path}, last {last_at}", properties={"commits": commits, "last_at": last_at})  # fmt: skip


def history(world: ReviewWorld, *, exact: bool = False) -> None:
    nodes = [
        Node(OCTOCAT_NOREPLY, "Contributor", "The Octocat", "583231+octocat@users.noreply.github.com"),
        Node("contributor:dev@example.com", "Contributor", "Dev Eloper", "dev@example.com"),
        Node("file:shop/cart.py", "File", "cart.py", "shop/cart.py", "shop/cart.py"),
        Node("file:shop/tax.py", "File", "tax.py", "shop/tax.py", "shop/tax.py"),
    ]
    edges = [
        modified(OCTOCAT_NOREPLY, "shop/cart.py", 3, "2026-12-01T00:00:00+00:00"),
        modified(OCTOCAT_NOREPLY, "shop/tax.py", 2, "2026-06-01T00:00:00+00:00"),
        modified("contributor:dev@example.com", "shop/cart.py", 5, "2026-11-15T00:00:00+00:00"),
    ]
    if exact:
        nodes.append(Node("repository:", "Repository", "shop", "shop"))
        edges += [
            Edge(OCTOCAT_NOREPLY, "repository:", "CONTRIBUTED", "EXTRACTED", 1.0, "4 commits", properties={"commits": 4}),
            Edge("contributor:dev@example.com", "repository:", "CONTRIBUTED", "EXTRACTED", 1.0, "5 commits", properties={"commits": 5}),
        ]
    world.graph().apply(world.repo, GraphBatch(nodes=nodes, edges=edges))


def stats(world: ReviewWorld, **arguments) -> dict:  # type: ignore[no-untyped-def]
    outcome = world.call("get_contributor_stats", {"repo": world.repo, **arguments})
    assert outcome["ok"], outcome
    return outcome["result"]


def seed(world: ReviewWorld) -> None:
    pr(world, 1, "octocat", "2026-10-01T00:00:00Z", files=["shop/cart.py", "shop/pricing.py"])
    pr(world, 2, "octocat", "2026-10-05T00:00:00Z", files=["shop/pricing.py", "README.md"])
    pr(world, 3, "hubot", "2026-10-09T00:00:00Z")


def test_prs_and_history_merge_on_the_login(review_world: ReviewWorld) -> None:
    seed(review_world)
    history(review_world)
    result = stats(review_world)
    assert result == {
        "contributors": [
            # 2 PRs + 5 commits; files: cart, pricing, README (PRs) ∪ cart, tax (history) = 4
            {"login": "octocat", "pr_count": 2, "commit_count": 5, "files_touched": 4, "last_active": "2026-12-01T00:00:00Z"},
            {"login": "dev@example.com", "pr_count": 0, "commit_count": 5, "files_touched": 1, "last_active": "2026-11-15T00:00:00Z"},
            {"login": "hubot", "pr_count": 1, "commit_count": 0, "files_touched": 0, "last_active": "2026-10-09T00:00:00Z"},
        ],
        "total": 3,
        "commit_counts": "summed_over_files",
        "note": "commit_count sums each file's commits (a commit touching n files counts n times): the graph has no "
        "per-contributor commit total.",
    }


def test_a_repository_edge_gives_exact_commit_totals(review_world: ReviewWorld) -> None:
    seed(review_world)
    history(review_world, exact=True)
    result = stats(review_world)
    assert [(c["login"], c["commit_count"]) for c in result["contributors"]] == [("octocat", 4), ("dev@example.com", 5), ("hubot", 0)]
    assert (result["commit_counts"], result["note"]) == ("exact", None)


def test_limit_caps_the_list_but_not_the_total(review_world: ReviewWorld) -> None:
    seed(review_world)
    history(review_world)
    result = stats(review_world, limit=1)
    assert ([c["login"] for c in result["contributors"]], result["total"]) == (["octocat"], 3)


def test_without_history_commit_counts_are_unknown_not_zero(review_world: ReviewWorld) -> None:
    seed(review_world)
    result = stats(review_world)
    assert [(c["login"], c["pr_count"], c["commit_count"], c["files_touched"]) for c in result["contributors"]] == [
        ("octocat", 2, None, 3),
        ("hubot", 1, None, 0),
    ]
    assert result["commit_counts"] == "no_history"
    assert result["note"].startswith("The graph holds no git history for this repo")


def test_another_repos_history_and_prs_do_not_leak_in(review_world: ReviewWorld) -> None:
    seed(review_world)
    other = review_world.other_repo
    review_world.graph().apply(other, GraphBatch(
        nodes=[Node("contributor:octocat", "Contributor", "octocat", "octocat")],
        edges=[modified("contributor:octocat", "x.py", 99, "2027-01-01T00:00:00+00:00")],
    ))  # fmt: skip
    from tests.functional.reviews.review_world import OTHER_SECRET

    review_world.deliver("pull_request", payload("pull_request.opened", other, **{"pull_request.user.login": "intruder"}), secret=OTHER_SECRET)
    result = stats(review_world)
    assert [(c["login"], c["pr_count"], c["commit_count"]) for c in result["contributors"]] == [("octocat", 2, None), ("hubot", 1, None)]


def test_graph_unreachable_keeps_the_pr_data_and_says_so(review_world: ReviewWorld, graph_down: Callable[[], int]) -> None:
    seed(review_world)
    history(review_world)
    closed_port = graph_down()
    result = stats(review_world)
    assert [(c["login"], c["pr_count"], c["commit_count"], c["files_touched"]) for c in result["contributors"]] == [
        ("octocat", 2, None, 3),
        ("hubot", 1, None, 0),
    ]
    assert (result["total"], result["commit_counts"]) == (2, "unavailable")
    assert result["note"].startswith(f"The graph store is unavailable (Neo4j at bolt://127.0.0.1:{closed_port} is unreachable")
    assert result["note"].endswith("PR counts come from the relational store and are complete.")


def push_by(world: ReviewWorld, repo: str, authors: list[dict[str, str]], delivery: str, **options) -> None:  # type: ignore[no-untyped-def]
    document = payload("push", repo, ref="refs/heads/price-cache")
    document["commits"] = [{**document["commits"][0], "author": author} for author in authors]
    assert world.deliver("push", document, delivery=delivery, **options).status == 202


def test_a_push_ties_a_commit_address_to_its_login(review_world: ReviewWorld) -> None:
    from tests.functional.reviews.review_world import OTHER_SECRET

    seed(review_world)
    pr(review_world, 4, "devel", "2026-10-12T00:00:00Z", files=["shop/checkout.py"])
    history(review_world)
    # Another project's push says nothing about this one's addresses.
    push_by(review_world, review_world.other_repo, [{"name": "x", "email": "dev@example.com", "username": "intruder"}], "e-0", secret=OTHER_SECRET)
    assert ("dev@example.com", 0) in [(c["login"], c["pr_count"]) for c in stats(review_world)["contributors"]]
    # GitHub matched the address to `devel` (case as pushed: addresses are case-insensitive); an
    # author GitHub matched to no account proves nothing.
    push_by(review_world, review_world.repo, [
        {"name": "Dev Eloper", "email": "Dev@Example.com", "username": "devel"},
        {"name": "Someone", "email": "someone@example.com"},
    ], "e-1")  # fmt: skip
    result = stats(review_world)
    assert [(c["login"], c["pr_count"], c["commit_count"], c["files_touched"]) for c in result["contributors"]] == [
        ("octocat", 2, 5, 4),
        ("devel", 1, 5, 2),  # PR #4 (checkout.py) and history (cart.py) are one person
        ("hubot", 1, 0, 0),
    ]
    # A later push tying the address to another login moves the history with it.
    push_by(review_world, review_world.repo, [{"name": "Dev", "email": "dev@example.com", "username": "dev-new"}], "e-2")
    assert [(c["login"], c["commit_count"]) for c in stats(review_world)["contributors"]][:2] == [("octocat", 5), ("dev-new", 5)]
