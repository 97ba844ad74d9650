"""A full batch's writes on Neo4j: CREATE into a physical graph with no node (staged.py).

A fresh staging key holds no node, so a MERGE can never match: its index probe per node and
its relationship scan per edge (between two File nodes with hundreds of relationships each) are
pure cost. Rows are deduplicated first, the last one winning as successive MERGEs would, so the
result is the very graph the MERGE path writes.

Rows travel as lists, not maps: the driver packs a map key by key in Python, and a node has 18
properties.

A full write runs in phases, each in transactions of its own: nodes (all properties but `kind`)
and stubs, then edges, then the nodes' kinds and kind labels (node_steps, edge_steps, kind_steps). The staging
key is served to no one until the flip, so the graph in between is never seen.

- Edges and kinds find their nodes by the element id each CREATE returned (`created_ids`), not by
  the (project, id) unique index: a seek of that index compares two long strings, an element-id
  seek is a direct lookup. Neo4j reuses a deleted node's id, so each match
  also checks `project`, and each statement returns how many rows it wrote: a stage losing a
  node meanwhile (a concurrent delete_project) fails the write instead of flipping to a graph
  missing edges or kinds, and never writes into another graph.
- `kind` goes last because of Neo4j's record store: a node's properties are a chain of records
  that a read walks from its head, the properties a transaction creates together land in an
  order of the server's choosing (by property key id), and a property added by a later
  transaction goes to the head. `kind` is the one property a scan reads on every node (a count by
  kind; a filter on kind; walks testing `kind IS NOT NULL` on each node they reach), so it is
  the one worth the head; the other properties may then sit one record further. See
  docs/query.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from rhumbline.stores.graph import rows
from rhumbline.stores.graph.model import Edge, Node
from rhumbline.stores.graph.neo4j.cypher import set_kind_label

_NODE_PROPERTIES = rows.NODE_PROPERTIES
# Every property but `kind` (see the module doc), in _NODE_PROPERTIES order.
_FIRST_PASS = tuple(name for name in _NODE_PROPERTIES if name != "kind")
_CREATED = "created"
WRITTEN = "written"  # rows a SET_KINDS or CREATE_EDGES statement wrote
# Returns [node id, element id] per node created (`created_ids`), for the second pass.
CREATE_NODES = (
    "UNWIND $rows AS row CREATE (n:CodeNode {project: $project, "
    + ", ".join(f"{name}: row[{i}]" for i, name in enumerate(_FIRST_PASS))
    + f"}}) RETURN collect([row[{_FIRST_PASS.index('id')}], elementId(n)]) AS {_CREATED}"
)
# row: [element id, kind]. `project` is checked too: an element id is reused once its node is
# deleted (a concurrent delete_project may drop the stage), and another graph's node must never
# be touched. Each statement returns how many rows it wrote (`written`; staged.py checks).
# `{label}` is the kind's label, for rows of one kind (cypher.set_kind_label).
SET_KINDS = (
    "UNWIND $rows AS row MATCH (n:CodeNode) WHERE elementId(n) = row[0] AND n.project = $project"
    f" SET n.kind = row[1]{{label}} RETURN count(*) AS {WRITTEN}"
)
CREATE_STUBS = (
    "UNWIND $ids AS id CREATE (n:CodeNode {project: $project, id: id})"
    f" RETURN collect([id, elementId(n)]) AS {_CREATED}"
)
# `{relation}` is replaced by a name checked by rows.check_relation (types cannot be parameters).
# row: [source's element id, target's element id, confidence, confidence_score, explanation,
# file, line, extra properties]; extra keys never shadow the fields (rows.check_properties), so
# `+=` cannot overwrite them.
CREATE_EDGES = """
UNWIND $rows AS row
MATCH (a:CodeNode) WHERE elementId(a) = row[0] AND a.project = $project
MATCH (b:CodeNode) WHERE elementId(b) = row[1] AND b.project = $project
CREATE (a)-[r:`{relation}` {project: $project, confidence: row[2], confidence_score: row[3],
    explanation: row[4], file: row[5], line: row[6]}]->(b)
SET r += row[7]
RETURN count(*) AS written
"""


Step = tuple[str, dict[str, Any], int]  # a statement, its parameters, the rows it writes


def node_steps(project: str, nodes: Sequence[Node], edges: Sequence[Edge], chunk: int) -> Iterator[Step]:
    """The statements creating a batch's nodes (all but their kind: see kind_steps) and the stub
    ends of its edges in a project with no node (a fresh staging key). Each returns the element
    ids it created (`created_ids`), which edge_steps and kind_steps need."""
    latest = _latest(nodes)
    for part in chunks(list(latest.values()), chunk):
        yield CREATE_NODES, {"project": project, "rows": [_node_values(node) for node in part]}, len(part)
    for edge in edges:
        rows.check_edge(edge)  # before anything is keyed by its ends
    ends = {end for edge in edges for end in (edge.source, edge.target)}
    for part in chunks(sorted(ends - latest.keys()), chunk):
        yield CREATE_STUBS, {"project": project, "ids": list(part)}, len(part)


def edge_steps(project: str, edges: Sequence[Edge], created: dict[str, str], chunk: int) -> Iterator[Step]:
    """The statements creating a batch's edges between the nodes and stubs node_steps created,
    found by their element ids: to run once those have committed. Edges are deduplicated one
    relation at a time (the last of a key wins, at its first one's place), so only one
    relation's keys are ever held beside the batch."""
    _check_created({end for edge in edges for end in (edge.source, edge.target)}, created)
    for relation, group in by_relation(edges).items():
        text = CREATE_EDGES.replace("{relation}", rows.check_relation(relation))
        unique = list({(edge.source, edge.target): edge for edge in group}.values())
        for part in chunks(unique, chunk):
            yield text, {"project": project, "rows": [_edge_values(edge, created) for edge in part]}, len(part)


def created_ids(records: Iterable[Any]) -> dict[str, str]:
    """Node id -> element id, from the records of a transaction's steps (CREATE_NODES' and
    CREATE_STUBS')."""
    found: dict[str, str] = {}
    for record in records:
        found.update(record.get(_CREATED) or ())
    return found


def kind_steps(project: str, nodes: Sequence[Node], created: dict[str, str], chunk: int) -> Iterator[Step]:
    """The statements setting each node's kind and its kind label, by the element id its CREATE
    returned, one kind per statement (a label cannot be a parameter): to run in
    transactions after the one that created the node (in the same one, they would not move
    `kind` to the chain's head)."""
    latest = _latest(nodes)
    _check_created(latest.keys(), created)
    by_kind: dict[str, list[Node]] = {}
    for node in latest.values():
        by_kind.setdefault(node.kind, []).append(node)
    for kind, group in sorted(by_kind.items()):
        text = SET_KINDS.replace("{label}", set_kind_label(kind))
        for part in chunks(group, chunk):  # a chunk's rows only: the nodes are the batch's own
            yield text, {"project": project, "rows": [[created[node.id], kind] for node in part]}, len(part)


def _check_created(ids: Iterable[str], created: dict[str, str]) -> None:
    missing = set(ids) - created.keys()
    if missing:
        raise RuntimeError(f"{len(missing)} staged nodes were not reported created (e.g. {min(missing)!r})")


def _latest(nodes: Sequence[Node]) -> dict[str, Node]:
    """One node per id, the last one winning as successive MERGEs would."""
    return {node.id: node for node in nodes}


def _node_values(node: Node) -> list[Any]:
    row = rows.node_row(node)  # checks the node
    return [row[name] for name in _FIRST_PASS]


def _edge_values(edge: Edge, created: dict[str, str]) -> list[Any]:
    return [
        created[edge.source],
        created[edge.target],
        edge.confidence,
        float(edge.confidence_score),
        edge.explanation,
        edge.file,
        edge.line,
        dict(edge.properties) if edge.properties else {},
    ]


def by_relation(edges: Iterable[Edge]) -> dict[str, list[Edge]]:
    groups: dict[str, list[Edge]] = {}
    for edge in edges:
        groups.setdefault(edge.relation, []).append(edge)
    return groups


def chunks(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
