"""Per-version graph snapshots: every node and edge key with what is needed to diff it exactly.

A snapshot maps
- node id → (kind, name, qualified_name, file, start_line, end_line, language, signature,
  docstring digest, content digest), and
- edge key (source, relation, target) → (confidence, confidence_score, file, line,
  explanation digest, properties),
which is every stored attribute: long texts (docstrings, explanations) and content hashes are kept
as 64-bit digests (blake2b), so a change is detected, and shown as "changed", without storing
the text again. Two snapshots are equal exactly when the two graphs are.

Stored in `graph_snapshots` (one row per graph version) as per-file chunks (partitioned.py): a
version shares the bytes of every file's chunk that did not change with the version it was built
from, and a diff decodes only the chunks that differ. A row of an older format counts as no
snapshot: the next ingest rewrites the graph, and graph_diff says the version cannot be diffed.
The rows go with their versions when old versions are pruned (retention, default 20:
RHUMBLINE_GRAPH_RETENTION).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from hashlib import blake2b
from typing import Any

from sqlalchemy import Engine, delete, select

from rhumbline.ingest.partitioned import FORMAT, Partitioned
from rhumbline.stores.graph.model import Edge, Node
from rhumbline.stores.relational.schema.ingest import GraphSnapshot
from rhumbline.stores.relational.schema.core import GraphVersion, Project
from rhumbline.stores.relational.session import session_scope

NODE_ATTRIBUTES = (
    "kind", "name", "qualified_name", "file", "start_line", "end_line", "language", "signature",
    "docstring", "content_hash",
)  # fmt: skip
EDGE_ATTRIBUTES = ("confidence", "confidence_score", "file", "line", "explanation", "properties")
# Attributes a snapshot holds as digests: a diff says they changed, not what they became.
DIGESTED = frozenset({"docstring", "content_hash", "explanation"})
_DIGEST_CHARS = 16

EdgeKey = tuple[str, str, str]


def digest(text: str | None) -> str | None:
    if text is None:
        return None
    return blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def _short_hash(value: str | None) -> str | None:
    """A content hash as at most 16 characters: kept when short, its first 64 bits when it is a
    sha256 hex digest (what the ingester writes), else digested."""
    if value is None or len(value) <= _DIGEST_CHARS:
        return value
    if len(value) == 64:
        return value[:_DIGEST_CHARS]
    return digest(value)


def node_record(node: Node) -> tuple[Any, ...]:
    return (
        node.kind,
        node.name,
        node.qualified_name,
        node.file,
        node.start_line,
        node.end_line,
        node.language,
        node.signature,
        digest(node.docstring),
        _short_hash(node.content_hash),
    )


def edge_record(edge: Edge) -> tuple[Any, ...]:
    properties = dict(sorted(edge.properties.items())) if edge.properties else None
    return (
        edge.confidence,
        float(edge.confidence_score),
        edge.file,
        edge.line,
        digest(edge.explanation),
        properties,
    )


def edge_key(edge: Edge) -> EdgeKey:
    return (edge.source, edge.relation, edge.target)


@dataclass
class Snapshot:
    nodes: dict[str, tuple[Any, ...]]
    edges: dict[EdgeKey, tuple[Any, ...]]

    @classmethod
    def of(cls, nodes: Iterable[Node], edges: Iterable[Edge]) -> Snapshot:
        return cls(
            nodes={node.id: node_record(node) for node in nodes},
            edges={edge_key(edge): edge_record(edge) for edge in edges},
        )


# -- storage -------------------------------------------------------------------------------------


def save(
    engine: Engine, version_id: int, blob: bytes, *, inputs: str | None, counts: tuple[int, int]
) -> int:
    """Store the snapshot of a graph version (replacing any): `blob` (Partitioned.encode) with
    its node and edge `counts`; `inputs`: what it was built from (InputsKey.value). Returns its
    size in bytes."""
    with session_scope(engine) as session:
        session.execute(delete(GraphSnapshot).where(GraphSnapshot.version_id == version_id))
        session.add(
            GraphSnapshot(
                version_id=version_id,
                format=FORMAT,
                node_count=counts[0],
                edge_count=counts[1],
                inputs=inputs,
                blob=blob,
            )
        )
    return len(blob)


@dataclass(frozen=True)
class StoredSnapshot:
    blob: bytes
    inputs: str | None
    node_count: int
    edge_count: int
    stats: dict[str, Any] | None  # the version's summary stats (graph_versions.stats)


def load_stored(engine: Engine, project: str, version: int) -> StoredSnapshot | None:
    """A version's snapshot with what an ingest reusing it needs, or None (see load_blob)."""
    with session_scope(engine) as session:
        found = session.execute(
            select(
                GraphSnapshot.blob,
                GraphSnapshot.inputs,
                GraphSnapshot.node_count,
                GraphSnapshot.edge_count,
                GraphVersion.stats,
            )
            .join(GraphVersion, GraphVersion.id == GraphSnapshot.version_id)
            .join(Project, Project.id == GraphVersion.project_id)
            .where(Project.slug == project, GraphVersion.version == version)
            .where(GraphSnapshot.format == FORMAT)
        ).first()
    return StoredSnapshot(*found) if found is not None else None


def discard(engine: Engine, version_id: int) -> None:
    with session_scope(engine) as session:
        session.execute(delete(GraphSnapshot).where(GraphSnapshot.version_id == version_id))


def load_blob(engine: Engine, project: str, version: int) -> bytes | None:
    """The stored snapshot of `project`'s graph version `version`, or None (never stored, failed
    before it was written, pruned, or of an older format)."""
    with session_scope(engine) as session:
        return session.scalar(
            select(GraphSnapshot.blob)
            .join(GraphVersion, GraphVersion.id == GraphSnapshot.version_id)
            .join(Project, Project.id == GraphVersion.project_id)
            .where(Project.slug == project, GraphVersion.version == version)
            .where(GraphSnapshot.format == FORMAT)
        )


def load(engine: Engine, project: str, version: int) -> Snapshot | None:
    blob = load_blob(engine, project, version)
    return Snapshot(*Partitioned.decode(blob).records()) if blob is not None else None


def load_partitioned(engine: Engine, project: str, version: int) -> Partitioned | None:
    blob = load_blob(engine, project, version)
    return Partitioned.decode(blob) if blob is not None else None


def versions_with_snapshots(
    engine: Engine, project: str, *, status: str | None = "completed"
) -> list[int]:
    """Version numbers of `project` that can be diffed (a snapshot is kept), newest first."""
    query = (
        select(GraphVersion.version)
        .join(GraphSnapshot, GraphSnapshot.version_id == GraphVersion.id)
        .join(Project, Project.id == GraphVersion.project_id)
        .where(Project.slug == project, GraphSnapshot.format == FORMAT)
        .order_by(GraphVersion.version.desc())
    )
    if status is not None:
        query = query.where(GraphVersion.status == status)
    with session_scope(engine) as session:
        return list(session.scalars(query))
