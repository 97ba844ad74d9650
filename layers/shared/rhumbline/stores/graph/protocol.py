"""What every graph backend provides: `GraphStore`, the base class both backends extend.

As in Powertools' idempotency persistence layers, the base class holds the logic the backends
share and each backend implements a small core. The core (the abstract methods) is the reads and
writes a backend answers natively, queries written for it. Composed here from the core, once for
both: the traversals (traversal.py's breadth-first logic over a backend's `Reader`) and the
bundles (several lookups answered as one). A backend may override a composed method to answer in
fewer statements, and must then give exactly what the composition gives
(tests/functional/stores/graph). The data (nodes, edges, batches, answers) is model.py's.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Literal

from rhumbline.stores.graph import dotted, ranking, rows, semantic, traversal, words
from rhumbline.stores.graph.bundles import checked_loops, cut_to_keep, file_rows_of
from rhumbline.stores.graph.model import (
    MAX_PAGE,
    MODULE,
    Around,
    Direction,
    Edge,
    EdgeView,
    FileBundle,
    FileQuery,
    FileRows,
    GraphBatch,
    GraphCounts,
    Leg,
    Node,
    NodeBundle,
    NodeEdges,
    PathResult,
    RelationEdges,
    SearchHit,
    Walk,
    WalkResult,
)
from rhumbline.stores.graph.traversal_paths import shortest_paths
from rhumbline.stores.graph.ranking import SearchPlan, SearchRow


class GraphUnavailable(Exception):
    """The backend could not be reached or did not answer in time."""


class GraphConflict(Exception):
    """A conditional batch (`expect_version`) found the graph at another version: nothing written."""


class GraphStore(ABC):
    """A graph backend: its abstract methods are what it answers natively; the rest is composed
    here from them."""

    backend: str
    # Search re-ranks its candidates by meaning too (semantic.py); the factory sets it from settings.
    semantic_ranking: bool = False

    # -- the core. Where the base class checks a read's arguments first, the backend implements
    # `_read` (its arguments checked) rather than `read`. ----------------------------------------

    @abstractmethod
    def ensure_schema(self) -> None:
        """Create tables/constraints/indexes if missing. Idempotent."""

    @abstractmethod
    def apply(self, project: str, batch: GraphBatch) -> None:
        """Write one batch atomically (see GraphBatch)."""

    @abstractmethod
    def graph_version(self, project: str) -> int | None:
        """The version stamp of the project's graph (see GraphBatch.version), None if unstamped."""

    @abstractmethod
    def delete_project(self, project: str) -> None: ...

    @abstractmethod
    def close(self) -> None: ...

    @abstractmethod
    def counts(self, project: str) -> GraphCounts: ...

    @abstractmethod
    def get_node(self, project: str, node_id: str) -> Node | None: ...

    def edges_of(
        self, project: str, node_id: str, direction: Direction, *, limit: int, offset: int = 0
    ) -> tuple[list[EdgeView], int]:
        """Edges on one side of a node, ordered by (relation, other_id), and their exact total."""
        rows.check_page(limit, offset)
        if direction not in ("in", "out"):
            raise ValueError(f"direction must be 'in' or 'out', not {direction!r}")
        return self._edges_of(project, node_id, direction, limit, offset)

    @abstractmethod
    def _edges_of(
        self, project: str, node_id: str, direction: Direction, limit: int, offset: int
    ) -> tuple[list[EdgeView], int]: ...

    @abstractmethod
    def node_with_edges(
        self, project: str, node_id: str, *, limit: int, out_offset: int = 0, in_offset: int = 0
    ) -> NodeEdges | None:
        """get_node + edges_of both ways + graph_version, in one snapshot (Neo4j: one statement);
        None if there is no such node."""

    def search(
        self, projects: Sequence[str], query: str, *, kinds: Sequence[str] | None = None, limit: int = 20,
        docs_only: bool = False,
    ) -> tuple[list[SearchHit], int]:  # fmt: skip
        """Rank (ranking.py): exact name > prefix or name phrase > relevance over names, qualified
        names, signatures, docstrings and paths (stemmed words, any of the query's, BM25-style,
        code synonyms). The best `limit` hits and the exact number of candidates. `docs_only`: only
        nodes whose docstring or document text holds a query word. A declaration without a body
        ranked under its implementation is one of that hit's `declarations`, not a hit."""
        plan = SearchPlan.parse(query)
        rows.check_page(limit)
        if not projects or (docs_only and not plan.groups):  # no word a docstring could hold
            return [], 0
        with self._search_reader() as reader:
            weighing = ranking.weigh(plan, self._probe_counts(reader, projects, plan.probes), docs_only=docs_only)
            if docs_only and not weighing.selecting:
                return [], 0
            found, total = self._search_rows(reader, projects, plan, weighing, kinds, not docs_only)
        if not docs_only:
            found, total = self._spelled_by_path(projects, plan, kinds, found, total)
        ranked = ranking.rank(plan, weighing, found)
        if self.semantic_ranking:
            ranked = semantic.rerank(plan.typed, ranked)
        hits = [
            SearchHit(
                project=r.row.project, node=r.row.node, score=r.score, match=ranking.match_of(r.score),
                declarations=tuple(d.row.node for d in declarations),
            )
            for r, declarations in ranking.grouped(ranked)[:limit]
        ]  # fmt: skip
        return hits, total

    def spelled_by_path(self, project: str, name: str, *, kinds: Sequence[str] | None = None) -> list[Node]:
        """The nodes whose file path spells the dotted `name` (dotted.py: `pkg.sub.mod.func` where
        the ingest named the module `mod`, namespace packages): looked up by the name's longest
        dotted suffix that finds any. None when `name` is not a dotted identifier."""
        for suffix in dotted.shorter_names(name):
            nodes = [n for n in self.find_by_name(project, suffix, kinds=kinds, limit=MAX_PAGE)[0] if dotted.spells(n, name)]
            if nodes:
                return nodes
        return []

    def _spelled_by_path(
        self, projects: Sequence[str], plan: SearchPlan, kinds: Sequence[str] | None, found: list[SearchRow],
        total: int,
    ) -> tuple[list[SearchRow], int]:  # fmt: skip
        """A dotted query no qualified name equals (`pkg.sub.mod.func` where the ingest named the
        module `mod`: namespace packages) is an exact match of the nodes its file path spells
        (spelled_by_path), per project."""
        if not dotted.shorter_names(plan.typed) or any(row.flags & ranking.FLAG_EXACT for row in found):
            return found, total
        spelled = {(p, n.id): n for p in projects for n in self.spelled_by_path(p, plan.typed, kinds=kinds)}
        if not spelled:
            return found, total
        kept = [
            row._replace(flags=row.flags | ranking.FLAG_EXACT) if (row.project, row.node.id) in spelled else row
            for row in found
        ]
        listed = {(row.project, row.node.id) for row in found}
        added = [
            SearchRow(node, project, len(node.qualified_name), ranking.FLAG_EXACT,
                      words.search_class(node.kind, node.file, node.name), 0, 0)
            for (project, node_id), node in spelled.items() if (project, node_id) not in listed
        ]  # fmt: skip
        return kept + added, total + len(added)

    @abstractmethod
    def _search_reader(self) -> AbstractContextManager[object]:
        """What _probe_counts and _search_rows read through: one snapshot where the backend can
        give one cheaply (SQLite: a read transaction)."""

    @abstractmethod
    def _probe_counts(self, reader: object, projects: Sequence[str], probes: Sequence[ranking.Probe]) -> list[int]:
        """How many of the projects' nodes match each probe (its field holds one of its needles
        as whole terms), at most ranking.SELECTIVE + 1 each."""

    @abstractmethod
    def _search_rows(
        self, reader: object, projects: Sequence[str], plan: SearchPlan, weighing: ranking.Weighing,
        kinds: Sequence[str] | None, names: bool,
    ) -> tuple[list[SearchRow], int]:  # fmt: skip
        """search's candidates (at least one project): the projects' nodes of the `kinds` (all
        when None) that match a probe of weighing.selecting, and with `names` the name matches
        (exact name or qualified name, name prefix, the query's words consecutive in the name).
        The best ranking.CUT of them by name tier (ranking.tier_of), then the sum of the weights of
        the selecting probes they match (descending), then qualified-name length, id and project,
        as SearchRows with their nodes: the bits of every probe they match (selecting and common),
        their name-match flags, the CALLS edges reaching them. And the exact number of candidates."""

    @abstractmethod
    def find_by_name(
        self, project: str, name: str, *, kinds: Sequence[str] | None = None, limit: int = 20
    ) -> tuple[list[Node], int]:
        """Nodes whose name or qualified name equals `name` (case-insensitive), or whose qualified
        name ends with `.name` (`QuerySet.filter` finds `django.db.models.query.QuerySet.filter`),
        or, for a knowledge node (a document or section), whose title has the typed name's letters
        and digits in order (words.title_key): a heading typed with any case, punctuation or markup.
        Shortest qualified name first, and their exact total."""

    @abstractmethod
    def nodes_of_kind(self, project: str, kind: str, *, limit: int, offset: int = 0) -> tuple[list[Node], int]:
        """A page of the project's nodes of one kind (e.g. every Contributor), ordered by id, and
        their exact total. Stubs are never listed."""

    @abstractmethod
    def nodes_in_file(
        self, project: str, path: str, *, kinds: Sequence[str] | None = None, limit: int, offset: int = 0
    ) -> tuple[list[Node], int]:
        """The nodes located in one file (`Node.file == path`) other than its File node, ordered
        by (start line, id), at most `limit` from `offset`, and their exact total. Stubs are never
        listed."""

    def edges_around(
        self, project: str, node_ids: Sequence[str], direction: Direction, *, relations: Sequence[str] | None = None,
        limit: int,
    ) -> dict[str, RelationEdges]:  # fmt: skip
        """Edges on one side of several nodes at once, grouped by relation (of `relations`; all
        when None; relations without edges left out): per relation the first `limit` by (node id,
        other id), each with the node at its far end, and their exact total. One round trip
        whatever the relations. At most MAX_PAGE ids."""
        rows.check_page(limit)
        rows.check_ids(node_ids, direction)
        if not node_ids:
            return {}
        return self._edges_around(project, node_ids, direction, relations, limit)

    @abstractmethod
    def _edges_around(
        self, project: str, node_ids: Sequence[str], direction: Direction, relations: Sequence[str] | None, limit: int
    ) -> dict[str, RelationEdges]:
        """edges_around, its arguments checked (at least one id)."""

    def degrees(
        self, project: str, node_ids: Sequence[str], direction: Direction, *, relations: Sequence[str] | None = None
    ) -> dict[str, dict[str, int]]:
        """How many edges each node has on one side, by relation (nodes with none are left out).
        At most MAX_PAGE ids."""
        rows.check_ids(node_ids, direction)
        if not node_ids:
            return {}
        found: dict[str, dict[str, int]] = {}
        for node_id, relation, count in self._degrees(project, node_ids, direction, relations):
            found.setdefault(node_id, {})[relation] = count
        return {node_id: dict(sorted(by.items())) for node_id, by in sorted(found.items())}

    @abstractmethod
    def _degrees(
        self, project: str, node_ids: Sequence[str], direction: Direction, relations: Sequence[str] | None
    ) -> Iterable[tuple[str, str, int]]:
        """(node id, relation, edge count) of each node with edges of that relation on that side,
        in no particular order: degrees, its arguments checked (at least one id)."""

    @abstractmethod
    def _traversal_reader(self, project: str) -> AbstractContextManager[traversal.Reader]:
        """A Reader over one snapshot of the project's graph, for a whole traversal."""

    # -- traversals: traversal.py's breadth-first logic over the backend's Reader ---------------

    def nodes(self, project: str, node_ids: Sequence[str]) -> dict[str, Node]:
        """The nodes among `node_ids` that exist (stubs left out), by id. At most traversal.MAX_IDS."""
        ids = traversal.checked_ids(node_ids)
        if not ids:
            return {}
        with self._traversal_reader(project) as reader:
            return reader.nodes(ids)

    def walk(
        self, project: str, start: Sequence[str], *, direction: Literal["in", "out", "both"], depth: int, limit: int,
        relations: Sequence[str] | None = None,
    ) -> WalkResult:  # fmt: skip
        """Breadth-first traversal from `start` over `relations` (all when None), each node once
        at its shortest distance. The primitive behind callers/callees, neighborhoods and blast
        radius; each level is one set-based read of the backend, never one per edge."""
        relations = traversal.check_walk(direction, depth, relations)
        _check_limit(limit, traversal.MAX_WALK_LIMIT)
        with self._traversal_reader(project) as reader:
            return traversal.walk(reader, traversal.checked_ids(start), direction, depth, limit, relations)

    def reach(self, project: str, start: Sequence[str], *, legs: Sequence[Leg], depth: int) -> dict[str, int]:
        """Every node reachable from `start` within `depth` hops over the `legs`, with its
        shortest distance (start nodes 0; unknown ids and stubs left out). Exact and complete:
        what `walk` computes, without the details, for callers that rank before they page."""
        if not legs:
            raise ValueError("reach needs at least one leg")
        checked = [(d, traversal.check_walk(d, depth, relations)) for d, relations in legs]
        with self._traversal_reader(project) as reader:
            starts = reader.nodes(traversal.checked_ids(start))
            found = traversal.bfs(reader, sorted(starts), checked, depth)
        return {node_id: step[0] for node_id, step in found.items()}

    def shortest_paths(
        self, project: str, source: str, target: str, *, direction: Literal["out", "both"], max_paths: int,
        max_depth: int, relations: Sequence[str] | None = None,
    ) -> PathResult:  # fmt: skip
        """Shortest paths from `source` to `target`: following edges forwards ("out") or either
        way ("both"), at most `max_depth` hops, level by level from both ends."""
        if direction not in ("out", "both"):
            raise ValueError(f"direction must be 'out' or 'both', not {direction!r}")
        relations = traversal.check_walk(direction, max_depth, relations)
        if not 1 <= max_paths <= traversal.MAX_PATHS:
            raise ValueError(f"max_paths must be between 1 and {traversal.MAX_PATHS}, not {max_paths}")
        with self._traversal_reader(project) as reader:
            return shortest_paths(reader, source, target, direction, max_paths, max_depth, relations)

    def edges_among(
        self, project: str, node_ids: Sequence[str], *, limit: int, relations: Sequence[str] | None = None
    ) -> tuple[list[Edge], int]:
        """The edges whose both ends are among `node_ids` (a subgraph's own edges), ordered by
        (source, relation, target), at most `limit`, and their exact total."""
        ids = traversal.checked_ids(node_ids)
        relations = traversal.check_walk("out", 0, relations)
        _check_limit(limit, traversal.MAX_WALK_LIMIT)
        with self._traversal_reader(project) as reader:
            keys = sorted(set(reader.among(ids, relations)) if relations is None or relations else ())
            return _edges(reader, keys[:limit]), len(keys)

    def edge_pairs(self, project: str, *, relations: Sequence[str], limit: int) -> tuple[list[tuple[str, str]], int]:
        """(source, target) of the project's edges of `relations` between real nodes, at most
        `limit`, and their exact total. For whole-graph analytics (centrality) computed off the
        request path, never for a tool's answer."""
        if not relations:
            raise ValueError("edge_pairs needs at least one relation")
        _check_limit(limit, traversal.MAX_EDGE_PAIRS)
        with self._traversal_reader(project) as reader:
            return reader.pairs(traversal.checked_relations(relations) or [], limit)

    # -- bundles: the code-context tools' reads as one ------------------------------------------

    def file_bundle(self, project: str, file_id: str, query: FileQuery) -> FileBundle | None:
        """`context`'s reads of a file (see FileQuery), from get_node, nodes_in_file, edges_around
        and graph_version; None if `file_id` is not a File node."""
        file = self.get_node(project, file_id)
        if file is None or file.kind != "File":
            return None
        path = file.file or file.qualified_name
        modules, _ = self.nodes_in_file(project, path, kinds=[MODULE], limit=query.module_limit)
        defined, total = self.nodes_in_file(
            project, path, kinds=query.definition_kinds, limit=query.limit, offset=query.offset
        )
        own = [file.id, *(m.id for m in modules)]
        inside = own + [d.id for d in defined]
        outside = own + [d.id for d in defined if d.kind in query.section_kinds]
        return FileBundle(
            file=file,
            modules=modules,
            definitions=defined,
            definitions_total=total,
            inward=self.edges_around(project, inside, "in", relations=query.relations, limit=query.link_limit),
            outward=self.edges_around(project, outside, "out", relations=query.relations, limit=query.link_limit),
            version=self.graph_version(project),
        )

    def file_rows(self, project: str, file_id: str, query: FileQuery) -> FileRows | None:
        """file_bundle with its definitions and links as plain tuples (FileRows)."""
        return file_rows_of(self.file_bundle(project, file_id, query))

    def node_bundle(
        self, project: str, node_id: str, *, around: Sequence[Around] = (), walks: Sequence[Walk] = (),
        loops: Sequence[str] = (),
    ) -> NodeBundle | None:  # fmt: skip
        """`function`'s, `class`'s and `explain`'s reads of a resolved node as one, from get_node,
        edges_around, degrees, walk and the edges among each of its nodes alone (`loops`: the
        relations of NodeBundle.loops); None if there is no such node."""
        loop_relations = checked_loops(loops)
        node = self.get_node(project, node_id)
        if node is None:
            return None
        grouped, counted, kept = [], [], []
        for spec in around:
            found = self.edges_around(project, [node.id], spec.direction, relations=spec.relations, limit=spec.limit)
            matched: dict[str, int] = {}
            if spec.keep is not None:
                found, matched = cut_to_keep(found, spec.keep)
            grouped.append(found)
            kept.append(matched)
            counted.append(self._far_degrees(project, found, spec.far_degrees))
        walked = [
            self.walk(project, [node.id], direction=w.direction, depth=w.depth, limit=w.limit, relations=w.relations)
            for w in walks
        ]
        ends = {e.other.id for found in grouped for group in found.values() for e in group.edges if e.other is not None}
        looped = self._loops(project, sorted(ends | {node.id}), loop_relations)
        return NodeBundle(node=node, around=grouped, far_degrees=counted, kept=kept, walks=walked, loops=looped)

    def _loops(self, project: str, ids: list[str], relations: list[str]) -> dict[str, list[Edge]]:
        """NodeBundle.loops of `ids`: an edge among one node alone is an edge to itself."""
        found: dict[str, list[Edge]] = {}
        if not relations:
            return found
        with self._traversal_reader(project) as reader:
            for start in range(0, len(ids), traversal.MAX_IDS):
                keys = sorted(k for k in reader.among(ids[start : start + traversal.MAX_IDS], relations) if k[0] == k[2])
                for loop in _edges(reader, keys):
                    found.setdefault(loop.source, []).append(loop)
        return dict(sorted(found.items()))

    def _far_degrees(
        self, project: str, found: dict[str, RelationEdges], asked: tuple[Direction, tuple[str, ...]] | None
    ) -> dict[str, int]:
        """An Around's `far_degrees`: the far ends' degrees that way, summed over the relations."""
        if asked is None:
            return {}
        direction, relations = asked
        ends = sorted({e.other.id for group in found.values() for e in group.edges if e.other is not None})
        counted: dict[str, int] = {}
        for start in range(0, len(ends), MAX_PAGE):
            by_relation = self.degrees(project, ends[start : start + MAX_PAGE], direction, relations=relations)
            counted.update({node_id: sum(by.values()) for node_id, by in by_relation.items()})
        return dict(sorted(counted.items()))


def _edges(reader: traversal.Reader, keys: Sequence[traversal.EdgeKey]) -> list[Edge]:
    """The edges of `keys`, in their order."""
    facts = reader.edges(keys)
    return [
        Edge(source=s, target=t, relation=r, confidence=f.confidence, confidence_score=f.confidence_score,
             explanation=f.explanation, file=f.file, line=f.line, properties=f.properties)
        for (s, r, t), f in ((key, facts[key]) for key in keys)
    ]  # fmt: skip


def _check_limit(limit: int, most: int) -> None:
    if not 1 <= limit <= most:
        raise ValueError(f"limit must be between 1 and {most}, not {limit}")
