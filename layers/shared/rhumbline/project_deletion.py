"""Deleting a project: its graph (every version, in the graph store), its graph versions with their
snapshots, annotations, centrality and facts cache (relational store), the files' contents its
versions kept (and their objects in the deployment's bucket), and its pull requests and reviews only
when asked to. Used by the `delete_project` tool and `rhumbline project delete`.

The graph goes first: if the relational step then fails, a second deletion finishes the job, and
no version is ever left pointing at a graph that another step already removed half of.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from rhumbline.stores.graph.protocol import GraphStore
    from rhumbline.stores.source_blobs import BlobStore

ReviewChoice = Literal["keep", "drop"]


class UnknownProject(LookupError):
    pass


@dataclass(frozen=True)
class Deletion:
    project: str
    deleted: bool
    reviews: ReviewChoice
    counts: dict[str, int]


def plan(project: str, *, graph: "GraphStore", engine: "Engine", reviews: ReviewChoice) -> Deletion:
    """What deleting would remove, touching nothing. Raises UnknownProject."""
    from rhumbline.stores.relational import projects
    from rhumbline.stores.relational.project_data import count
    from rhumbline.stores.relational.session import session_scope

    with session_scope(engine) as session:
        found = projects.get(session, project)
        if found is None:
            raise UnknownProject(project)
        counts = count(session, found.id).as_dict()
    in_graph = graph.counts(project)
    return Deletion(project, False, reviews, {"nodes": in_graph.nodes, "edges": in_graph.edges, **counts})


def delete(
    project: str, *, graph: "GraphStore", engine: "Engine", reviews: ReviewChoice, blobs: "BlobStore | None" = None
) -> Deletion:
    """`blobs`: where the stored contents' bytes are (default: the settings' bucket, if any)."""
    from rhumbline.stores.relational import projects
    from rhumbline.stores.relational.project_data import delete_project_data
    from rhumbline.stores.relational.session import session_scope

    planned = plan(project, graph=graph, engine=engine, reviews=reviews)
    graph.delete_project(project)
    if blobs is None:
        from rhumbline.config import settings
        from rhumbline.stores.source_blobs import open_blob_store

        blobs = open_blob_store(settings().contents_bucket)
    if not blobs.inline:  # the objects before the rows that list them: a failure is retried whole
        with session_scope(engine) as session:
            found = projects.get(session, project)
            project_id = found.id if found is not None else None
        if project_id is not None:
            blobs.delete_all(project_id)  # those no row names too (distributed/contents.py)
    with session_scope(engine) as session:
        found = projects.get(session, project)
        if found is not None:
            delete_project_data(session, found, keep_reviews=reviews == "keep")
    return Deletion(project, True, reviews, planned.counts)
