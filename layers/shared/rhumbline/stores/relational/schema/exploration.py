"""Tables of the graph-exploration tools (migration 0004_annotations).

- `annotations`: durable knowledge an agent or a person attached to a node (add_annotation). It
  lives here, never in the graph: a rebuild or a `clear` replaces the graph, and the annotation
  re-attaches by the node's stable id. When no node has that id any more it is *orphaned*
  (computed when read, against the graph being served), listed, never dropped.
- `graph_centrality`: approximate betweenness of a project's graph, computed once per graph
  version (after an ingest, or on first use) and read by blast_radius and query_graph, so that no
  call ever recomputes it. Rows of older versions are deleted when a newer one is written.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Boolean, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from rhumbline.stores.relational.schema.base import AutoBigInt, Base, PortableJSON, UTCDateTime, utcnow

MAX_NODE_ID = 2000
MAX_CONTENT = 4000


class Annotation(Base):
    __tablename__ = "annotations"
    __table_args__ = (Index("ix_annotations_project_id_node_id", "project_id", "node_id"),)

    id: Mapped[int] = mapped_column(AutoBigInt, primary_key=True, autoincrement=True)
    project_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("projects.id", ondelete="CASCADE"), nullable=False
    )
    node_id: Mapped[str] = mapped_column(String(MAX_NODE_ID), nullable=False)
    # What the node was when annotated: an orphan still says what it was about.
    node_kind: Mapped[str] = mapped_column(String(100), nullable=False)
    node_label: Mapped[str] = mapped_column(String(1000), nullable=False)
    content: Mapped[str] = mapped_column(Text, nullable=False)
    tags: Mapped[list[str]] = mapped_column(PortableJSON, nullable=False)
    author: Mapped[str] = mapped_column(String(200), nullable=False)
    token_id: Mapped[str] = mapped_column(String(16), nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False, default=utcnow)


class GraphCentrality(Base):
    __tablename__ = "graph_centrality"

    project_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("projects.id", ondelete="CASCADE"), primary_key=True
    )
    # Which graph the scores describe: "v<stamp>" for a versioned graph (see centrality.py).
    graph_key: Mapped[str] = mapped_column(String(100), primary_key=True)
    computed_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False, default=utcnow)
    node_count: Mapped[int] = mapped_column(Integer, nullable=False)
    edge_count: Mapped[int] = mapped_column(Integer, nullable=False)
    sources: Mapped[int] = mapped_column(Integer, nullable=False)  # BFS sources actually used
    exact: Mapped[bool] = mapped_column(Boolean, nullable=False)  # every node was a source
    seconds: Mapped[float] = mapped_column(Float, nullable=False)
    # {node id: normalized betweenness} for the nodes above zero (the best MAX_STORED of them).
    scores: Mapped[dict[str, Any]] = mapped_column(PortableJSON, nullable=False)
