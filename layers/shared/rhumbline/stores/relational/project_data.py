"""What the relational store holds about one project, counted and deleted (`delete_project`).

Everything hangs off the `projects` row with ON DELETE CASCADE. Dropping the reviews deletes the
row itself; keeping them deletes the graph's records (versions with their snapshots, annotations,
centrality, the facts cache, the stored files' contents) and leaves the row with its pull requests and reviews, which the
webhook keeps adding to.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from rhumbline.stores.relational.schema.core import GraphVersion, Project
from rhumbline.stores.relational.schema.exploration import Annotation, GraphCentrality
from rhumbline.stores.relational.schema.ingest import GraphSnapshot, IngestedFile
from rhumbline.stores.relational.schema.reviews import PullRequest, Review
from rhumbline.stores.relational.schema.sources import SourceBlob

# Tables keyed by project_id that hold the graph's records (GraphSnapshot and the version's
# manifest, VersionFile, go with their version).
GRAPH_RECORDS = (GraphVersion, Annotation, GraphCentrality, IngestedFile, SourceBlob)


@dataclass(frozen=True)
class ProjectData:
    graph_versions: int
    snapshots: int
    annotations: int
    pull_requests: int
    reviews: int

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def count(session: Session, project_id: int) -> ProjectData:
    def rows(model: type, *where: object) -> int:
        return session.scalar(select(func.count()).select_from(model).where(*where)) or 0

    return ProjectData(
        graph_versions=rows(GraphVersion, GraphVersion.project_id == project_id),
        # Versions that have a snapshot (one may be stored in several chunks).
        snapshots=session.scalar(
            select(func.count(func.distinct(GraphSnapshot.version_id))).where(
                GraphSnapshot.version_id.in_(select(GraphVersion.id).where(GraphVersion.project_id == project_id))
            )
        )
        or 0,
        annotations=rows(Annotation, Annotation.project_id == project_id),
        pull_requests=rows(PullRequest, PullRequest.project_id == project_id),
        reviews=rows(Review, Review.project_id == project_id),
    )


def delete_project_data(session: Session, project: Project, *, keep_reviews: bool) -> None:
    if not keep_reviews:
        session.delete(project)
        session.flush()
        return
    for model in GRAPH_RECORDS:
        session.execute(delete(model).where(model.project_id == project.id))
