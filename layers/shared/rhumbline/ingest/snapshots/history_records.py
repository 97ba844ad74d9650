"""Git history in a partial rebuild: the contributor records are swapped wherever they live.

graph/contributors.py turns the git log and the set of paths into Contributor nodes, MODIFIED edges
(in the modified file's partition) and COMMITTED_TO edges (partition ""), and nothing else reads
the log. So when only the log changed since the stored version (new commits), every other record
is still right: the new graph is the stored one with its history records replaced by the new
ones (and the changed files' code partitions replaced by their rebuild). Which partitions that
touches is found by comparing them; only those are written.
"""

from __future__ import annotations

from rhumbline.ingest.snapshots.format import Partitioned, split
from rhumbline.ingest.snapshots.records import Snapshot

HISTORY_KINDS = frozenset({"Contributor"})
HISTORY_RELATIONS = frozenset({"MODIFIED", "COMMITTED_TO"})


def rebase_history(
    base: Partitioned, code_parts: frozenset[str], code: Snapshot, history: Snapshot
) -> tuple[Snapshot, Snapshot, frozenset[str]] | None:
    """(stored records, new records, their partitions) of every partition that changes when the
    partitions `code_parts` become `code` and the history records become `history`; None when a
    node other than a contributor would disappear (an unchanged file's edge may point at it)."""
    old_nodes, old_edges = base.records()
    nodes = {
        node_id: record
        for node_id, record in old_nodes.items()
        if record[0] not in HISTORY_KINDS and (record[3] or "") not in code_parts
    }
    edges = {
        key: record
        for key, record in old_edges.items()
        if key[1] not in HISTORY_RELATIONS and (record[2] or "") not in code_parts
    }
    nodes.update(code.nodes)
    edges.update(code.edges)
    nodes.update(history.nodes)
    edges.update(history.edges)
    if any(old_nodes[gone][0] not in HISTORY_KINDS for gone in old_nodes.keys() - nodes.keys()):
        return None
    old_parts, new_parts = split(old_nodes, old_edges), split(nodes, edges)
    empty: tuple[dict, dict] = ({}, {})
    touched = frozenset(
        part
        for part in old_parts.keys() | new_parts.keys()
        if old_parts.get(part, empty) != new_parts.get(part, empty)
    ) | code_parts
    before, after = Snapshot({}, {}), Snapshot({}, {})
    for part in touched:
        for source, target in ((old_parts, before), (new_parts, after)):
            part_nodes, part_edges = source.get(part, empty)
            target.nodes.update(part_nodes)
            target.edges.update(part_edges)
    return before, after, touched
