"""The hosted graph store: Neo4j 5 over Bolt with the official driver (imported lazily).

Model: `(:CodeNode:Function {project, id, kind, name, ...})` (labelled by kind too, for a kind of
vocabulary.NODE_KINDS: the schema agents expect), relationships typed by relation with
properties {project, confidence, confidence_score, explanation, file, line}. An edge is keyed by
(source, relation, target): writing it again updates it. An edge may name an end with no node
(dangling, as in the SQLite backend); Neo4j needs a node at each end, so the missing end is a
*stub*: a CodeNode with only project and id (no kind). Stubs are invisible to get_node, search,
find_by_name and counts; `edges_of` reports them with kind "Unknown" and the id as name, like the
SQLite backend; a later node with that id fills the stub in; remove_files deletes stubs left
without relationships.

Physical graphs: a full (clearing) write is staged under a key of its own in bounded
transactions and flipped in one small transaction (staged.py); reads go to the project's active
physical key (client.py, keys.py). Incremental writes go in place, in one transaction, into the
active physical graph.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any

from rhumbline.stores.graph import rows
from rhumbline.stores.graph.model import Direction, Edge, EdgeView, GraphBatch, GraphCounts, Node, NodeEdges
from rhumbline.stores.graph.neo4j import cypher, staged
from rhumbline.stores.graph.neo4j.bulk import by_relation, chunks
from rhumbline.stores.graph.neo4j.keys import GUARD_MANY, HEAD_SCHEMA, is_moved
from rhumbline.stores.graph.neo4j.lookups import Neo4jLookups
from rhumbline.stores.graph.neo4j.node_bundle import Neo4jNodeBundle
from rhumbline.stores.graph.neo4j.writers import check_writers
from rhumbline.stores.graph.protocol import GraphConflict, GraphStore
from rhumbline.stores.graph import ranking
from rhumbline.stores.graph.ranking import Probe, SearchPlan, SearchRow

if TYPE_CHECKING:
    from neo4j import Transaction

# Rows per UNWIND statement: big enough to amortize round trips, small enough for tx memory.
WRITE_CHUNK = 2_000
# A clearing write's CREATE rows (list-shaped, no Eager plan): fewer, larger round trips.
BULK_CHUNK = 10_000
# Rows per transaction of a staged (clearing) write: small enough that a transaction fits a
# server's usual db.memory.transaction.max (RHUMBLINE_NEO4J_TX_ROWS lowers it for smaller ones).
TX_ROWS = 50_000
# Concurrent transactions of a staged write (writers.py): RHUMBLINE_NEO4J_WRITERS, at most
# writers.MAX_WRITERS. The write is bound by the server's CPU: more writers than its cores queue.
WRITERS = 4


# The connection: client.py; nodes_in_file, edges_around, degrees, file_bundle: lookups.py;
# node_bundle: node_bundle.py; traversals and file_rows: GraphStore (protocol.py).
class Neo4jGraphStore(Neo4jLookups, Neo4jNodeBundle, GraphStore):
    backend = "neo4j"

    def __init__(
        self, uri: str, user: str, password: str, *, database: str = "neo4j", timeout: float = 10.0,
        tx_rows: int = TX_ROWS, namespace: str = "", writers: int = WRITERS,
    ) -> None:  # fmt: skip
        if tx_rows < 1:
            raise ValueError(f"tx_rows must be at least 1, not {tx_rows}")
        self.tx_rows = tx_rows
        self.writers = check_writers(writers)
        super().__init__(uri, user, password, database=database, timeout=timeout, namespace=namespace)

    # -- schema and writes ----------------------------------------------------------------------

    def ensure_schema(self) -> None:
        with self._guard(self._timeout), self._session(write=True) as session:
            # IF NOT EXISTS keeps an index of an older definition: replace the full-text one, and
            # drop the ones an older version created (each write would keep them up to date).
            found = {
                record["name"]: tuple(record["properties"])
                for record in session.run(
                    self._neo4j.Query("SHOW FULLTEXT INDEXES YIELD name, properties", timeout=self._timeout)
                )
            }
            stale = [name for name in cypher.RETIRED_FULLTEXT_INDEXES if name in found]
            if found.get(cypher.FULLTEXT_INDEX, cypher.FULLTEXT_PROPERTIES) != cypher.FULLTEXT_PROPERTIES:
                stale.append(cypher.FULLTEXT_INDEX)
            for name in stale:
                session.run(self._neo4j.Query(f"DROP INDEX `{name}` IF EXISTS", timeout=self._timeout)).consume()
            for statement in (*cypher.SCHEMA, *HEAD_SCHEMA):
                session.run(self._neo4j.Query(statement, timeout=self._timeout)).consume()
            # A new full-text index answers queries only once it is populated.
            session.run(
                self._neo4j.Query(f"CALL db.awaitIndexes({int(self._timeout)})", timeout=self._timeout)
            ).consume()

    def apply(self, project: str, batch: GraphBatch) -> None:
        if batch.clear:
            staged.write_staged(self, project, batch, tx_rows=self.tx_rows, chunk=BULK_CHUNK, writers=self.writers)
            return
        # Readers never wait on it, and the project's lease keeps other ingests out: the same
        # bound against a hung server, not a slow one, as a staged write's.
        budget = max(staged.BACKGROUND_WRITE_FLOOR_SECONDS, rows.write_budget(self._timeout, batch))
        with (
            self._guard(budget),
            self._session(write=True) as session,
            session.begin_transaction(timeout=budget) as tx,
        ):
            # The head's lock first: no flip can move the project while this writes in place.
            name, graph = project, self._keys.namespace.graph(project)
            project = tx.run(staged.LOCK_HEAD, graph=graph).single(strict=True)["active"]
            if batch.expect_version is not None:
                tx.run(cypher.LOCK_STAMP, project=project).consume()
                found = tx.run(cypher.GET_STAMP, project=project).single()
                stamp = found["version"] if found else None
                if stamp != batch.expect_version:
                    raise GraphConflict(
                        f"the graph of {name} is at version {stamp},"
                        f" not {batch.expect_version}: nothing written"
                    )
            if batch.remove_files:
                self._remove_files(tx, project, list(batch.remove_files))
            if batch.remove_edges:
                keys = [list(key) for key in batch.remove_edges]
                ends = sorted({end for key in keys for end in (key[0], key[2])})
                for chunk in chunks(keys, WRITE_CHUNK):
                    tx.run(cypher.REMOVE_EDGES, project=project, keys=chunk).consume()
                for chunk in chunks(ends, WRITE_CHUNK):
                    tx.run(cypher.DELETE_LONELY_STUBS, project=project, ids=chunk).consume()
            if batch.remove_nodes:
                ids = list(batch.remove_nodes)
                stubs = tx.run(cypher.STUBS_NEXT_TO_NODES, project=project, ids=ids).single(strict=True)
                for chunk in chunks(ids, WRITE_CHUNK):
                    tx.run(cypher.DELETE_NODES, project=project, ids=chunk).consume()
                if stubs["ids"]:
                    tx.run(cypher.DELETE_LONELY_STUBS, project=project, ids=stubs["ids"]).consume()
            if batch.version is not None:
                tx.run(cypher.SET_STAMP, project=project, graph=graph, version=batch.version).consume()
            self._upsert(tx, project, batch)
            tx.commit()
        self._keys.learn(name, project)

    def _upsert(self, tx: Transaction, project: str, batch: GraphBatch) -> None:
        """Nodes and edges into a project that may hold them already: MERGE."""
        by_kind: dict[str, list[Node]] = {}
        # Grouped by kind, a node given twice keeps its last version, as successive MERGEs would.
        for node in {node.id: node for node in batch.nodes}.values():
            by_kind.setdefault(node.kind, []).append(node)
        for kind, nodes in sorted(by_kind.items()):
            text = cypher.UPSERT_NODES + cypher.relabel(kind)  # a node's kind may have changed
            for chunk in chunks(nodes, WRITE_CHUNK):
                tx.run(text, project=project, rows=[rows.node_row(n) for n in chunk]).consume()
        ends = {end for e in batch.edges for end in (e.source, e.target)}
        for chunk in chunks(sorted(e for e in ends if isinstance(e, str) and e), WRITE_CHUNK):
            tx.run(cypher.ADD_ENDS, project=project, ids=chunk).consume()
        for relation, edges in by_relation(batch.edges).items():
            text = cypher.UPSERT_EDGES.replace("{relation}", rows.check_relation(relation))
            for chunk in chunks(edges, WRITE_CHUNK):
                edge_rows = [_edge_params(edge, project) for edge in chunk]
                tx.run(text, project=project, rows=edge_rows).consume()

    def _remove_files(self, tx: Transaction, project: str, files: list[str]) -> None:
        stubs = tx.run(cypher.STUBS_NEXT_TO_FILES, project=project, files=files).single(strict=True)
        tx.run(cypher.DELETE_FILES, project=project, files=files).consume()
        if stubs["ids"]:
            tx.run(cypher.DELETE_LONELY_STUBS, project=project, ids=stubs["ids"]).consume()

    def delete_project(self, project: str) -> None:
        staged.delete_all(self, project)

    def graph_version(self, project: str) -> int | None:
        found = self._read(cypher.GET_STAMP, project=project)
        return found[0]["version"] if found else None

    # -- reads ----------------------------------------------------------------------------------

    def get_node(self, project: str, node_id: str) -> Node | None:
        found = self._read(cypher.GET_NODE, project=project, id=node_id)
        return rows.node_from_row(found[0]["node"]) if found else None

    def _edges_of(
        self, project: str, node_id: str, direction: Direction, limit: int, offset: int
    ) -> tuple[list[EdgeView], int]:
        pattern, count_pattern = cypher.EDGE_PATTERNS[direction]
        text = cypher.EDGES_OF.format(pattern=pattern, count_pattern=count_pattern)
        found = self._read(text, project=project, id=node_id, limit=limit, offset=offset)
        if not found:
            return [], 0
        views = [_edge_view(direction, view) for view in found[0]["page"]]
        return views, found[0]["total"]

    def node_with_edges(
        self, project: str, node_id: str, *, limit: int, out_offset: int = 0, in_offset: int = 0
    ) -> NodeEdges | None:
        rows.check_page(limit, out_offset)
        rows.check_page(limit, in_offset)
        # One statement, one round trip, one snapshot: node, both pages, totals, stamp.
        found = self._read(
            cypher.NODE_WITH_EDGES, project=project, id=node_id, limit=limit, out_offset=out_offset, in_offset=in_offset
        )
        if not found:
            return None
        record = found[0]
        return NodeEdges(
            node=rows.node_from_row(record["node"]),
            outgoing=[_edge_view("out", view) for view in record["out_page"]],
            outgoing_total=record["out_total"],
            incoming=[_edge_view("in", view) for view in record["in_page"]],
            incoming_total=record["in_total"],
            version=record["version"],
        )

    def _searching(self, projects: Sequence[str], run: Callable[[dict[str, str]], list[Any]]) -> list[Any]:
        """`run(keys)` with the projects' physical keys (a Lucene query names them): once more on
        the new keys if a project was flipped meanwhile."""
        for attempt in (1, 2):
            keys = self._keys.active(list(projects))
            try:
                return run(keys)
            except self._neo4j.exceptions.Neo4jError as error:
                if attempt == 2 or not is_moved(error):
                    raise
                self._keys.forget(list(projects))
        raise AssertionError("unreachable")

    def _guarded(self, text: str, keys: dict[str, str], **params: Any) -> list[Any]:
        graphs = list(keys)
        return self._read_raw(
            GUARD_MANY + text, graphs=[self._keys.namespace.graph(g) for g in graphs],
            projects=[keys[g] for g in graphs], **params,
        )  # fmt: skip

    def _search_reader(self) -> AbstractContextManager[object]:
        # Each read is one auto-commit query: a transaction around two would cost a round trip more.
        return nullcontext()

    def _probe_counts(self, reader: object, projects: Sequence[str], probes: Sequence[Probe]) -> list[int]:
        if not probes:
            return []

        def run(keys: dict[str, str]) -> list[Any]:
            scope = cypher.lucene_scope(list(keys.values()))
            queries = [cypher.lucene_probe(p, scope) for p in probes]
            return self._guarded(cypher.PROBE_COUNTS, keys, probes=queries, cap=ranking.SELECTIVE + 1)

        return list(self._searching(projects, run)[0]["counts"])

    def _search_rows(
        self, reader: object, projects: Sequence[str], plan: SearchPlan, weighing: ranking.Weighing,
        kinds: Sequence[str] | None, names: bool,
    ) -> tuple[list[SearchRow], int]:  # fmt: skip
        def run(keys: dict[str, str]) -> list[Any]:
            scope = cypher.lucene_scope(list(keys.values()))
            return self._guarded(
                cypher.SEARCH_ROWS, keys,
                selecting=[[cypher.lucene_probe(p, scope), 1 << p.bit, w] for p, w in weighing.selecting],
                common=[[p.field, [f" {n} " for n in p.needles], 1 << p.bit] for p in weighing.common],
                names=names, q=plan.lower, typed=plan.typed, phrase=f" {plan.phrase}" if plan.phrase else None,
                phrase_words=plan.phrase,
                name_words=cypher.lucene_name_words(plan, scope), kinds=list(kinds) if kinds is not None else None,
                cut=ranking.CUT,
            )  # fmt: skip

        found = self._searching(projects, run)
        project = self._keys.namespace.project
        candidates = [
            SearchRow(rows.node_at(r["node"]), project(r["project"]) or r["project"], r["qn_length"], r["flags"],
                      r["search_class"], r["doc_len"], r["mask"], r["callers"])
            for r in found
        ]  # fmt: skip
        return candidates, found[0]["total"] if found else 0

    def find_by_name(
        self, project: str, name: str, *, kinds: Sequence[str] | None = None, limit: int = 20
    ) -> tuple[list[Node], int]:
        found = self._read(cypher.FIND_BY_NAME, project=project, **cypher.by_name_params(name, kinds, limit))[0]
        return [rows.node_at(n) for n in found["page"]], found["total"]

    def nodes_of_kind(
        self, project: str, kind: str, *, limit: int, offset: int = 0
    ) -> tuple[list[Node], int]:
        rows.check_page(limit, offset)
        found = self._read(cypher.NODES_OF_KIND, project=project, kind=kind, limit=limit, offset=offset)[0]
        return [rows.node_from_row(n) for n in found["page"]], found["total"]

    def counts(self, project: str) -> GraphCounts:
        with self._traversal_reader(project) as reader:  # both counts on one physical graph
            by_kind = {r["key"]: r["c"] for r in reader._run(cypher.COUNT_KINDS)}
            by_relation = {r["key"]: r["c"] for r in reader._run(cypher.COUNT_RELATIONS)}
        return GraphCounts.of(by_kind, by_relation)


def _edge_params(edge: Edge, project: str) -> dict[str, Any]:
    # Every property of the relationship, set at once (`SET r = ...`): extra properties an
    # earlier write left are dropped, as SQLite replaces the whole row.
    stored = {**(edge.properties or {}), **rows.edge_properties(edge), "project": project}
    return {"source": edge.source, "target": edge.target, "properties": stored}


def _edge_view(direction: Direction, view: dict[str, Any]) -> EdgeView:
    stored = view.pop("properties")
    return EdgeView(direction=direction, properties=cypher.extra_properties(stored), **view)
