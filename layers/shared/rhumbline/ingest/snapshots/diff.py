"""Exact difference between two retained graph versions of a project (what graph_diff returns;
its model: diff_model.py).

    diff_versions(engine, "acme/shop", 3, 5) -> GraphDiff

Both versions' snapshots (records.py) are loaded and compared key by key: nodes by id, edges by
(source, relation, target). Only the per-file chunks whose bytes differ are decoded and compared
(format.py: a record lives in exactly one chunk, so that is exact); totals come from the
chunks' counts. A node or edge present in both with any attribute different is
"changed", with each changed attribute's before and after; docstrings, explanations and content
hashes are compared by digest, so their before/after values are digests. Lists are complete and
sorted (nodes by id, edges by key); callers cap them. Counts are always exact.

Defaults: `to_version` is the newest completed version with a snapshot, `from_version` the
newest completed one before it. Asking for a version without a snapshot (failed before it was
written, pruned by retention, never existed) raises VersionNotDiffable.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine

from rhumbline.ingest.snapshots.diff_model import (
    Change, DiffCounts, EdgeChange, EdgeEntry, GraphDiff, NodeChange, NodeEntry,
)
from rhumbline.ingest.snapshots.format import Partitioned, differing_parts
from rhumbline.ingest.snapshots.records import EDGE_ATTRIBUTES, NODE_ATTRIBUTES, Snapshot
from rhumbline.ingest.snapshots.storage import load_partitioned, versions_with_snapshots


class VersionNotDiffable(LookupError):
    """A version has no snapshot to diff (see the module docstring)."""


def default_versions(engine: Engine, project: str) -> tuple[int, int]:
    """(from, to): the two newest completed versions that have snapshots."""
    found = versions_with_snapshots(engine, project)
    if len(found) < 2:
        raise VersionNotDiffable(
            f"project {project} has {len(found)} diffable graph version(s); a diff needs two"
        )
    return found[1], found[0]


def diff_versions(
    engine: Engine,
    project: str,
    from_version: int | None = None,
    to_version: int | None = None,
) -> GraphDiff:
    if from_version is None or to_version is None:
        found = versions_with_snapshots(engine, project)
        if to_version is None:
            if not found:
                raise VersionNotDiffable(f"project {project} has no diffable graph version")
            to_version = found[0]
        if from_version is None:
            older = [v for v in found if v < to_version]
            if not older:
                raise VersionNotDiffable(
                    f"project {project} has no diffable graph version before {to_version}"
                )
            from_version = older[0]
    before = _snapshot(engine, project, from_version)
    after = before if to_version == from_version else _snapshot(engine, project, to_version)
    parts = differing_parts(before, after)
    return diff_snapshots(
        project, from_version, to_version,
        Snapshot(*before.records(parts)), Snapshot(*after.records(parts)),
        totals=(before.node_count, after.node_count, before.edge_count, after.edge_count),
    )  # fmt: skip


def _snapshot(engine: Engine, project: str, version: int) -> Partitioned:
    snapshot = load_partitioned(engine, project, version)
    if snapshot is None:
        raise VersionNotDiffable(
            f"graph version {version} of {project} has no snapshot (it failed, was pruned by "
            "retention, or does not exist)"
        )
    return snapshot


def diff_snapshots(
    project: str,
    from_version: int,
    to_version: int,
    before: Snapshot,
    after: Snapshot,
    *,
    totals: tuple[int, int, int, int] | None = None,
) -> GraphDiff:
    """`totals`: (nodes before, after, edges before, after) when the snapshots hold only the
    records that may differ; default: their sizes."""
    old_nodes, new_nodes = before.nodes, after.nodes
    nodes_added = [_node_entry(i, new_nodes[i]) for i in sorted(new_nodes.keys() - old_nodes.keys())]
    nodes_removed = [_node_entry(i, old_nodes[i]) for i in sorted(old_nodes.keys() - new_nodes.keys())]
    nodes_changed = []
    for node_id in sorted(_changed(old_nodes, new_nodes)):
        old, new = old_nodes[node_id], new_nodes[node_id]
        nodes_changed.append(
            NodeChange(id=node_id, kind=new[0], name=new[1], changes=_changes(NODE_ATTRIBUTES, old, new))
        )
    old_edges, new_edges = before.edges, after.edges
    edges_added = [_edge_entry(k, new_edges[k]) for k in sorted(new_edges.keys() - old_edges.keys())]
    edges_removed = [_edge_entry(k, old_edges[k]) for k in sorted(old_edges.keys() - new_edges.keys())]
    edges_changed = [
        EdgeChange(
            source=key[0], relation=key[1], target=key[2],
            changes=_changes(EDGE_ATTRIBUTES, old_edges[key], new_edges[key]),
        )  # fmt: skip
        for key in sorted(_changed(old_edges, new_edges))
    ]
    if totals is None:
        totals = (len(old_nodes), len(new_nodes), len(old_edges), len(new_edges))
    counts = DiffCounts(
        nodes_added=len(nodes_added),
        nodes_removed=len(nodes_removed),
        nodes_changed=len(nodes_changed),
        edges_added=len(edges_added),
        edges_removed=len(edges_removed),
        edges_changed=len(edges_changed),
        nodes_before=totals[0],
        nodes_after=totals[1],
        edges_before=totals[2],
        edges_after=totals[3],
    )
    return GraphDiff(
        project=project,
        from_version=from_version,
        to_version=to_version,
        nodes_added=nodes_added,
        nodes_removed=nodes_removed,
        nodes_changed=nodes_changed,
        edges_added=edges_added,
        edges_removed=edges_removed,
        edges_changed=edges_changed,
        counts=counts,
    )


def _changed(old: dict[Any, Any], new: dict[Any, Any]) -> list[Any]:
    """Keys in both with different records (only those get sorted: diffs are usually small)."""
    return [key for key, record in new.items() if key in old and old[key] != record]


def _changes(names: tuple[str, ...], old: tuple[Any, ...], new: tuple[Any, ...]) -> dict[str, Change]:
    return {name: Change(before=a, after=b) for name, a, b in zip(names, old, new, strict=True) if a != b}


def _node_entry(node_id: str, record: tuple[Any, ...]) -> NodeEntry:
    kind, name, qualified_name, file, start_line, end_line = record[:6]
    return NodeEntry(
        id=node_id, kind=kind, name=name, qualified_name=qualified_name, file=file,
        start_line=start_line, end_line=end_line,
    )  # fmt: skip


def _edge_entry(key: tuple[str, str, str], record: tuple[Any, ...]) -> EdgeEntry:
    source, relation, target = key
    return EdgeEntry(source=source, relation=relation, target=target, confidence=record[0], line=record[3])
