"""blast_radius: what depends on a node, ranked by betweenness centrality.

Dependents are found by reverse reachability over dependency relations (incoming CALLS, IMPORTS,
INHERITS, IMPLEMENTS, REFERENCES; outgoing DECORATES) up to `depth` hops. A container counts with
what it defines: a class's blast radius includes the callers of its methods, a file's includes the
users of its functions and classes (members are the start, at distance 0, and not listed).

Ranking: betweenness of each dependent in the project's dependency graph (how much of the graph's
dependency traffic flows through it: a change there spreads furthest), then distance, then id.
The scores are computed once per graph version (rhumbline.centrality), never per call.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from rhumbline.lookup.views import NodeRef, node_ref
from rhumbline.runtime.context import ToolContext
from rhumbline.runtime.spec import ToolSpec
from rhumbline.tools.common import StrictInput, project_field
from rhumbline.tools.graph_common import cursor_field, label, query_of, resolve_node

DEFAULT_LIMIT = 50
MAX_LIMIT = 200
MEMBER_DEPTH = 3  # file -> class -> method -> nested function
# Kinds whose blast radius includes their members'.
CONTAINERS = frozenset({"File", "Class", "Interface", "Trait", "Struct", "Enum"})


class BlastRadiusInput(StrictInput):
    project: str | None = project_field()
    node_id: str = Field(min_length=1, max_length=2000, description="A node id, or a name naming one node.")
    depth: int = Field(default=2, ge=1, le=4, description="Hops of dependency followed backwards.")
    limit: int = Field(default=DEFAULT_LIMIT, ge=1, le=MAX_LIMIT, description="Impacted nodes listed per call.")
    cursor: str | None = cursor_field()


class Impacted(BaseModel):
    id: str
    label: str = Field(description="Qualified name.")
    kind: str
    file: str | None
    line: int | None
    distance: int = Field(description="Dependency hops from the node (or one of its members).")
    betweenness: float = Field(description="Normalized betweenness centrality in the dependency graph.")


class Centrality(BaseModel):
    graph: str = Field(description="Which graph version the scores describe.")
    exact: bool = Field(description="False: estimated from a sample of sources (large graphs).")
    sources: int
    computed_at: datetime | None


class BlastRadiusOutput(BaseModel):
    project: str
    node_id: str
    node: NodeRef
    depth: int
    members: int = Field(description="Nodes the node defines, whose dependents are included (not listed).")
    impacted: list[Impacted] = Field(description="By betweenness (highest first), then distance, then id.")
    total: int = Field(description="Exact number of impacted nodes within `depth`.")
    offset: int
    next_cursor: str | None
    centrality: Centrality


def run(arguments: BlastRadiusInput, context: ToolContext) -> BlastRadiusOutput:
    from rhumbline import centrality
    from rhumbline.tools import cursors

    project = context.project(arguments.project)
    graph = context.graph
    node = resolve_node(context, project, arguments.node_id, argument="node_id")
    query = query_of(arguments, project)
    version = graph.graph_version(project)
    offset = 0
    if arguments.cursor:
        offset = cursors.offset(cursors.read(context, "blast_radius", query, arguments.cursor, graph_version=version), "offset")
    start = {node.id: 0}
    if node.kind in CONTAINERS:
        start = graph.reach(project, [node.id], legs=[("out", ["DEFINES"])], depth=MEMBER_DEPTH)
    found = graph.reach(project, sorted(start), legs=centrality.DEPENDENTS, depth=arguments.depth)
    dependents = {i: d for i, d in found.items() if i not in start}
    budget = min(centrality.LAZY_SECONDS, context.remaining() / 2)
    scores = centrality.scores(graph, context.engine, project, seconds=budget, version=version)
    ranked = sorted(dependents, key=lambda i: (-scores.of(i), dependents[i], i))
    page = ranked[offset : offset + arguments.limit]
    nodes = graph.nodes(project, page)
    impacted = [
        Impacted(
            id=i, label=label(nodes[i]), kind=nodes[i].kind, file=nodes[i].file, line=nodes[i].start_line,
            distance=dependents[i], betweenness=scores.of(i),
        )  # fmt: skip
        for i in page
        if i in nodes
    ]
    end = offset + len(page)
    next_cursor = None
    if end < len(ranked):
        next_cursor = cursors.issue(context, "blast_radius", query, {"offset": end}, graph_version=version)
    return BlastRadiusOutput(
        project=project, node_id=node.id, node=node_ref(node), depth=arguments.depth, members=len(start) - 1,
        impacted=impacted, total=len(ranked), offset=offset, next_cursor=next_cursor,
        centrality=Centrality(graph=scores.key, exact=scores.exact, sources=scores.sources, computed_at=scores.computed_at),
    )  # fmt: skip


SPEC = ToolSpec(
    name="blast_radius",
    families=("exploration",),
    title="What depends on a node",
    description=(
        "Everything that depends on a node (callers, importers, subclasses, references, decorated "
        "functions — and for a class or file, those of its members) up to `depth` hops (default 2, "
        "max 4), ranked by betweenness centrality in the dependency graph, capped with an exact total; "
        "`next_cursor` continues."
    ),
    input_model=BlastRadiusInput,
    output_model=BlastRadiusOutput,
    run=run,
)
