"""function: a function or method by bare or qualified name — signature, docstring, decorators,
location, and its callers and callees to a depth."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from rhumbline.lookup import markdown as md
from rhumbline.lookup.views import FORMAT_FIELD, Annotation, Definition, Format, Link, Listing, NodeRef
from rhumbline.lookup.walks import Step, StepListing, step_line
from rhumbline.runtime.context import ToolContext
from rhumbline.runtime.spec import ToolSpec
from rhumbline.tools.common import StrictInput, project_field
from rhumbline.tools.source_text import INCLUDE_SOURCE_FIELD, SourceMissing, SourceText, markdown_block

if TYPE_CHECKING:
    from rhumbline.stores.graph.model import Node

MAX_DEPTH = 4
DEFAULT_LIMIT = 20
MAX_LIMIT = 200
MAX_LINKS = 50


class FunctionInput(StrictInput):
    name: str = Field(
        min_length=1,
        max_length=1000,
        description="Bare (`filter`), qualified (`QuerySet.filter`, `django.shortcuts.get_object_or_404`) "
        "or a node id.",
    )
    file: str | None = Field(default=None, max_length=4096, description="The file it is defined in, to disambiguate.")
    depth: int = Field(default=1, ge=1, le=MAX_DEPTH, description="How many call hops to follow each way.")
    limit: int = Field(default=DEFAULT_LIMIT, ge=1, le=MAX_LIMIT, description="Callers and callees listed each.")
    project: str | None = project_field()
    format: Format = FORMAT_FIELD
    include_source: bool = INCLUDE_SOURCE_FIELD


class FunctionOutput(BaseModel):
    project: str
    format: Format
    markdown: str | None = Field(default=None, description="format=markdown: the whole answer as text.")
    node: Definition | None = None
    owner: NodeRef | None = Field(default=None, description="The class, function or file that defines it.")
    decorators: Listing[Link] | None = Field(default=None, description="Resolved decorators applied to it.")
    callers: StepListing | None = Field(
        default=None, description="Who calls it, to `depth`; evidence = the call. A call of itself is listed first, "
        "marked `recursion`."
    )
    callees: StepListing | None = Field(default=None, description="What it calls, to `depth` (itself too: `recursion`).")
    documented_by: Listing[Link] | None = None
    annotations: Listing[Annotation] | None = None
    source: SourceText | SourceMissing | None = Field(
        default=None, description="include_source: its text, or why it is not available."
    )


def run(arguments: FunctionInput, context: ToolContext) -> FunctionOutput:
    from rhumbline.lookup import annotations
    from rhumbline.lookup.bundle import resolve_bundle
    from rhumbline.lookup.views import definition, links, node_ref
    from rhumbline.lookup.walks import listing, walk_for, with_recursion
    from rhumbline.stores.graph.model import Around
    from rhumbline.vocabulary import CALLABLE_KINDS

    project = context.project(arguments.project)
    depth, limit = arguments.depth, arguments.limit
    # One read (on Neo4j one statement, the name lookup included): owner, decorators and
    # documents in, callers and callees, and its call of itself.
    node, bundle = resolve_bundle(
        context, project, arguments.name, kinds=CALLABLE_KINDS, file=arguments.file,
        noun="function or method", other_kind_hint=": use `class` for classes, `explain` for anything else",
        around=[Around("in", ("DECORATES", "DEFINES", "DOCUMENTS"), MAX_LINKS)],
        walks=[walk_for(way, ["CALLS"], depth=depth, limit=limit) for way in ("in", "out")], loops=["CALLS"],
    )  # fmt: skip
    annotated = annotations.for_nodes(context, project, [node.id])
    [inward] = bundle.around
    loops = bundle.loops.get(node.id)  # one at most: a CALLS edge from it to itself
    call_of_itself = loops[0] if loops else None
    callers, callees = (
        with_recursion(listing(walked, depth=depth, limit=limit), node, call_of_itself, limit=limit)
        for walked in bundle.walks
    )
    owners = inward.get("DEFINES")
    owner = owners.edges[0].other if owners else None
    answer = FunctionOutput(
        project=project,
        format=arguments.format,
        node=definition(node),
        owner=node_ref(owner) if owner is not None else None,
        decorators=links(inward.get("DECORATES")),
        callers=callers,
        callees=callees,
        documented_by=links(inward.get("DOCUMENTS")),
        annotations=annotated,
        source=_source(arguments, context, project, node),
    )
    if arguments.format == "markdown":
        return FunctionOutput(project=project, format="markdown", markdown=render(answer))
    return answer


def _source(arguments: FunctionInput, context: ToolContext, project: str, node: "Node") -> SourceText | SourceMissing | None:
    from rhumbline.tools.source_text import of_span

    if not arguments.include_source:
        return None
    return of_span(context, project, node.file, node.start_line, node.end_line)


def render(answer: FunctionOutput) -> str:
    node = answer.node
    assert node is not None
    span = f"{node.line}-{node.end_line}" if node.line and node.end_line else str(node.line or "")
    head = [f"# {node.kind} `{node.qualified_name}` ({node.file}:{span})", f"project {answer.project}"]
    if node.signature:
        head.append(f"`{md.first_line(node.signature, 300)}`")
    if answer.owner is not None:
        head.append(f"defined in {md.ref(answer.owner)}")
    if node.docstring:
        head.append("> " + md.first_line(node.docstring, 400))
    blocks = [head, md.section("Decorators", answer.decorators, md.link_line)]
    for title, listing in (("Callers", answer.callers), ("Callees", answer.callees)):
        assert listing is not None
        shown = Listing[Step](items=listing.items, total=listing.total)
        blocks.append(md.section(f"{title} (depth ≤ {listing.depth})", shown, step_line, limit=40))
    blocks.append(md.section("Documented by", answer.documented_by, md.link_line))
    blocks.append(md.section("Annotations", answer.annotations, md.annotation_line))
    blocks.append(markdown_block(answer.source))
    return md.document(blocks)


SPEC = ToolSpec(
    name="function",
    families=("code",),
    title="A function or method",
    description=(
        "A function or method by bare or qualified name (`filter`, `QuerySet.filter`, "
        "`django.shortcuts.get_object_or_404`) or node id: signature, docstring, decorators, location, "
        "and its callers and callees to `depth` (1-4), each with qualified name, file, the line of the "
        "call, depth, confidence and explanation; capped with exact totals. When several match and no "
        "`file` is given, the error lists the candidates instead of guessing."
    ),
    input_model=FunctionInput,
    output_model=FunctionOutput,
    run=run,
)
