"""The difference between two graph versions, as diff.py computes it and graph_diff answers it.

One definition for both: the tool's output model extends `GraphDiff` with its paging fields, so
the schema agents are sent is derived from the same classes the diff is built of. Its own module,
free of heavy imports, because the gateway imports every tool module to list schemas, and must
not pay for SQLAlchemy to do so.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class NodeEntry(BaseModel):
    id: str
    kind: str
    name: str
    qualified_name: str
    file: str | None
    start_line: int | None
    end_line: int | None


class Change(BaseModel):
    before: Any
    after: Any


class NodeChange(BaseModel):
    id: str
    kind: str
    name: str
    changes: dict[str, Change] = Field(
        description="Changed attributes (signature, location, docstring, hash, ...); docstring and "
        "content_hash values are digests."
    )


class EdgeEntry(BaseModel):
    source: str
    relation: str
    target: str
    confidence: str
    line: int | None


class EdgeChange(BaseModel):
    source: str
    relation: str
    target: str
    changes: dict[str, Change]  # explanation values are digests


class DiffCounts(BaseModel):
    nodes_added: int
    nodes_removed: int
    nodes_changed: int
    edges_added: int
    edges_removed: int
    edges_changed: int
    nodes_before: int
    nodes_after: int
    edges_before: int
    edges_after: int


# Lists sorted (nodes by id, edges by key): complete as diff.py returns them, a page of each in
# the tool's answer.
class GraphDiff(BaseModel):
    project: str
    from_version: int
    to_version: int
    nodes_added: list[NodeEntry]
    nodes_removed: list[NodeEntry]
    nodes_changed: list[NodeChange]
    edges_added: list[EdgeEntry]
    edges_removed: list[EdgeEntry]
    edges_changed: list[EdgeChange]
    counts: DiffCounts = Field(description="Exact, whatever the lists show.")
