"""PRs in the project's graph: `(:Contributor)-[:AUTHORED]->(:PullRequest)-[:TOUCHES]->(:File)`.

The relational store is the source of truth; the graph holds a projection of it, written after the
relational transaction committed. Writing it is best effort: when the graph is down the PR is still
recorded and the caller says the graph was not updated. PullRequest nodes have no `file`, so an
incremental ingest (`remove_files`) keeps them; a full rebuild (`clear`) drops them, and
`reproject` writes them all again.

Contributor nodes may also come from git history (the ingester: `contributor:<email or login>`,
MODIFIED edges to files). This module never overwrites such a node: it adds a Contributor node
only when none with that id exists, and otherwise just links to it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rhumbline.stores.graph.model import Edge, GraphBatch, Node
from rhumbline.stores.graph.protocol import GraphStore

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

MAX_REPROJECTED_PRS = 20_000


@dataclass(frozen=True)
class PullRequestSnapshot:
    """What the projection needs of a PR, copied out of the relational session."""

    number: int
    title: str | None
    author: str | None
    state: str | None
    files: tuple[str, ...] | None  # None: not known, leave the graph's TOUCHES edges as they are


def contributor_id(login: str) -> str:
    # GitHub logins are case-insensitive: one node per person whatever the casing of an event.
    return f"contributor:{login.strip().lower()}"


def pull_request_id(number: int) -> str:
    return f"pull_request:{number}"


def file_id(path: str) -> str:
    # The ingester's File id (rhumbline.ingest.graph.ids.file_id), spelled out to keep this module's
    # imports light for the webhook function.
    return f"file:{path}"


def _pr_node(project: str, pr: PullRequestSnapshot) -> Node:
    return Node(
        id=pull_request_id(pr.number),
        kind="PullRequest",
        name=f"#{pr.number}",
        qualified_name=f"{project}#{pr.number}",
        docstring=pr.title,
        signature=pr.state,
    )


def _edges(pr: PullRequestSnapshot) -> list[Edge]:
    pr_id = pull_request_id(pr.number)
    edges = []
    if pr.author:
        edges.append(
            Edge(contributor_id(pr.author), pr_id, "AUTHORED", "EXTRACTED", 1.0,
                 f"{pr.author} opened pull request #{pr.number}")
        )  # fmt: skip
    for path in pr.files or ():
        edges.append(
            Edge(pr_id, file_id(path), "TOUCHES", "EXTRACTED", 1.0,
                 f"pull request #{pr.number} changes {path}")
        )  # fmt: skip
    return edges


def _new_contributors(graph: GraphStore, project: str, prs: Iterable[PullRequestSnapshot]) -> list[Node]:
    logins = {contributor_id(pr.author): pr.author for pr in prs if pr.author}
    return [
        Node(id=node_id, kind="Contributor", name=login, qualified_name=login)
        for node_id, login in sorted(logins.items())
        if graph.get_node(project, node_id) is None
    ]


def project_pull_requests(graph: GraphStore, project: str, prs: Sequence[PullRequestSnapshot]) -> None:
    """Write PRs into the graph in one atomic batch. Raises GraphUnavailable when the graph is down.

    A PR whose files are known is replaced whole (its node removed and written again with its
    edges), so files dropped from the PR lose their TOUCHES edge; a PR whose files are unknown is
    upserted, keeping the TOUCHES edges written earlier."""
    if not prs:
        return
    nodes = [_pr_node(project, pr) for pr in prs] + _new_contributors(graph, project, prs)
    edges = [edge for pr in prs for edge in _edges(pr)]
    replaced = [pull_request_id(pr.number) for pr in prs if pr.files is not None]
    graph.apply(project, GraphBatch(nodes=nodes, edges=edges, remove_nodes=replaced))


def reproject(graph: GraphStore, project: str, session: "Session", project_id: int) -> int:
    """Write every recorded PR of a project into its graph again (after a rebuild with `clear`).
    Returns how many PRs were written."""
    from rhumbline.stores.relational import pull_requests

    rows = pull_requests.all_of(session, project_id, limit=MAX_REPROJECTED_PRS)
    files = pull_requests.files_by_pr(session, project_id)
    snapshots = [
        PullRequestSnapshot(
            number=row.number,
            title=row.title,
            author=row.author,
            state=row.state,
            files=tuple(files.get(row.id, ())) if row.files_known else None,
        )
        for row in rows
    ]
    project_pull_requests(graph, project, snapshots)
    return len(snapshots)
