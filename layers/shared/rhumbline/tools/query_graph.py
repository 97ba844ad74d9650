"""query_graph: the neighborhood of a question — full-text seeds expanded breadth-first.

Deterministic, no LLM: seeds are the best search hits for the question (or, when no node matches
every word, for its words one by one); the neighborhood is a breadth-first walk from the seeds in
both directions over code relations, depth 1, or 2 when depth 1 leaves room under `max_nodes`;
the edges are the subgraph's own edges. The summary says which seeds, which nodes are the most
connected in this neighborhood, and what was cut.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from rhumbline.runtime.context import ToolContext
from rhumbline.runtime.spec import ToolSpec
from rhumbline.tools.common import StrictInput, project_field
from rhumbline.tools.graph_common import CODE_RELATIONS, label, overlapped
from rhumbline.vocabulary import KNOWLEDGE_KINDS, NAMED_CODE_KINDS

MAX_SEEDS = 5
MAX_WORDS = 8
MAX_EDGES = 300
MAX_DEPTH = 2
CENTRAL_LISTED = 5
# Words of a question that name nothing in code.
_STOPWORDS = frozenset(
    "a about after all an and any are as at be been by can could did do does for from get gets "
    "has have how i if in into is it its me my of on or our should so than that the their them "
    "then there these they this to use used uses using was we what when where which who why will "
    "with work works would you your".split()
)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


class QueryGraphInput(StrictInput):
    project: str | None = project_field()
    question: str = Field(min_length=1, max_length=500, description="What to look at, in words or names.")
    max_nodes: int = Field(default=30, ge=1, le=100)


class GraphNode(BaseModel):
    id: str
    kind: str
    name: str
    qualified_name: str
    file: str | None
    line: int | None
    depth: int = Field(description="Hops from the nearest seed (0: a seed).")
    seed: bool
    annotation_count: int


class GraphEdge(BaseModel):
    source: str
    target: str
    relation: str
    confidence: str
    explanation: str


class QueryGraphOutput(BaseModel):
    project: str
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    nodes_total: int = Field(description="Exact number of nodes within `depth` of the seeds.")
    edges_total: int = Field(description="Exact number of edges among the listed nodes.")
    depth: int
    summary: str


def _words(question: str) -> list[str]:
    seen: list[str] = []
    for word in _WORD.findall(question):
        if len(word) >= 3 and word.lower() not in _STOPWORDS and word.lower() not in (w.lower() for w in seen):
            seen.append(word)
    return seen[:MAX_WORDS]


def _search(graph, project: str, text: str, kinds: list[str], limit: int) -> list:  # type: ignore[no-untyped-def]
    try:
        return graph.search([project], text, kinds=kinds, limit=limit)[0]
    except ValueError:  # nothing searchable in the text
        return []


def _seeds(context: ToolContext, project: str, question: str, count: int) -> tuple[list, str]:
    """The seed nodes and how they were found: the whole question's best hits, topped up with
    each word's (on Neo4j the searches run side by side: they are independent round trips)."""
    graph = context.graph
    kinds = list(NAMED_CODE_KINDS) + list(KNOWLEDGE_KINDS)
    # Word searches start with the whole question's on Neo4j (round trips overlap); on SQLite
    # (sub-millisecond reads) only when the whole question leaves room.
    eager = graph.backend == "neo4j"
    whole = overlapped(graph.backend, _search, graph, project, question, kinds, count)
    words = [overlapped(graph.backend, _search, graph, project, w, kinds, 3) for w in _words(question)] if eager else []
    hits = whole.result()
    if len(hits) >= count:
        return [hit.node for hit in hits], "matches for the whole question"
    if not eager:
        words = [overlapped(graph.backend, _search, graph, project, w, kinds, 3) for w in _words(question)]
    best: dict[str, tuple[float, object]] = {hit.node.id: (hit.score, hit.node) for hit in hits}
    for pending in words:
        for hit in pending.result():
            if hit.node.id not in best or best[hit.node.id][0] < hit.score:
                best[hit.node.id] = (hit.score, hit.node)
    ranked = sorted(best.values(), key=lambda item: (-item[0], len(item[1].qualified_name), item[1].id))  # type: ignore[attr-defined]
    how = "matches for the whole question" if hits else "matches for the question's words"
    return [node for _, node in ranked[:count]], how


def run(arguments: QueryGraphInput, context: ToolContext) -> QueryGraphOutput:
    from rhumbline import annotations
    from rhumbline.lookup.project_state import empty_project_failure

    project = context.project(arguments.project)
    graph = context.graph
    limit = arguments.max_nodes
    seeds, how = _seeds(context, project, arguments.question, min(MAX_SEEDS, limit))
    if not seeds:
        # A project with no graph at all is an error to report, not an empty neighbourhood.
        empty = empty_project_failure(context, project)
        if empty is not None:
            raise empty
        words = ", ".join(_words(arguments.question)) or arguments.question
        return QueryGraphOutput(
            project=project, nodes=[], edges=[], nodes_total=0, edges_total=0, depth=0,
            summary=f"No node matches the question (searched for: {words}); try `search` with a name.",
        )  # fmt: skip
    start = [node.id for node in seeds]
    depth = 1
    walked = graph.walk(project, start, direction="both", depth=1, limit=limit, relations=CODE_RELATIONS)
    if walked.total < limit:
        depth = MAX_DEPTH
        walked = graph.walk(project, start, direction="both", depth=depth, limit=limit, relations=CODE_RELATIONS)
    ids = [step.node.id for step in walked.steps]
    edges, edges_total = graph.edges_among(project, ids, limit=MAX_EDGES, relations=CODE_RELATIONS)
    with context.db() as session:
        counted = annotations.counts(session, project, ids)
    seed_ids = set(start)
    nodes = [
        GraphNode(
            id=s.node.id, kind=s.node.kind, name=s.node.name, qualified_name=s.node.qualified_name,
            file=s.node.file, line=s.node.start_line, depth=s.depth, seed=s.node.id in seed_ids,
            annotation_count=counted.get(s.node.id, 0),
        )  # fmt: skip
        for s in walked.steps
    ]
    listed = [
        GraphEdge(source=e.source, target=e.target, relation=e.relation, confidence=e.confidence, explanation=e.explanation)
        for e in edges
    ]
    summary = _summary(arguments.question, how, seeds, walked, depth, edges, edges_total, counted)
    return QueryGraphOutput(
        project=project, nodes=nodes, edges=listed, nodes_total=walked.total, edges_total=edges_total,
        depth=depth, summary=summary,
    )  # fmt: skip


def _summary(question, how, seeds, walked, depth, edges, edges_total, counted) -> str:  # type: ignore[no-untyped-def]
    by_id = {s.node.id: s.node for s in walked.steps}
    seed_text = "; ".join(f"{label(n)} ({n.kind})" for n in seeds)
    parts = [f"Seeds ({how}): {seed_text}."]
    parts.append(
        f"Neighborhood: {len(walked.steps)} of {walked.total} nodes within {depth} hop(s) of the seeds"
        f" (both directions, code relations), {len(edges)} of {edges_total} edges among them."
    )
    degree: dict[str, int] = {}
    for e in edges:
        degree[e.source] = degree.get(e.source, 0) + 1
        degree[e.target] = degree.get(e.target, 0) + 1
    central = sorted(degree.items(), key=lambda item: (-item[1], item[0]))[:CENTRAL_LISTED]
    if central:
        parts.append(
            "Most connected here: " + "; ".join(f"{label(by_id[i])} ({d} edges)" for i, d in central) + "."
        )
    if walked.truncated or len(edges) < edges_total:
        cut = []
        if walked.truncated:
            cut.append(f"{walked.total - len(walked.steps)} farther nodes (raise max_nodes, up to 100, or ask narrower)")
        if len(edges) < edges_total:
            cut.append(f"{edges_total - len(edges)} edges")
        parts.append("Cut: " + " and ".join(cut) + ".")
    else:
        parts.append("Nothing was cut.")
    annotated = sum(1 for s in walked.steps if counted.get(s.node.id))
    if annotated:
        parts.append(f"{annotated} node(s) carry annotations (see get_node).")
    return " ".join(parts)


SPEC = ToolSpec(
    name="query_graph",
    families=("exploration",),
    title="Explore the graph around a question",
    description=(
        "Seed nodes from a full-text search on the question, expanded breadth-first (both "
        "directions, code relations) to a small neighborhood: nodes (with depth and annotation "
        "count) and the edges among them, capped at max_nodes (default 30, max 100) with exact "
        "totals, plus a deterministic summary: the seeds, the most connected nodes, what was cut."
    ),
    input_model=QueryGraphInput,
    output_model=QueryGraphOutput,
    run=run,
)
