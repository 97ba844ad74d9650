"""query_graph: the neighbourhood of a question — its best search hits, grown by relevance.

Deterministic, no LLM. The question's words, less stop words, the project's own name (every node
of the project is "in" it) and words that name no particular code ("function", "code", ...), are
searched as `search` searches by default (its ranking over the named code: exact names, then
whole phrases in names, then BM25-style relevance); the best hits, those close to the first, are
the seeds. Around them, every node within
two hops (both directions, code relations) is a candidate, ranked by the certainty of the edge
that reaches it x its betweenness in the project (blast_radius's scores, relative to the
neighbourhood's most central node) x the share of the question's words its name and qualified
name hold, nearer first; the best fill `max_nodes`. The edges are the kept nodes' own edges. The
summary says which words were searched and which ignored, the seeds, how the rest was chosen, the
most connected nodes, and what was cut.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from rhumbline.runtime.context import ToolContext
from rhumbline.runtime.spec import ToolSpec
from rhumbline.tools.common import StrictInput, project_field
from rhumbline.tools.graph_common import CODE_RELATIONS, label
from rhumbline.tools.search import DEFAULT_KINDS

if TYPE_CHECKING:
    from rhumbline.stores.graph.model import Edge, Node, SearchHit, WalkResult, WalkStep

MAX_SEEDS = 5
# Hits this close to the best one's score (a tier is 1 wide, relevance within it 0.5) are seeds too.
SEED_SPAN = 0.15
SEARCH_LIMIT = 20
MAX_EDGES = 300
DEPTH = 2
# Nodes within DEPTH hops read for ranking: enough for a dense neighbourhood, bounded for a hub.
MAX_NEIGHBOURHOOD = 400
CENTRAL_LISTED = 5
_TOKEN = re.compile(r"[^\W_](?:[\w.]*[^\W_])?")
# Words of a question that name no particular code: searched for, they match everything a little.
GENERIC_WORDS = frozenset(
    "code codes function functions method methods class classes file files module modules implement implements "
    "implemented implementation logic happen happens work works thing things part parts project repository repo "
    "find show explain defined define definition place responsible".split()
)


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
    nodes_total: int = Field(description="Exact number of nodes within two hops of the seeds (code relations), seeds included.")
    edges_total: int = Field(description="Exact number of edges among the listed nodes.")
    depth: int
    summary: str


def _question(question: str, project: str) -> tuple[str, list[str]]:
    """The words to search for, and those left out with why."""
    from rhumbline.stores.graph import words

    own = set(words.split_words(project.split("/", 1)[-1]))
    kept, ignored = [], []
    # Identifiers stay whole and as typed (`get_or_create` keeps its `or`, `Metafunc` its case).
    for token in _TOKEN.findall(question):
        parts = words.split_words(token)
        if not parts:
            continue
        if not all(p in own or p in words.STOP_WORDS or p in GENERIC_WORDS for p in parts):
            kept.append(token)
        elif all(p in own for p in parts):
            ignored.append(f"{token} (the project's name)")
        elif all(p in GENERIC_WORDS for p in parts):
            ignored.append(f"{token} (names no particular code)")
        else:
            ignored.append(token)
    # A question of ignored words only is searched as it is, rather than not at all.
    return (" ".join(kept) if kept else question), list(dict.fromkeys(ignored))


def _seeds(context: ToolContext, project: str, text: str, count: int) -> list[SearchHit]:
    """`search`'s own first hits for the text: the same ranking over the same kinds (documents
    and sections seeding would fill the neighbourhood with what they mention, not the code)."""
    try:
        hits = context.graph.search([project], text, kinds=list(DEFAULT_KINDS), limit=SEARCH_LIMIT)[0]
    except ValueError:  # nothing searchable in the text
        return []
    if not hits:
        return []
    return [hit for hit in hits if hit.score >= hits[0].score - SEED_SPAN][:count]


def _relevance(node: Node, groups: tuple[tuple[str, ...], ...]) -> float:
    """The share of the question's term groups the node's name and qualified name hold."""
    from rhumbline.stores.graph import words

    if not groups:
        return 0.0
    held = {words.stem(w) for w in words.indexed_words(node.qualified_name)}
    return sum(1 for group in groups if held.intersection(group)) / len(groups)


def run(arguments: QueryGraphInput, context: ToolContext) -> QueryGraphOutput:
    from rhumbline import annotations, centrality
    from rhumbline.lookup.project_state import empty_project_failure
    from rhumbline.stores.graph.ranking import SearchPlan

    project = context.project(arguments.project)
    graph = context.graph
    limit = arguments.max_nodes
    text, ignored = _question(arguments.question, project)
    hits = _seeds(context, project, text, min(MAX_SEEDS, limit))
    if not hits:
        # A project with no graph at all is an error to report, not an empty neighbourhood.
        empty = empty_project_failure(context, project)
        if empty is not None:
            raise empty
        return QueryGraphOutput(
            project=project, nodes=[], edges=[], nodes_total=0, edges_total=0, depth=0,
            summary=f"No node matches the question (searched for: {text}); try `search` with a name.",
        )  # fmt: skip
    seeds = [hit.node for hit in hits]
    start = [node.id for node in seeds]
    walked = graph.walk(project, start, direction="both", depth=DEPTH, limit=MAX_NEIGHBOURHOOD, relations=CODE_RELATIONS)
    version = graph.graph_version(project)
    budget = min(centrality.LAZY_SECONDS, context.remaining() / 3)
    scores = centrality.scores(graph, context.engine, project, seconds=budget, version=version)
    groups = SearchPlan.parse(text).groups
    others = [s for s in walked.steps if s.depth > 0]
    top = max((scores.of(s.node.id) for s in others), default=0.0) or 1.0

    def weight(step: WalkStep) -> float:
        certainty = step.via.confidence_score if step.via is not None else 1.0
        return certainty * (1.0 + scores.of(step.node.id) / top) * (1.0 + 2.0 * _relevance(step.node, groups)) / step.depth

    chosen = sorted(others, key=lambda s: (-weight(s), s.depth, s.node.id))[: max(limit - len(seeds), 0)]
    steps = [s for s in walked.steps if s.depth == 0][:limit] + chosen
    ids = [step.node.id for step in steps]
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
        for s in steps
    ]
    listed = [
        GraphEdge(source=e.source, target=e.target, relation=e.relation, confidence=e.confidence, explanation=e.explanation)
        for e in edges
    ]
    summary = _summary(text, ignored, seeds, steps, walked, edges, edges_total, counted)
    return QueryGraphOutput(
        project=project, nodes=nodes, edges=listed, nodes_total=walked.total, edges_total=edges_total,
        depth=max((s.depth for s in steps), default=0), summary=summary,
    )  # fmt: skip


def _summary(
    text: str, ignored: list[str], seeds: list[Node], steps: list[WalkStep], walked: WalkResult, edges: list[Edge],
    edges_total: int, counted: dict[str, int],
) -> str:
    by_id = {s.node.id: s.node for s in steps}
    left_out = f" (left out: {', '.join(ignored)})" if ignored else ""
    seed_text = "; ".join(f"{label(n)} ({n.kind})" for n in seeds)
    parts = [
        f"Seeds: the best search hits for “{text}”{left_out}, those scoring close to the first: {seed_text}.",
        f"Neighbourhood: {len(steps)} of {walked.total} nodes within {DEPTH} hops of the seeds (both directions,"
        " code relations), the rest chosen by the certainty of the edge reaching them x their centrality x the"
        f" question's words in their names, nearer first; {len(edges)} of {edges_total} edges among them.",
    ]
    degree: dict[str, int] = {}
    for e in edges:
        degree[e.source] = degree.get(e.source, 0) + 1
        degree[e.target] = degree.get(e.target, 0) + 1
    central = sorted(degree.items(), key=lambda item: (-item[1], item[0]))[:CENTRAL_LISTED]
    if central:
        parts.append("Most connected here: " + "; ".join(f"{label(by_id[i])} ({d} edges)" for i, d in central) + ".")
    cut = []
    if len(steps) < walked.total:
        more = " (raise max_nodes, up to 100, or ask narrower)"
        cut.append(f"{walked.total - len(steps)} nodes{more}")
    if len(edges) < edges_total:
        cut.append(f"{edges_total - len(edges)} edges")
    parts.append("Cut: " + " and ".join(cut) + "." if cut else "Nothing was cut.")
    annotated = sum(1 for s in steps if counted.get(s.node.id))
    if annotated:
        parts.append(f"{annotated} node(s) carry annotations (see get_node).")
    return " ".join(parts)


SPEC = ToolSpec(
    name="query_graph",
    families=("exploration",),
    title="Explore the graph around a question",
    description=(
        "The neighbourhood of a question: seeds are its best search hits (stop words, the project's "
        "name and generic words left out), grown over code relations (both directions, two hops) by "
        "edge certainty x centrality x the question's words in the names: nodes (with depth and "
        "annotation count) and the edges among them, capped at max_nodes (default 30, max 100) with "
        "exact totals, and a deterministic summary: how the seeds were chosen, what was cut."
    ),
    input_model=QueryGraphInput,
    output_model=QueryGraphOutput,
    run=run,
)
