"""The exact counts of a diff between two graph versions.

Its own module, free of heavy imports, because the graph_diff tool's output model uses it as a
field type: the gateway imports every tool module to list schemas, and must not pay for
SQLAlchemy to do so.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class DiffCounts:
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
