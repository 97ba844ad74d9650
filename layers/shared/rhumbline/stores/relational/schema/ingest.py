"""Tables of incremental, versioned ingestion (migration 0003_snapshots).

- `ingested_files`: the phase-1 facts cache. One row per file of the project's last ingests: its
  content hash and, for files a language extractor parsed, the extracted facts (compressed,
  restricted pickle; see rhumbline/ingest/snapshots/facts_cache.py). A re-ingest parses only files whose
  (content hash, language, extractor fingerprint) is not in the cache.
- `graph_snapshots`: per graph version, every node key with its attributes and every edge key with
  its evidence, compressed (rhumbline/ingest/snapshots/): what graph_diff compares and what an
  incremental ingest diffs its new graph against. Deleted with its version (retention pruning).
- `graph_snapshot_parts` (migration 0013_snapshot_parts): a snapshot's bytes in bounded parts,
  deleted with their snapshot row. Rows written before it keep their bytes in `graph_snapshots.blob`.
"""

from __future__ import annotations

from sqlalchemy import ForeignKey, Integer, LargeBinary, String
from sqlalchemy.orm import Mapped, mapped_column

from rhumbline.stores.relational.schema.base import Base


class IngestedFile(Base):
    __tablename__ = "ingested_files"

    project_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("projects.id", ondelete="CASCADE"), primary_key=True
    )
    path: Mapped[str] = mapped_column(String(1024), primary_key=True)
    content_hash: Mapped[str] = mapped_column(String(64), nullable=False)
    language: Mapped[str | None] = mapped_column(String(32), nullable=True)
    # Which extractor code produced `facts` (a hash of the ingest package's sources).
    fingerprint: Mapped[str] = mapped_column(String(16), nullable=False)
    facts: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)


class GraphSnapshot(Base):
    __tablename__ = "graph_snapshots"

    version_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("graph_versions.id", ondelete="CASCADE"), primary_key=True
    )
    format: Mapped[int] = mapped_column(Integer, nullable=False)
    node_count: Mapped[int] = mapped_column(Integer, nullable=False)
    edge_count: Mapped[int] = mapped_column(Integer, nullable=False)
    # A digest of everything the graph was built from (pipeline.inputs_key): a re-ingest with the
    # same inputs reuses this graph without running phase 2.
    inputs: Mapped[str | None] = mapped_column(String(32), nullable=True)
    # Empty when the bytes are in graph_snapshot_parts; rows written before those keep them here.
    blob: Mapped[bytes] = mapped_column(LargeBinary, nullable=False)


class GraphSnapshotPart(Base):
    __tablename__ = "graph_snapshot_parts"

    version_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("graph_snapshots.version_id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    data: Mapped[bytes] = mapped_column(LargeBinary, nullable=False)
