"""What a Cypher query answers, the same on both backends: rows of JSON values (nodes,
relationships and paths as tagged objects), bounded in size, and the placeholder for an element
of a project the caller cannot see."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

MAX_RESULT_CHARS = 1_000_000  # serialized rows; Lambda answers are at most 6 MB
STRING_CHARS = 10_000
REDACTED = {"type": "redacted", "reason": "belongs to a project this token cannot see"}


@dataclass(frozen=True)
class Answer:
    columns: list[str]
    rows: list[dict[str, Any]]
    more: bool  # the query has rows beyond `rows`
    cut_by_size: bool  # `rows` stopped at MAX_RESULT_CHARS rather than at the limit
    redacted: int
    query_type: str
    elapsed_ms: float
    backend: str  # 'sqlite' or 'neo4j'
    scoped: bool  # every pattern was bound to the caller's projects by the server
    read_only_user: bool  # ran as a dedicated read-only database user
    # Labels and relationship types the query names that match nothing in the caller's projects.
    warnings: tuple[str, ...] = ()


def scalar(value: None | bool | int | float | str) -> Any:
    """A scalar as the answer shows it: long strings cut, non-finite floats as text."""
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, str):
        return value if len(value) <= STRING_CHARS else value[: STRING_CHARS - 1] + "…"
    return value
