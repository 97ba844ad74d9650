"""A full (clearing) write on Neo4j in transactions of bounded size, invisible until complete.

One transaction cannot hold a large repository (the server caps transaction memory:
`db.memory.transaction.max`, and a large repository's graph exceeds a usual setting). So:

1. *stage*: the new graph is written under a fresh physical key (`owner/name@<version>.<token>`,
   see keys.py) in transactions of at most `tx_rows` rows each: nodes and stubs, then edges,
   then the nodes' kinds, each phase in transactions of its own (bulk.py), a phase's
   transactions run by `writers` concurrent writers (writers.py): the write is bound by the
   server's CPU, so a server with more cores writes faster. A phase starts once the previous one
   has committed. Within one, the transactions write disjoint nodes (nodes, kinds) or create
   relationships, whose locks on shared end nodes may deadlock two writers: the server then
   fails one, and the driver's managed transaction runs it again (execute_write: on a transient
   error or a connection lost before the commit, never on a commit of unknown outcome, for at
   most the store's timeout). No reader resolves to the stage.
2. *flip*: one small transaction locks the project's GraphHead, checks the expected version if
   the batch has one, points the head at the staged key and marks the previous key retired.
3. *collect*: physical graphs retired more than RETIRED_GRACE_SECONDS ago are deleted in batched
   transactions. The graph retired by this flip stays: a reader that resolved its key before the
   flip (another Lambda container, mid-call) may still be reading it, so it goes at a later
   staged write at least the grace period after this one (or with `delete_project`).

A failure anywhere before the flip leaves the head where it was: readers keep the previous
version, complete. The staged key is then deleted at once (best effort: with a dead connection it
is left and collected by a later staged write, once older than STALE_STAGING_SECONDS, which no
running ingest can reach: Lambda stops at 15 minutes).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable, Iterator
from functools import partial
from typing import Any

from rhumbline.stores.graph import rows
from rhumbline.stores.graph.model import GraphBatch
from rhumbline.stores.graph.neo4j import cypher
from rhumbline.stores.graph.neo4j.bulk import WRITTEN, Step, created_ids, edge_steps, kind_steps, node_steps
from rhumbline.stores.graph.neo4j.client import Neo4jClient
from rhumbline.stores.graph.neo4j.writers import run_concurrently
from rhumbline.stores.graph.protocol import GraphConflict

logger = logging.getLogger(__name__)

# Longer than any read statement may run (the store's timeout, 10 s by default, and a tool call's
# 25 s bound): a reader bound to the retired key before the flip has finished by then.
RETIRED_GRACE_SECONDS = 300.0
# Longer than any ingest may run (a Lambda's 15-minute limit): an unflipped staging key this old
# belongs to a writer that died.
STALE_STAGING_SECONDS = 3600.0
# A staged graph before its flip, or a retired one being deleted, blocks no reader: its write is
# bounded against a hung server, not a slow one (a loaded machine or a cold server still finishes).
BACKGROUND_WRITE_FLOOR_SECONDS = 120.0

STAGE_STAMP = """
CREATE (m:GraphMeta {project: $project})
SET m.graph = $graph, m.version = $version, m.staged_at = timestamp()
"""
LOCK_HEAD = """
MERGE (h:GraphHead {project: $graph}) SET h.written_at = timestamp()
RETURN coalesce(h.active, $graph) AS active
"""
# The previous key is marked retired if it holds a graph (a project's first write retires none).
FLIP = """
MATCH (h:GraphHead {project: $graph}) SET h.active = $staged
WITH h WHERE EXISTS { MATCH (m:GraphMeta {project: $retired}) }
    OR EXISTS { MATCH (n:CodeNode) WHERE n.project = $retired AND n.id IS NOT NULL }
MERGE (old:GraphMeta {project: $retired}) SET old.graph = $graph, old.retired_at = timestamp()
"""
# A project's physical graphs no reader can be using: retired past the grace period, or staged
# and never flipped past the staleness bound. The active one is never listed.
COLLECTABLE = """
OPTIONAL MATCH (h:GraphHead {project: $graph})
WITH coalesce(h.active, $graph) AS active
MATCH (m:GraphMeta {graph: $graph}) WHERE m.project <> active
  AND (m.retired_at < timestamp() - $grace_ms
       OR (m.retired_at IS NULL AND m.staged_at < timestamp() - $stale_ms))
RETURN collect(m.project) AS keys
"""
# Every physical graph of a project, the active one included (delete_project).
ALL_KEYS = """
OPTIONAL MATCH (h:GraphHead {project: $graph})
OPTIONAL MATCH (m:GraphMeta {graph: $graph})
RETURN coalesce(h.active, $graph) AS active, collect(m.project) AS keys
"""
DELETE_HEAD = "MATCH (h:GraphHead {project: $graph}) DELETE h"
# A namespace's keys all start with its prefix; relationships never cross projects, so deleting
# its nodes (relationships first, in bounded transactions) leaves nothing of it behind.
DELETE_NAMESPACE = (
    """
    MATCH (n:CodeNode)-[r]->() WHERE n.project STARTS WITH $prefix
    CALL (r) { DELETE r } IN TRANSACTIONS OF 5000 ROWS
    """,
    """
    MATCH (n:CodeNode) WHERE n.project STARTS WITH $prefix
    CALL (n) { DELETE n } IN TRANSACTIONS OF 5000 ROWS
    """,
    "MATCH (m:GraphMeta) WHERE m.project STARTS WITH $prefix DELETE m",
    "MATCH (h:GraphHead) WHERE h.project STARTS WITH $prefix DELETE h",
)
# A stack's teardown may wait this long for its namespace to go (a custom resource has minutes).
NAMESPACE_DELETE_SECONDS = 300.0

def staging_key(graph: str, version: int | None) -> str:
    # The token keeps a retried version apart from its failed attempt's leftovers.
    return f"{graph}@{version if version is not None else 'x'}.{uuid.uuid4().hex[:8]}"

def write_staged(
    store: Neo4jClient, project: str, batch: GraphBatch, *, tx_rows: int, chunk: int, writers: int = 1
) -> str:
    """Stage, flip, collect (see the module doc); the new active physical key."""
    if batch.expect_version is not None:
        _check_version(store, project, batch.expect_version)  # fail before writing anything
    graph = store._keys.namespace.graph(project)
    staged = staging_key(graph, batch.version)
    run = partial(_run_transaction, store)
    try:
        stamp = (STAGE_STAMP, {"project": staged, "graph": graph, "version": batch.version}, 1)
        chunk = min(chunk, tx_rows)
        created: dict[str, str] = {}  # node id -> element id
        nodes = _transactions([stamp], node_steps(staged, batch.nodes, batch.edges, chunk), tx_rows)
        for records in run_concurrently(run, nodes, writers):
            created.update(created_ids(records))
        # Each phase once the previous one has committed (see bulk.py).
        edges = edge_steps(staged, batch.edges, created, chunk)
        kinds = kind_steps(staged, batch.nodes, created, chunk)
        for steps in (edges, kinds):
            for _ in run_concurrently(run, _transactions([], steps, tx_rows), writers):
                pass
        _flip(store, project, staged, batch.expect_version)
    except BaseException:
        _drop_quietly(store, staged)
        raise
    store._keys.learn(project, staged)
    collect(store, graph)
    return staged

def collect(store: Neo4jClient, graph: str, *, grace: float = RETIRED_GRACE_SECONDS) -> list[str]:
    """Delete the project's physical graphs no reader can be using; the keys deleted."""
    found = store._read_raw(
        COLLECTABLE, graph=graph, grace_ms=int(grace * 1000), stale_ms=int(STALE_STAGING_SECONDS * 1000)
    )
    keys = sorted(found[0]["keys"]) if found else []
    for key in keys:
        delete_physical(store, key)
    return keys

def delete_all(store: Neo4jClient, project: str) -> None:
    """Every physical graph of a project, then its head: the project is gone."""
    graph = store._keys.namespace.graph(project)
    found = store._read_raw(ALL_KEYS, graph=graph)[0]
    keys = {graph, found["active"], *found["keys"]}
    # The active graph first: readers then see the project emptying, never an older version.
    for key in sorted(keys, key=lambda k: k != found["active"]):
        delete_physical(store, key)
    with store._guard(store._timeout), store._session(write=True) as session:
        session.run(store._neo4j.Query(DELETE_HEAD, timeout=store._timeout), graph=graph).consume()
    store._keys.forget([project])


def delete_namespace(store: Neo4jClient) -> None:
    """Every graph of the store's namespace (a deleted stack's): nodes, stamps and heads."""
    prefix = store._keys.namespace.prefix
    if not prefix:
        raise ValueError("only a namespaced store can delete its namespace (this one owns the whole database)")
    budget = max(store._timeout, NAMESPACE_DELETE_SECONDS)
    with store._guard(budget), store._session(write=True) as session:
        for statement in DELETE_NAMESPACE:
            session.run(store._neo4j.Query(statement, timeout=budget), prefix=prefix).consume()
    store._keys.forget()

def delete_physical(store: Neo4jClient, key: str) -> None:
    """One physical graph and its stamp, in batched transactions (not atomic, by design: a
    half-deleted graph is one no reader uses, and retrying finishes the job)."""
    nodes = store._read_raw(cypher.NODE_COUNT, project=key)[0]["c"]
    # Relationships are deleted too: allow for about five times the nodes' rows.
    budget = max(BACKGROUND_WRITE_FLOOR_SECONDS, store._timeout + nodes / 1000 * rows.WRITE_SECONDS_PER_1000_ROWS * 5)
    with store._guard(budget), store._session(write=True) as session:
        for statement in cypher.DELETE_PROJECT:
            session.run(store._neo4j.Query(statement, timeout=budget), project=key).consume()
        session.run(store._neo4j.Query(cypher.DELETE_STAMP, timeout=budget), project=key).consume()


def _check_version(store: Neo4jClient, project: str, expected: int) -> None:
    found = store._read(cypher.GET_STAMP, project=project)  # guarded: never a stale key's stamp
    stamp = found[0]["version"] if found else None
    if stamp != expected:
        raise GraphConflict(f"the graph of {project} is at version {stamp}, not {expected}: nothing written")

def _flip(store: Neo4jClient, project: str, staged: str, expected: int | None) -> None:
    graph = store._keys.namespace.graph(project)
    with (
        store._guard(store._timeout),
        store._session(write=True) as session,
        session.begin_transaction(timeout=store._timeout) as tx,
    ):
        active = tx.run(LOCK_HEAD, graph=graph).single(strict=True)["active"]
        if expected is not None:
            # Under the head's lock: no in-place write can land between this check and the flip.
            found = tx.run(cypher.GET_STAMP, project=active).single()
            stamp = found["version"] if found else None
            if stamp != expected:
                raise GraphConflict(
                    f"the graph of {project} is at version {stamp}, not {expected}: nothing written"
                )
        tx.run(FLIP, graph=graph, staged=staged, retired=active).consume()
        tx.commit()

def _transactions(first: list[Step], steps: Iterable[Step], tx_rows: int) -> Iterator[list[Step]]:
    """Consecutive steps grouped into transactions of at most `tx_rows` rows (a step is never split)."""
    group, size = list(first), sum(step[2] for step in first)
    for step in steps:
        if group and size + step[2] > tx_rows:
            yield group
            group, size = [], 0
        group.append(step)
        size += step[2]
    if group:
        yield group

def _run_transaction(store: Neo4jClient, steps: list[Step]) -> list[Any]:
    """The steps in one transaction, committed (run again on a transient error such as a
    deadlock between two writers: see the module doc); the records they returned."""
    rows_in_steps = sum(s[2] for s in steps)
    budget = max(BACKGROUND_WRITE_FLOOR_SECONDS, store._timeout + rows_in_steps / 1000 * rows.WRITE_SECONDS_PER_1000_ROWS)

    def work(tx: Any) -> list[Any]:
        records: list[Any] = []
        for text, params, count in steps:
            found = list(tx.run(text, params))
            written = [record[WRITTEN] for record in found if WRITTEN in record.keys()]
            if written and written != [count]:
                # A node vanished mid-write (the stage deleted by delete_project): fail, never
                # flip to a graph missing edges or kinds.
                raise RuntimeError(
                    f"a staged write wrote {sum(written)} of {count} rows: its nodes changed meanwhile"
                )
            records += found
        return records

    try:
        with store._guard(budget), store._session(write=True) as session:
            return list(session.execute_write(store._neo4j.unit_of_work(timeout=budget)(work)))
    finally:
        # The driver keeps each query's result, and a copy of its parameters for the result's
        # summary, in a reference cycle; an ingest pauses the cyclic collector, so a whole graph's
        # rows would stay until it ends. The row lists themselves are shared: emptied once the
        # transaction is over, they go now.
        for _, params, _ in steps:
            for value in params.values():
                if isinstance(value, list):
                    value.clear()

def _drop_quietly(store: Neo4jClient, staged: str) -> None:
    """Remove a failed stage now if the server still answers; else a later collect does."""
    try:
        delete_physical(store, staged)
    except Exception as error:  # noqa: BLE001 - the write's own error is the one to raise
        # Served to no one; `collect` deletes it once STALE_STAGING_SECONDS have passed.
        logger.warning("could not drop the failed stage %s now (%s); a later full write collects it", staged, error)

