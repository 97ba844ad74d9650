"""Per-version graph snapshots: every node and edge key with what is needed to diff it exactly.

A snapshot maps
- node id → (kind, name, qualified_name, file, start_line, end_line, language, signature,
  docstring digest, content digest), and
- edge key (source, relation, target) → (confidence, confidence_score, file, line,
  explanation digest, properties),
which is every stored attribute: long texts (docstrings, explanations) and content hashes are kept
as 64-bit digests (blake2b), so a change is detected, and shown as "changed", without storing
the text again. Two snapshots are equal exactly when the two graphs are. They are stored as
per-file chunks (format.py) in the relational store (storage.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from hashlib import blake2b
from typing import Any

from rhumbline.stores.graph.model import Edge, Node

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
