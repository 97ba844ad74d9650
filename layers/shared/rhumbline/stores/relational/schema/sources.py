"""Tables of the files' contents each graph version keeps (migration 0012_sources).

- `version_files`: a version's manifest, one row per stored file: its path, the sha256 of its
  bytes and their size. Deleted with its version (retention pruning, project deletion).
- `source_blobs`: the contents, once per project and digest, shared by every version whose
  manifest names it. `content` holds the bytes in the embedded store; it is NULL when they live
  in the deployment's S3 bucket (`sources/<project id>/<digest>`), the row then recording that
  the object exists. A blob no manifest names is deleted (rhumbline/ingest/sources.py).
"""

from __future__ import annotations

from sqlalchemy import ForeignKey, Index, Integer, LargeBinary, String
from sqlalchemy.orm import Mapped, mapped_column

from rhumbline.stores.relational.schema.base import Base


class VersionFile(Base):
    __tablename__ = "version_files"
    __table_args__ = (Index("ix_version_files_digest", "digest"),)

    version_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("graph_versions.id", ondelete="CASCADE"), primary_key=True
    )
    path: Mapped[str] = mapped_column(String(1024), primary_key=True)
    digest: Mapped[str] = mapped_column(String(64), nullable=False)
    size: Mapped[int] = mapped_column(Integer, nullable=False)


class SourceBlob(Base):
    __tablename__ = "source_blobs"

    project_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("projects.id", ondelete="CASCADE"), primary_key=True
    )
    digest: Mapped[str] = mapped_column(String(64), primary_key=True)
    size: Mapped[int] = mapped_column(Integer, nullable=False)
    content: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)
