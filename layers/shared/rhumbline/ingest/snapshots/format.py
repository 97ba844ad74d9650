"""A graph snapshot stored as per-file chunks, so versions share what did not change.

Every node and edge record belongs to the partition named by its `file` attribute ("" when it has
none: the Repository, Directory and Contributor nodes). The code a file produces (its File node,
its definitions, the edges it is the evidence of) lands in its own partition, so:

- an incremental ingest that rebuilt a few files re-encodes only their partitions and copies the
  other chunks' bytes from the base version (no decode, no re-encode of the whole graph);
- a diff of two versions decodes only the partitions whose bytes differ. That is exact: a record
  lives in exactly one partition of a version, so a node or edge that moved between partitions
  makes both differ, and equal bytes mean equal records.

Besides the chunks, a version records what its graph was built from, for the next ingest's
planner (ingest/partial.py): each file's (language, content hash, line count, stat stamp: the next
ingest reads only files whose stamp changed, stat_index.py), the unresolved call sites of each
Python file (the summary's total without a full phase 2), and `context`, digests of everything
else phase 2 read: (extractor code, project and root name; the git history).

Blob (format 3): an uncompressed pickle of builtins only (the chunks are compressed already),
(3, {partition: (node count, edge count, chunk)}, files, unresolved, context, read_ns, skipped);
each chunk is a zlib-compressed pickle of (node items, edge items); `skipped` holds the stat stamps
of files phase 1 skipped for their bytes (stat_index.py). Both are read by an unpickler that
refuses every global, so a blob can build nothing but tuples, lists, dicts, strings and numbers.
"""

from __future__ import annotations

import io
import pickle
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from rhumbline.ingest.snapshots.records import edge_key, edge_record, node_record
from rhumbline.stores.graph.model import Edge, Node

FORMAT = 3  # what graph_snapshots.format records
_CHUNK_COMPRESSION = 3
_PICKLE_PROTOCOL = 5
_NODE_FILE = 3  # index of `file` in a node record (snapshots.NODE_ATTRIBUTES)
_EDGE_FILE = 2  # index of `file` in an edge record (snapshots.EDGE_ATTRIBUTES)

NodeRecords = dict[str, tuple[Any, ...]]
EdgeRecords = dict[tuple[str, str, str], tuple[Any, ...]]
PartitionRecords = Iterable[tuple[str, tuple[NodeRecords, EdgeRecords]]]
Key = TypeVar("Key")
Item = TypeVar("Item", Node, Edge)


def node_partition(record: tuple[Any, ...]) -> str:
    return record[_NODE_FILE] or ""


def edge_partition(record: tuple[Any, ...]) -> str:
    return record[_EDGE_FILE] or ""


def split(nodes: NodeRecords, edges: EdgeRecords) -> dict[str, tuple[NodeRecords, EdgeRecords]]:
    """Records grouped by partition, each keeping the order it had in `nodes` and `edges`."""
    parts: dict[str, tuple[NodeRecords, EdgeRecords]] = {}
    for node_id, record in nodes.items():
        part = parts.get(record[_NODE_FILE] or "")
        if part is None:
            part = parts[record[_NODE_FILE] or ""] = ({}, {})
        part[0][node_id] = record
    for key, record in edges.items():
        part = parts.get(record[_EDGE_FILE] or "")
        if part is None:
            part = parts[record[_EDGE_FILE] or ""] = ({}, {})
        part[1][key] = record
    return parts


def partitions(nodes: Iterable[Node], edges: Iterable[Edge]) -> Iterator[tuple[str, tuple[NodeRecords, EdgeRecords]]]:
    """The partitions of split(Snapshot.of(nodes, edges)), in its order, each built when it is
    reached: a whole graph's records never exist at once, only one partition's.

    As in Snapshot.of, the last node of an id and the last edge of a key count, at the position
    (and with the key object) of the first; they land in the partition of the last one's file.
    """
    node_parts = _by_file({node.id: node for node in nodes})
    edge_parts = _by_file({edge_key(edge): edge for edge in edges})
    for name in dict.fromkeys([*node_parts, *edge_parts]):
        node_ids, part_nodes = node_parts.pop(name, ([], []))
        edge_keys, part_edges = edge_parts.pop(name, ([], []))
        node_records = dict(zip(node_ids, map(node_record, part_nodes), strict=True))
        yield name, (node_records, dict(zip(edge_keys, map(edge_record, part_edges), strict=True)))


def _by_file(items: dict[Key, Item]) -> dict[str, tuple[list[Key], list[Item]]]:
    """The keys and items of `items` grouped by the partition of their file, in their order."""
    groups: dict[str, tuple[list[Key], list[Item]]] = {}
    for key, item in items.items():
        group = groups.get(item.file or "")
        if group is None:
            group = groups[item.file or ""] = ([], [])
        group[0].append(key)
        group[1].append(item)
    return groups


def encode_chunk(nodes: NodeRecords, edges: EdgeRecords) -> tuple[int, int, bytes]:
    payload = (list(nodes.items()), list(edges.items()))
    blob = zlib.compress(pickle.dumps(payload, protocol=_PICKLE_PROTOCOL), _CHUNK_COMPRESSION)
    return len(nodes), len(edges), blob


def decode_chunk(chunk: tuple[int, int, bytes]) -> tuple[NodeRecords, EdgeRecords]:
    nodes, edges = _load(zlib.decompress(chunk[2]))
    return dict(nodes), dict(edges)


@dataclass
class Partitioned:
    chunks: dict[str, tuple[int, int, bytes]]  # partition → (nodes, edges, encoded records)
    # path → (language, content hash, line count, stat stamp): stat_index.FileEntry
    files: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    unresolved: dict[str, int] = field(default_factory=dict)  # Python path → unresolved call sites
    # digests of phase 2's other inputs, (all but the git history, the history): InputsKey.context
    context: tuple[str, str] | None = None
    read_ns: int | None = None  # when phase 1 started reading (time.time_ns): stat_index's racy rule
    # path → (reason, *stat stamp) of files skipped for their bytes: stat_index.SkipEntry
    skipped: dict[str, tuple[Any, ...]] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        parts: PartitionRecords,
        *,
        like: Partitioned | None = None,
        like_parts: dict[str, tuple[NodeRecords, EdgeRecords]] | None = None,
        **inputs: Any,
    ) -> Partitioned:
        """`parts`: each partition's records (split(...).items(), or partitions() of a graph),
        encoded as they come. `like` and its decoded partitions (`like_parts`, see decoded()): a
        partition whose records equal `like`'s shares its chunk instead of being encoded again."""
        chunks = {}
        for part, records in parts:
            if like is not None and like_parts is not None and like_parts.get(part) == records:
                chunks[part] = like.chunks[part]
            else:
                chunks[part] = encode_chunk(*records)
        return cls(chunks, **inputs)

    def decoded(self) -> dict[str, tuple[NodeRecords, EdgeRecords]]:
        return {part: decode_chunk(chunk) for part, chunk in self.chunks.items()}

    @property
    def node_count(self) -> int:
        return sum(chunk[0] for chunk in self.chunks.values())

    @property
    def edge_count(self) -> int:
        return sum(chunk[1] for chunk in self.chunks.values())

    def records(self, parts: Iterable[str] | None = None) -> tuple[NodeRecords, EdgeRecords]:
        """The records of `parts` (default: all), merged."""
        nodes: NodeRecords = {}
        edges: EdgeRecords = {}
        for part in self.chunks if parts is None else parts:
            chunk = self.chunks.get(part)
            if chunk is not None:
                part_nodes, part_edges = decode_chunk(chunk)
                nodes.update(part_nodes)
                edges.update(part_edges)
        return nodes, edges

    def replaced(
        self,
        records: dict[str, tuple[NodeRecords, EdgeRecords]],
        *,
        files: dict[str, tuple[Any, ...]],
        unresolved: dict[str, int],
        read_ns: int | None,
        skipped: dict[str, tuple[Any, ...]] | None = None,
        context: tuple[str, str] | None = None,
    ) -> Partitioned:
        """A copy whose partitions in `records` are re-encoded (dropped when empty); the other
        chunks are shared, bytes and all. `skipped`, `context`: this version's (default: the
        same)."""
        chunks = dict(self.chunks)
        for part, (nodes, edges) in records.items():
            if nodes or edges:
                chunks[part] = encode_chunk(nodes, edges)
            else:
                chunks.pop(part, None)
        skipped = self.skipped if skipped is None else skipped
        return Partitioned(chunks, files, unresolved, context or self.context, read_ns, skipped)

    def encode(self) -> bytes:
        payload = (
            FORMAT, self.chunks, self.files, self.unresolved, self.context, self.read_ns, self.skipped
        )  # fmt: skip
        return pickle.dumps(payload, protocol=_PICKLE_PROTOCOL)

    @classmethod
    def decode(cls, blob: bytes) -> Partitioned:
        payload = _load(blob)
        if not isinstance(payload, tuple) or len(payload) != 7 or payload[0] != FORMAT:
            raise ValueError("not a graph snapshot of a known format")
        return cls(*payload[1:])


def differing_parts(before: Partitioned, after: Partitioned) -> list[str]:
    """Partitions whose records may differ (equal chunk bytes are equal records)."""
    return [
        part
        for part in before.chunks.keys() | after.chunks.keys()
        if before.chunks.get(part) != after.chunks.get(part)
    ]


class _BuiltinsOnly(pickle.Unpickler):
    """Refuses every global: only pickle's own types (tuple, list, dict, str, numbers, None)."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"a graph snapshot may not reference {module}.{name}")


def _load(data: bytes) -> Any:
    return _BuiltinsOnly(io.BytesIO(data)).load()
