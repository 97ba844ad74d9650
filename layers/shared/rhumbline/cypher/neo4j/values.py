"""Neo4j driver values as JSON: nodes, relationships and paths as tagged objects, temporal values
as ISO strings, points as coordinates, bytes as base64 — and graph elements of projects the
caller cannot see redacted.

Redaction is the part of project scoping the server can do after the fact: an element carrying a
`project` property outside the caller's projects is replaced by a placeholder. Scalars computed
from such elements (a count, a name returned alone) cannot be recognized: see docs/query.md.
"""

from __future__ import annotations

import base64
import math
import time
from collections.abc import Collection
from typing import Any

from rhumbline.cypher.answer import REDACTED, scalar
from rhumbline.stores.graph.neo4j.keys import Namespace

# Values of one answer converted at most: an answer within answer.MAX_RESULT_CHARS holds fewer,
# each taking two characters at least, and converting millions would hold the server.
MAX_VALUES = 500_000


class AnswerTooLarge(ValueError):
    """The answer holds more than MAX_VALUES values: it cannot fit the answer's size bound."""


class AnswerTooLate(ValueError):
    """Converting the answer ran past the query's deadline."""


class Serializer:
    def __init__(
        self, visible: Collection[str] | None, namespace: Namespace = Namespace(), deadline: float = math.inf
    ) -> None:
        """`visible`: the caller's project slugs; None when it may see every project of the
        namespace (another stack's graphs in a shared database are never visible). `deadline`:
        the monotonic time past which converting stops."""
        self.visible = visible
        self.namespace = namespace
        self.deadline = deadline
        self.redacted = 0
        self.values = 0

    def _hidden(self, properties: dict[str, Any]) -> bool:
        key = properties.get("project")
        if not isinstance(key, str):
            return False
        # A staged or retired physical graph (`owner/name@...`) belongs to its project.
        project = self.namespace.project(key)
        return project is None or (self.visible is not None and project not in self.visible)

    def value(self, value: Any) -> Any:
        self.values += 1
        if self.values > MAX_VALUES:
            raise AnswerTooLarge(f"the answer holds more than {MAX_VALUES:,} values")
        if self.values % 4096 == 0 and time.monotonic() > self.deadline:
            raise AnswerTooLate("converting the answer ran past the deadline")
        if value is None or isinstance(value, (bool, int, float, str)):
            return scalar(value)
        if isinstance(value, list):
            return [self.value(v) for v in value]
        from neo4j.graph import Node, Path, Relationship

        if isinstance(value, Node):
            return self.node(value)
        if isinstance(value, Relationship):
            return self.relationship(value)
        if isinstance(value, Path):
            return {
                "type": "path",
                "nodes": [self.node(n) for n in value.nodes],
                "relationships": [self.relationship(r) for r in value.relationships],
            }
        if isinstance(value, (list, tuple)):
            return [self.value(v) for v in value]
        if isinstance(value, dict):
            return {str(k): self.value(v) for k, v in value.items()}
        if isinstance(value, (bytes, bytearray)):
            return {"type": "bytes", "base64": base64.b64encode(bytes(value)).decode()}
        return self._other(value)

    def node(self, node: Any) -> dict[str, Any]:
        properties = dict(node.items())
        if self._hidden(properties):
            self.redacted += 1
            return {**REDACTED, "element": "node"}
        return {
            "type": "node",
            "element_id": node.element_id,
            "labels": sorted(node.labels),
            "properties": {k: self.value(v) for k, v in sorted(properties.items())},
        }

    def relationship(self, relationship: Any) -> dict[str, Any]:
        properties = dict(relationship.items())
        if self._hidden(properties):
            self.redacted += 1
            return {**REDACTED, "element": "relationship"}
        start, end = relationship.start_node, relationship.end_node
        return {
            "type": "relationship",
            "element_id": relationship.element_id,
            "rel_type": relationship.type,
            "start": start.element_id if start is not None else None,
            "end": end.element_id if end is not None else None,
            "properties": {k: self.value(v) for k, v in sorted(properties.items())},
        }

    def _other(self, value: Any) -> Any:
        from neo4j.spatial import Point

        if isinstance(value, Point):
            return {"type": "point", "srid": value.srid, "coordinates": list(value)}
        iso = getattr(value, "iso_format", None)  # neo4j.time Date, Time, DateTime, Duration
        if callable(iso):
            return iso()
        return str(value)
