"""What one ingest writes, decided by how much of the stored version it can keep.

After phase 1 (and phase 2 where it ran), exactly one of these applies:

- `reuse`: the inputs are the stored version's (inputs_key.InputsKey), so its graph is the
  result: only the version stamp moves, and the snapshot is the stored one with this ingest's
  stat stamps.
- `partial`: only files whose interface did not change changed (partial.py): their partitions
  were rebuilt and are compared with the stored ones.
- `diff`: the whole graph was built and is compared with the stored version's snapshot.
- `clear`: nothing to compare with (first ingest, `clear`, or the stored version has no
  snapshot of the current format): the whole graph is written with clear=True.

Each returns a Plan: the store batch, the new version's snapshot, and what changed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from rhumbline.ingest.build import BuiltGraph
from rhumbline.ingest.partial import PartialBuild
from rhumbline.ingest.snapshots.changes import GraphChanges, graph_changes
from rhumbline.ingest.snapshots.facts_cache import FactCache
from rhumbline.ingest.snapshots.format import Partitioned, partitions, split
from rhumbline.ingest.snapshots.inputs_key import InputsKey
from rhumbline.ingest.snapshots.records import Snapshot, edge_key
from rhumbline.ingest.snapshots.stat_index import files_table, skipped_table
from rhumbline.ingest.snapshots.storage import StoredSnapshot
from rhumbline.ingest.summary import IngestFailure
from rhumbline.stores.graph.model import GraphBatch


@dataclass(frozen=True)
class Plan:
    phase2: str  # "skipped", "partial" or "full": how much of the graph was resolved
    batch: GraphBatch
    # The new version's snapshot (snapshots/format.py), encoded when asked: a clearing write
    # compares nothing, so the pipeline encodes it while the store writes.
    snapshot: Callable[[], bytes]
    counts: tuple[int, int]  # its nodes and edges
    changes: GraphChanges | None  # None: a clearing write, everything in it is new
    # The graph's figures (IngestSummary fields) when phase 2 did not build the whole graph.
    figures: dict[str, Any] | None = None


@dataclass(frozen=True)
class Version:
    """The version being written, the one the store holds, and what this ingest read."""

    number: int
    base: int | None  # the store's version stamp
    key: InputsKey
    cache: FactCache
    read_ns: int  # when phase 1 started reading (snapshots/stat_index.py)

    def tables(self, built: BuiltGraph) -> dict[str, Any]:
        """What the snapshot records of this ingest's reading, for the next one (Partitioned)."""
        return {
            "files": files_table(built.sources, self.cache.stamps),
            "skipped": skipped_table(built.skipped, self.cache.stamps),
            "read_ns": self.read_ns,
        }


def reuse(version: Version, built: BuiltGraph, base: StoredSnapshot, stored: Partitioned | None) -> Plan:
    changes = graph_changes(_EMPTY, _EMPTY, (), ())
    blob = base.blob
    if stored is not None:  # the same chunks, with this ingest's stat stamps for the next one
        blob = replace(stored, **version.tables(built)).encode()
    stats = base.stats or {}
    figures = {
        "node_count": base.node_count,
        "edge_count": base.edge_count,
        "nodes_by_kind": stats.get("nodes_by_kind", {}),
        "edges_by_relation": stats.get("edges_by_relation", {}),
        "unresolved_calls": stats.get("unresolved_calls", 0),
        # The same inputs fail the same way: the stored version's failures are this one's.
        "failure_count": stats.get("failure_count", 0),
        "failures": [IngestFailure.model_validate(failure) for failure in stats.get("failures", [])],
    }
    batch = changes.batch(version=version.number, expect_version=version.base)
    return Plan("skipped", batch, lambda: blob, (base.node_count, base.edge_count), changes, figures)


def partial(
    version: Version, built: BuiltGraph, base: StoredSnapshot, stored: Partitioned, part: PartialBuild
) -> Plan:
    changes = graph_changes(part.before, part.after, part.nodes, part.edges)
    unresolved = {**stored.unresolved, **part.unresolved_by_file}
    records = split(part.after.nodes, part.after.edges)
    partitioned = stored.replaced(
        {path: records.get(path, ({}, {})) for path in part.parts},
        unresolved=unresolved, context=version.key.context, **version.tables(built),
    )  # fmt: skip
    batch = changes.batch(version=version.number, expect_version=version.base)
    counts = (partitioned.node_count, partitioned.edge_count)
    figures = _partial_figures(base, part, sum(unresolved.values()))
    blob = partitioned.encode()
    return Plan("partial", batch, lambda: blob, counts, changes, figures)


def diff(version: Version, built: BuiltGraph, old: Partitioned) -> Plan:
    snapshot = Snapshot.of(built.nodes, built.edges)
    old_parts = old.decoded()
    records = split(snapshot.nodes, snapshot.edges).items()
    blob = Partitioned.of(records, like=old, like_parts=old_parts, **_recorded(version, built)).encode()
    before = Snapshot({}, {})
    for part_nodes, part_edges in old_parts.values():
        before.nodes.update(part_nodes)
        before.edges.update(part_edges)
    changes = graph_changes(before, snapshot, built.nodes, built.edges)
    batch = changes.batch(version=version.number, expect_version=version.base)
    return Plan("full", batch, lambda: blob, (len(snapshot.nodes), len(snapshot.edges)), changes)


def clear(version: Version, built: BuiltGraph) -> Plan:
    recorded = _recorded(version, built)

    def encoded() -> bytes:
        # Partition by partition: the whole graph's records would be held beside the graph.
        return Partitioned.of(partitions(built.nodes, built.edges), **recorded).encode()

    batch = GraphBatch(nodes=built.nodes, edges=built.edges, clear=True, version=version.number)
    # The last of each node id and edge key counts once, as in the snapshot and the store.
    counts = (len({node.id for node in built.nodes}), len({edge_key(edge) for edge in built.edges}))
    return Plan("full", batch, encoded, counts, None)


_EMPTY = Snapshot(nodes={}, edges={})


def _recorded(version: Version, built: BuiltGraph) -> dict[str, Any]:
    """A whole graph's inputs: the tables, its unresolved call sites per Python file (and under
    "" every other language's), and the context digests."""
    python = built.unresolved_by_file
    unresolved = {**python, "": built.unresolved_calls - sum(python.values())}
    return {**version.tables(built), "unresolved": unresolved, "context": version.key.context}


def _partial_figures(base: StoredSnapshot, part: PartialBuild, unresolved: int) -> dict[str, Any]:
    """The stored version's figures, minus the rebuilt files' stored records, plus their new ones."""
    stats = base.stats or {}
    kinds = Counter(stats.get("nodes_by_kind", {}))
    kinds.subtract(record[0] for record in part.before.nodes.values())
    kinds.update(record[0] for record in part.after.nodes.values())
    relations = Counter(stats.get("edges_by_relation", {}))
    relations.subtract(key[1] for key in part.before.edges)
    relations.update(key[1] for key in part.after.edges)
    nodes_by_kind = {k: n for k, n in sorted(kinds.items()) if n}
    edges_by_relation = {r: n for r, n in sorted(relations.items()) if n}
    return {
        "nodes_by_kind": nodes_by_kind,
        "edges_by_relation": edges_by_relation,
        "node_count": sum(nodes_by_kind.values()),
        "edge_count": sum(edges_by_relation.values()),
        "unresolved_calls": unresolved,
    }
