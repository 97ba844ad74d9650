"""trace_path: the shortest paths between two nodes, with the evidence for every hop.

Directed first (following edges the way they point: calls, imports, inheritance...). When no
directed path exists within MAX_HOPS, undirected (any edge either way), and the answer says so:
an undirected path shows a connection, not a dependency chain. Paths run over code relations
(not the directory tree, which would connect everything through the repository root).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from rhumbline.lookup.views import NodeRef, node_ref
from rhumbline.runtime.context import ToolContext
from rhumbline.runtime.spec import ToolSpec
from rhumbline.tools.common import StrictInput, project_field
from rhumbline.tools.graph_common import CODE_RELATIONS, label, overlapped, resolve_node

MAX_HOPS = 8


class TracePathInput(StrictInput):
    project: str | None = project_field()
    from_node: str = Field(min_length=1, max_length=2000, description="Start: a node id, or a name naming one node.")
    to_node: str = Field(min_length=1, max_length=2000, description="End: a node id, or a name naming one node.")
    max_paths: int = Field(default=1, ge=1, le=5, description="Shortest paths listed (all of the same, shortest length).")


class Hop(BaseModel):
    source: str = Field(description="The edge's own source (a backward hop walks it from target to source).")
    target: str
    relation: str
    direction: Literal["forward", "backward"] = Field(description="forward: the path follows the edge's direction.")
    confidence: str
    confidence_score: float
    explanation: str
    source_location: str | None = Field(description="`file:line` of the evidence for this edge.")


class PathOut(BaseModel):
    nodes: list[NodeRef]
    edges: list[Hop]


class TracePathOutput(BaseModel):
    project: str
    # `from` is a Python keyword: the field is from_, named "from" on the wire and in the schema.
    from_: NodeRef = Field(alias="from")
    to: NodeRef
    direction: Literal["directed", "undirected", "none"] = Field(
        description="directed: edges followed their way; undirected: no directed path, any edge either way."
    )
    explanation: str
    length: int | None = Field(description="Hops of the shortest path(s); None when none was found.")
    total: int = Field(description="Exact number of distinct shortest paths (each edge choice counts).")
    paths: list[PathOut]

    model_config = ConfigDict(validate_by_name=True, serialize_by_alias=True)


def _location(file: str | None, line: int | None) -> str | None:
    if file is None:
        return None
    return f"{file}:{line}" if line is not None else file


def run(arguments: TracePathInput, context: ToolContext) -> TracePathOutput:
    project = context.project(arguments.project)
    graph = context.graph
    pending = overlapped(graph.backend, resolve_node, context, project, arguments.to_node, argument="to_node")
    start = resolve_node(context, project, arguments.from_node, argument="from_node")
    end = pending.result()
    found = graph.shortest_paths(
        project, start.id, end.id, direction="out", max_paths=arguments.max_paths, max_depth=MAX_HOPS,
        relations=CODE_RELATIONS,
    )  # fmt: skip
    direction = "directed"
    if found.length is None:
        found = graph.shortest_paths(
            project, start.id, end.id, direction="both", max_paths=arguments.max_paths, max_depth=MAX_HOPS,
            relations=CODE_RELATIONS,
        )  # fmt: skip
        direction = "undirected" if found.length is not None else "none"
    names = f"{label(start)} → {label(end)}"
    if direction == "directed":
        explanation = f"Followed edges in their direction from {names}: {found.length} hop(s)."
    elif direction == "undirected":
        explanation = (
            f"No directed path from {names} within {MAX_HOPS} hops; this path follows edges either way "
            f"(hops marked backward go against the edge), so it shows a connection, not a dependency chain."
        )
    else:
        explanation = f"No path between {names} within {MAX_HOPS} hops over code relations, in either direction."
        if found.limited:
            explanation += " The search stopped at its size bound before ruling one out."
    paths = [
        PathOut(
            nodes=[node_ref(n) for n in path.nodes],
            edges=[
                Hop(
                    source=h.source, target=h.target, relation=h.relation,
                    direction="forward" if h.forward else "backward", confidence=h.confidence,
                    confidence_score=h.confidence_score, explanation=h.explanation,
                    source_location=_location(h.file, h.line),
                )  # fmt: skip
                for h in path.hops
            ],
        )
        for path in found.paths
    ]
    return TracePathOutput(
        project=project, from_=node_ref(start), to=node_ref(end), direction=direction,  # type: ignore[arg-type]
        explanation=explanation, length=found.length, total=found.total, paths=paths,
    )  # fmt: skip


SPEC = ToolSpec(
    name="trace_path",
    families=("exploration",),
    title="Trace paths between two nodes",
    description=(
        "Shortest paths from one node to another (ids, or names that name one node), up to max_paths "
        "(default 1, max 5), each hop with relation, confidence, explanation and source location. "
        "Follows edges in their direction; when no directed path exists, falls back to an undirected "
        "path and says so."
    ),
    input_model=TracePathInput,
    output_model=TracePathOutput,
    run=run,
)
