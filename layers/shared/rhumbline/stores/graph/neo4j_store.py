"""The hosted graph store: Neo4j 5 over Bolt with the official driver (imported lazily).

Model: `(:CodeNode {project, id, kind, name, ...})`, relationships typed by relation with
properties {project, confidence, confidence_score, explanation, file, line}. An edge is keyed by
(source, relation, target): writing it again updates it. An edge may name an end with no node
(dangling, as in the SQLite backend); Neo4j needs a node at each end, so the missing end is a
*stub*: a CodeNode with only project and id (no kind). Stubs are invisible to get_node, search,
find_by_name and counts; `edges_of` reports them with kind "Unknown" and the id as name, like the
SQLite backend; a later node with that id fills the stub in; remove_files deletes stubs left
without relationships.

Every query is bounded (a server-side transaction timeout), connecting is bounded by the driver's
connection timeouts, and connectivity problems and timeouts surface as GraphUnavailable.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from rhumbline.stores.graph import rows
from rhumbline.stores.graph.protocol import (
    Direction,
    Edge,
    EdgeView,
    GraphBatch,
    GraphCounts,
    GraphUnavailable,
    Node,
    SearchHit,
)
from rhumbline.stores.graph.words import (
    SCORE_EXACT,
    SCORE_FULLTEXT,
    SCORE_PREFIX,
    WEIGHT_NAME,
    WEIGHT_OTHER,
    WEIGHT_QUALIFIED_NAME,
    SearchQuery,
    match_of,
)

if TYPE_CHECKING:
    from neo4j import Session, Transaction

# Rows per UNWIND statement: big enough to amortize round trips, small enough for tx memory.
WRITE_CHUNK = 2_000
# The Lucene index is a boolean query: past this many projects, filter in Cypher only.
_MAX_PROJECT_CLAUSES = 100
FULLTEXT_INDEX = "code_node_text"
FULLTEXT_PROPERTIES = ("name_words", "words", "doc_words", "project")

# `n.id IS NOT NULL` lets the planner use the (project, id) constraint index for a project scan.
_SCHEMA = (
    "CREATE CONSTRAINT code_node_key IF NOT EXISTS FOR (n:CodeNode) REQUIRE (n.project, n.id) IS UNIQUE",
    "CREATE INDEX code_node_name IF NOT EXISTS FOR (n:CodeNode) ON (n.project, n.name_lower)",
    "CREATE INDEX code_node_qn IF NOT EXISTS FOR (n:CodeNode) ON (n.project, n.qn_lower)",
    "CREATE INDEX code_node_qn_rev IF NOT EXISTS FOR (n:CodeNode) ON (n.project, n.qn_rev)",
    "CREATE INDEX code_node_file IF NOT EXISTS FOR (n:CodeNode) ON (n.project, n.file)",
    # Whitespace analyzer: the indexed words are already split and lowercased (see words.py), so
    # Lucene tokenizes exactly as SQLite's FTS5 does and both backends match the same nodes.
    f"CREATE FULLTEXT INDEX {FULLTEXT_INDEX} IF NOT EXISTS FOR (n:CodeNode)"
    f" ON EACH [{', '.join('n.' + p for p in FULLTEXT_PROPERTIES)}]"
    " OPTIONS {indexConfig: {`fulltext.analyzer`: 'whitespace'}}",
)  # fmt: skip

_NODE_MAP = "{" + ", ".join(f".{f}" for f in rows.NODE_FIELDS) + "}"

# Explicit SETs: `SET n = row` would also write the MERGE keys, and the planner would then buffer
# every row (an Eager operator: all rows in transaction memory before the first write).
_UPSERT_NODES = (
    "UNWIND $rows AS row MERGE (n:CodeNode {project: $project, id: row.id}) SET "
    + ", ".join(f"n.{p} = row.{p}" for p in rows.NODE_PROPERTIES if p != "id")
)
# Both ends first, one MERGE per statement: MERGE-ing both ends of each edge in one statement
# makes the planner buffer every row (Eager) since one end may be the other's new node.
_ADD_ENDS = "UNWIND $ids AS id MERGE (:CodeNode {project: $project, id: id})"
_UPSERT_EDGES = """
UNWIND $rows AS row
MATCH (a:CodeNode {project: $project, id: row.source})
MATCH (b:CodeNode {project: $project, id: row.target})
MERGE (a)-[r:`{relation}`]->(b)
SET r.project = $project, r.confidence = row.confidence, r.confidence_score = row.confidence_score,
    r.explanation = row.explanation, r.file = row.file, r.line = row.line
"""
_CLEAR = "MATCH (n:CodeNode) WHERE n.project = $project AND n.id IS NOT NULL DETACH DELETE n"
_STUBS_NEXT_TO_FILES = """
MATCH (n:CodeNode) WHERE n.project = $project AND n.file IN $files
MATCH (n)--(m:CodeNode) WHERE m.kind IS NULL
RETURN collect(DISTINCT m.id) AS ids
"""
_DELETE_FILES = "MATCH (n:CodeNode) WHERE n.project = $project AND n.file IN $files DETACH DELETE n"
_DELETE_LONELY_STUBS = """
UNWIND $ids AS stub_id
MATCH (s:CodeNode {project: $project, id: stub_id})
WHERE s.kind IS NULL AND NOT EXISTS { (s)--() }
DELETE s
"""
_DELETE_PROJECT = """
MATCH (n:CodeNode) WHERE n.project = $project AND n.id IS NOT NULL
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS
"""
_NODE_COUNT = (
    "MATCH (n:CodeNode) WHERE n.project = $project AND n.id IS NOT NULL RETURN count(n) AS c"
)

_GET_NODE = f"""
MATCH (n:CodeNode {{project: $project, id: $id}}) WHERE n.kind IS NOT NULL
RETURN n {_NODE_MAP} AS node
"""
_EDGES_OF = """
MATCH (n:CodeNode {{project: $project, id: $id}})
CALL (n) {{
    MATCH (n){pattern}(m)
    WITH r, m ORDER BY type(r), m.id SKIP $offset LIMIT $limit
    RETURN collect({{
        relation: type(r), confidence: r.confidence, confidence_score: r.confidence_score,
        explanation: r.explanation, file: r.file, line: r.line, other_id: m.id,
        other_kind: coalesce(m.kind, 'Unknown'), other_name: coalesce(m.name, m.id)
    }}) AS page
}}
RETURN page, COUNT {{ (n){count_pattern}() }} AS total
"""
_EDGE_PATTERNS = {"out": ("-[r]->", "-->"), "in": ("<-[r]-", "<--")}

_NAME_CANDIDATES = """
    MATCH (n:CodeNode) WHERE n.project IN $projects AND n.name_lower = $q RETURN n
    UNION
    MATCH (n:CodeNode) WHERE n.project IN $projects AND n.qn_lower = $q RETURN n
    UNION
    MATCH (n:CodeNode) WHERE n.project IN $projects AND n.name_lower STARTS WITH $q RETURN n
"""
_FULLTEXT_CANDIDATES = f"""
    CALL db.index.fulltext.queryNodes('{FULLTEXT_INDEX}', $lucene) YIELD node AS n
    WHERE n.project IN $projects RETURN n
"""


def _search_cypher(candidates: str) -> str:
    """Score every candidate exactly as the SQLite backend does; count them; keep the best."""
    return f"""
CALL () {{ {candidates} }}
WITH n WHERE $kinds IS NULL OR n.kind IN $kinds
WITH n, reduce(s = 0.0, t IN $terms | s + CASE
        WHEN (' ' + n.name_words + ' ') CONTAINS (' ' + t + ' ') THEN {WEIGHT_NAME}
        WHEN (' ' + n.qn_words + ' ') CONTAINS (' ' + t + ' ') THEN {WEIGHT_QUALIFIED_NAME}
        ELSE {WEIGHT_OTHER} END) / $term_count AS s
WITH n, CASE
    WHEN n.name_lower = $q OR n.qn_lower = $q THEN {SCORE_EXACT}
    WHEN n.name_lower STARTS WITH $q
        OR ($phrase IS NOT NULL AND (' ' + n.name_words) CONTAINS (' ' + $phrase))
        THEN {SCORE_PREFIX}
    WHEN size($terms) > 0
        AND all(t IN $terms WHERE (' ' + n.words + ' ') CONTAINS (' ' + t + ' '))
        THEN {SCORE_FULLTEXT} + s / (1.0 + s)
    END AS score
WHERE score IS NOT NULL
WITH collect([n, score]) AS found
WITH found, size(found) AS total
UNWIND found AS hit
WITH total, hit[0] AS n, hit[1] AS score
ORDER BY score DESC, size(n.qualified_name), n.id, n.project
LIMIT $limit
RETURN total, n.project AS project, n {_NODE_MAP} AS node, score
"""


_SEARCH_NAMES = _search_cypher(_NAME_CANDIDATES)
_SEARCH_NAMES_AND_TEXT = _search_cypher(f"{_NAME_CANDIDATES} UNION {_FULLTEXT_CANDIDATES}")
_SEARCH_DOCS = _search_cypher(_FULLTEXT_CANDIDATES)

_FIND_BY_NAME = f"""
CALL () {{
    MATCH (n:CodeNode) WHERE n.project = $project AND n.name_lower = $name RETURN n
    UNION
    MATCH (n:CodeNode) WHERE n.project = $project AND n.qn_lower = $name RETURN n
    UNION
    MATCH (n:CodeNode) WHERE n.project = $project AND n.qn_rev STARTS WITH $suffix RETURN n
}}
WITH n WHERE $kinds IS NULL OR n.kind IN $kinds
WITH n ORDER BY size(n.qualified_name), n.id
WITH collect(n {_NODE_MAP}) AS found
RETURN size(found) AS total, found[0..$limit] AS page
"""
_COUNT_KINDS = """
MATCH (n:CodeNode) WHERE n.project = $project AND n.id IS NOT NULL AND n.kind IS NOT NULL
RETURN n.kind AS key, count(*) AS c
"""
_COUNT_RELATIONS = """
MATCH (n:CodeNode)-[r]->() WHERE n.project = $project AND n.id IS NOT NULL
RETURN type(r) AS key, count(*) AS c
"""


class Neo4jGraphStore:
    backend = "neo4j"

    def __init__(
        self,
        uri: str,
        user: str,
        password: str,
        *,
        database: str = "neo4j",
        timeout: float = 10.0,
    ) -> None:
        import neo4j

        self._neo4j = neo4j
        self._uri = uri
        self._database = database
        self._timeout = timeout
        # No connection yet: the driver connects on first use, bounded by these timeouts.
        # Auto-commit retries are off so that no call outlives its timeout; callers may retry.
        self._driver = neo4j.GraphDatabase.driver(
            uri,
            auth=(user, password),
            connection_timeout=timeout,
            connection_acquisition_timeout=timeout,
            disable_auto_commit_retries=True,
            notifications_min_severity="OFF",
        )

    # -- plumbing -------------------------------------------------------------------------------

    @contextmanager
    def _guard(self, seconds: float) -> Iterator[None]:
        """Turn connectivity failures and timeouts into GraphUnavailable with a specific message."""
        exceptions = self._neo4j.exceptions
        try:
            yield
        except (exceptions.ServiceUnavailable, exceptions.SessionExpired) as exc:
            raise GraphUnavailable(f"Neo4j at {self._uri} is unreachable: {exc}") from exc
        except exceptions.ConnectionAcquisitionTimeoutError as exc:
            raise GraphUnavailable(
                f"no connection to Neo4j at {self._uri} within {self._timeout:.1f} s"
            ) from exc
        except exceptions.AuthError as exc:
            raise GraphUnavailable(f"Neo4j at {self._uri} rejected the credentials") from exc
        except exceptions.Neo4jError as exc:
            code = exc.code or ""
            if "TransactionTimedOut" in code:
                raise GraphUnavailable(
                    f"Neo4j query exceeded its {seconds:.1f} s timeout"
                ) from exc
            if "OutOfMemory" in code:
                # Retrying the same batch fails the same way: say what to change.
                raise GraphUnavailable(
                    "the batch needs more memory than Neo4j allows one transaction"
                    " (db.memory.transaction.max): write it in smaller batches"
                ) from exc
            if isinstance(exc, exceptions.TransientError):
                raise GraphUnavailable(f"Neo4j transient failure, retry later: {exc}") from exc
            raise

    def _session(self, *, write: bool) -> Session:
        mode = self._neo4j.WRITE_ACCESS if write else self._neo4j.READ_ACCESS
        return self._driver.session(
            database=self._database,
            default_access_mode=mode,
            # Read-your-writes across sessions, should the server be a cluster.
            bookmark_manager=self._driver.execute_query_bookmark_manager,
        )

    def _read(self, text: str, **params: Any) -> list[Any]:
        """One auto-commit read query; all its records."""
        query = self._neo4j.Query(text, timeout=self._timeout)
        with self._guard(self._timeout), self._session(write=False) as session:
            return list(session.run(query, params))

    # -- schema and writes ----------------------------------------------------------------------

    def ensure_schema(self) -> None:
        with self._guard(self._timeout), self._session(write=True) as session:
            # IF NOT EXISTS keeps an index of an older definition: replace the full-text one.
            existing = session.run(
                self._neo4j.Query(
                    "SHOW FULLTEXT INDEXES YIELD name, properties WHERE name = $name"
                    " RETURN properties",
                    timeout=self._timeout,
                ),
                name=FULLTEXT_INDEX,
            ).single()
            if existing is not None and tuple(existing["properties"]) != FULLTEXT_PROPERTIES:
                session.run(self._neo4j.Query(f"DROP INDEX {FULLTEXT_INDEX}", timeout=self._timeout)).consume()
            for statement in _SCHEMA:
                session.run(self._neo4j.Query(statement, timeout=self._timeout)).consume()
            # A new full-text index answers queries only once it is populated.
            session.run(
                self._neo4j.Query(f"CALL db.awaitIndexes({int(self._timeout)})", timeout=self._timeout)
            ).consume()

    def apply(self, project: str, batch: GraphBatch) -> None:
        budget = rows.write_budget(self._timeout, batch)
        with (
            self._guard(budget),
            self._session(write=True) as session,
            session.begin_transaction(timeout=budget) as tx,
        ):
            if batch.clear:
                tx.run(_CLEAR, project=project).consume()
            elif batch.remove_files:
                self._remove_files(tx, project, list(batch.remove_files))
            for chunk in _chunks(batch.nodes):
                node_rows = [rows.node_row(n) for n in chunk]
                tx.run(_UPSERT_NODES, project=project, rows=node_rows).consume()
            ends = {end for e in batch.edges for end in (e.source, e.target)}
            for chunk in _chunks(sorted(e for e in ends if isinstance(e, str) and e)):
                tx.run(_ADD_ENDS, project=project, ids=chunk).consume()
            for relation, edges in _by_relation(batch.edges).items():
                text = _UPSERT_EDGES.replace("{relation}", rows.check_relation(relation))
                for chunk in _chunks(edges):
                    edge_rows = [_edge_params(edge) for edge in chunk]
                    tx.run(text, project=project, rows=edge_rows).consume()
            tx.commit()

    def _remove_files(self, tx: Transaction, project: str, files: list[str]) -> None:
        stubs = tx.run(_STUBS_NEXT_TO_FILES, project=project, files=files).single(strict=True)
        tx.run(_DELETE_FILES, project=project, files=files).consume()
        if stubs["ids"]:
            tx.run(_DELETE_LONELY_STUBS, project=project, ids=stubs["ids"]).consume()

    def delete_project(self, project: str) -> None:
        nodes = self._read(_NODE_COUNT, project=project)[0]["c"]
        # Batched deletes must run outside an explicit transaction (not atomic, by design:
        # a half-deleted project is still being deleted, and retrying finishes the job).
        budget = self._timeout + nodes / 1000 * rows.WRITE_SECONDS_PER_1000_ROWS * 5
        query = self._neo4j.Query(_DELETE_PROJECT, timeout=budget)
        with self._guard(budget), self._session(write=True) as session:
            session.run(query, project=project).consume()

    # -- reads ----------------------------------------------------------------------------------

    def get_node(self, project: str, node_id: str) -> Node | None:
        found = self._read(_GET_NODE, project=project, id=node_id)
        return rows.node_from_row(found[0]["node"]) if found else None

    def edges_of(
        self, project: str, node_id: str, direction: Direction, *, limit: int, offset: int = 0
    ) -> tuple[list[EdgeView], int]:
        rows.check_page(limit, offset)
        if direction not in _EDGE_PATTERNS:
            raise ValueError(f"direction must be 'in' or 'out', not {direction!r}")
        pattern, count_pattern = _EDGE_PATTERNS[direction]
        text = _EDGES_OF.format(pattern=pattern, count_pattern=count_pattern)
        found = self._read(text, project=project, id=node_id, limit=limit, offset=offset)
        if not found:
            return [], 0
        views = [EdgeView(direction=direction, **view) for view in found[0]["page"]]
        return views, found[0]["total"]

    def search(
        self,
        projects: Sequence[str],
        query: str,
        *,
        kinds: Sequence[str] | None = None,
        limit: int = 20,
        docs_only: bool = False,
    ) -> tuple[list[SearchHit], int]:
        parsed = SearchQuery.parse(query)
        rows.check_page(limit)
        lucene = _lucene_query(parsed, projects, docs_only=docs_only)
        if not projects or (docs_only and lucene is None):
            return [], 0
        if docs_only:
            text = _SEARCH_DOCS
        else:
            text = _SEARCH_NAMES_AND_TEXT if lucene else _SEARCH_NAMES
        found = self._read(
            text,
            projects=list(projects),
            kinds=list(kinds) if kinds is not None else None,
            q=parsed.lower,
            phrase=parsed.phrase,
            terms=list(parsed.terms),
            term_count=max(len(parsed.terms), 1),
            lucene=lucene,
            limit=limit,
        )
        hits = [
            SearchHit(
                project=r["project"],
                node=rows.node_from_row(r["node"]),
                score=r["score"],
                match=match_of(r["score"]),
            )
            for r in found
        ]
        return hits, found[0]["total"] if found else 0

    def find_by_name(
        self, project: str, name: str, *, kinds: Sequence[str] | None = None, limit: int = 20
    ) -> tuple[list[Node], int]:
        rows.check_page(limit)
        lowered = name.strip().lower()
        if not lowered:
            raise ValueError("name is empty")
        found = self._read(
            _FIND_BY_NAME,
            project=project,
            name=lowered,
            suffix=("." + lowered)[::-1],
            kinds=list(kinds) if kinds is not None else None,
            limit=limit,
        )[0]
        return [rows.node_from_row(n) for n in found["page"]], found["total"]

    def counts(self, project: str) -> GraphCounts:
        with (
            self._guard(self._timeout),
            self._session(write=False) as session,
            session.begin_transaction(timeout=self._timeout) as tx,
        ):
            by_kind = {r["key"]: r["c"] for r in tx.run(_COUNT_KINDS, project=project)}
            by_relation = {r["key"]: r["c"] for r in tx.run(_COUNT_RELATIONS, project=project)}
        return GraphCounts(
            nodes=sum(by_kind.values()),
            edges=sum(by_relation.values()),
            nodes_by_kind=dict(sorted(by_kind.items())),
            edges_by_relation=dict(sorted(by_relation.items())),
        )

    def close(self) -> None:
        self._driver.close()


def _chunks(items: Sequence[Any]) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), WRITE_CHUNK):
        yield items[start : start + WRITE_CHUNK]


def _by_relation(edges: Sequence[Edge]) -> dict[str, list[Edge]]:
    groups: dict[str, list[Edge]] = {}
    for edge in edges:
        groups.setdefault(edge.relation, []).append(edge)
    return groups


def _edge_params(edge: Edge) -> dict[str, Any]:
    return {"source": edge.source, "target": edge.target, **rows.edge_properties(edge)}


# Characters with a meaning in Lucene's query syntax. Query words are letters and digits only
# (words.py), so this is a second line of defence, not the first.
_LUCENE_SPECIAL = set('+-&|!(){}[]^"~*?:\\/')


def _lucene_escape(text: str) -> str:
    return "".join("\\" + c if c in _LUCENE_SPECIAL else c for c in text)


def _lucene_query(
    parsed: SearchQuery, projects: Sequence[str], *, docs_only: bool
) -> str | None:
    """Candidates: consecutive name words with the last as a prefix, or every query word (only
    docstring words with `docs_only`). Ranking is done in Cypher, exactly as in SQLite; Lucene
    only narrows the candidates."""
    if not parsed.terms or parsed.phrase is None:
        return None
    if docs_only:
        query = " ".join(f"+doc_words:{_lucene_escape(t)}" for t in parsed.terms)
    else:
        *leading, last = parsed.phrase.split(" ")
        name_words = " ".join(
            [
                *(f"+name_words:{_lucene_escape(w)}" for w in leading),
                f"+name_words:{_lucene_escape(last)}*",
            ]
        )
        every_term = " ".join(f"+words:{_lucene_escape(t)}" for t in parsed.terms)
        query = f"({name_words}) ({every_term})"
    if len(projects) > _MAX_PROJECT_CLAUSES:
        return query
    scope = " ".join(f'project:"{_lucene_escape(p)}"' for p in projects)
    return f"+({scope}) +({query})"
