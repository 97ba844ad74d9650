"""explain: any node by name — code or knowledge layer — with its direct neighborhood summarized,
the documents linked to it and its annotations. For when an agent does not know what a name is."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from rhumbline.lookup import markdown as md
from rhumbline.lookup.views import FORMAT_FIELD, Annotation, Definition, Format, Link, Listing, NodeRef
from rhumbline.runtime.context import ToolContext
from rhumbline.runtime.spec import ToolSpec
from rhumbline.tools.common import StrictInput, project_field
from rhumbline.vocabulary import KNOWLEDGE_KINDS

EXAMPLES = 5  # neighbors shown per (direction, relation)
MAX_DOCUMENTS = 50
DOCSTRING_CHARS = 2_000
# Linked documents have their own list; the neighborhood summarizes every other relation.
DOCUMENT_RELATION = "DOCUMENTS"


class ExplainInput(StrictInput):
    name: str = Field(
        min_length=1,
        max_length=1000,
        description="Any name: a function, class, module or file path, a concept, rule, decision, wiki page "
        "or document title or section heading (any case or punctuation), bare or qualified, or a node id.",
    )
    file: str | None = Field(default=None, max_length=4096, description="The file it is in, to disambiguate.")
    project: str | None = project_field()
    format: Format = FORMAT_FIELD


class RelationSummary(BaseModel):
    relation: str
    direction: Literal["in", "out"] = Field(description="in: other → this node; out: this node → other.")
    total: int = Field(description="Exact number of such edges.")
    examples: list[Link] = Field(description=f"The first {EXAMPLES} by id.")


class ExplainOutput(BaseModel):
    project: str
    format: Format
    markdown: str | None = Field(default=None, description="format=markdown: the whole answer as text.")
    node: Definition | None = None
    layer: Literal["code", "knowledge"] | None = None
    parent: NodeRef | None = Field(default=None, description="What defines or contains it.")
    neighborhood: list[RelationSummary] | None = Field(
        default=None, description="Every relation it has, each way, with a count and a few examples."
    )
    documents: Listing[Link] | None = Field(
        default=None,
        description="DOCUMENTS edges: knowledge nodes about it (in) or, for a knowledge node, the code it documents (out).",
    )
    annotations: Listing[Annotation] | None = None
    next: str | None = Field(default=None, description="The tool that tells more about this kind of node.")


def _next_step(kind: str) -> str:
    from rhumbline.vocabulary import CALLABLE_KINDS, CLASS_KINDS

    if kind in CALLABLE_KINDS:
        return "`function` for its callers and callees to a depth"
    if kind in CLASS_KINDS:
        return "`class` for its hierarchy, methods and references"
    if kind in ("File", "Module"):
        return "`context` with its file for every definition, import and linked document"
    if kind in KNOWLEDGE_KINDS:
        return "`search` with `all: true` for related knowledge; `context` on its file for the whole document"
    return "`get_node` with its id for every edge"


def run(arguments: ExplainInput, context: ToolContext) -> ExplainOutput:
    from rhumbline.lookup import annotations
    from rhumbline.lookup.bundle import resolve_bundle
    from rhumbline.lookup.views import definition, links
    from rhumbline.stores.graph.model import Around

    project = context.project(arguments.project)
    # One read (on Neo4j one statement, the name lookup included): per direction every
    # relation's exact count and first examples, and the linked documents (a page of
    # MAX_DOCUMENTS: when there are no more than EXAMPLES, the same edges as the examples).
    directions = ("in", "out")
    node, bundle = resolve_bundle(
        context, project, arguments.name, kinds=None, file=arguments.file,
        around=[Around(d, None, EXAMPLES) for d in directions]
        + [Around(d, (DOCUMENT_RELATION,), MAX_DOCUMENTS) for d in directions],
    )  # fmt: skip
    around = dict(zip(directions, bundle.around[:2]))
    neighborhood = [
        RelationSummary(relation=relation, direction=direction, total=group.total, examples=links(group).items)
        for direction, found in around.items()
        for relation, group in found.items()
        if relation != DOCUMENT_RELATION
    ]
    documented_by, documents = (links(found.get(DOCUMENT_RELATION)) for found in bundle.around[2:])
    answer = ExplainOutput(
        project=project,
        format=arguments.format,
        node=definition(node, docstring_chars=DOCSTRING_CHARS),
        layer="knowledge" if node.kind in KNOWLEDGE_KINDS else "code",
        parent=_parent(neighborhood),
        neighborhood=neighborhood,
        documents=Listing[Link](
            items=(documented_by.items + documents.items)[:MAX_DOCUMENTS], total=documented_by.total + documents.total
        ),
        annotations=annotations.for_nodes(context, project, [node.id]),
        next=_next_step(node.kind),
    )
    if arguments.format == "markdown":
        return ExplainOutput(project=project, format="markdown", markdown=render(answer))
    return answer


def _parent(neighborhood: list[RelationSummary]) -> NodeRef | None:
    """The first node that defines or contains it."""
    for relation in ("DEFINES", "CONTAINS"):
        for summary in neighborhood:
            if summary.direction == "in" and summary.relation == relation and summary.examples:
                return summary.examples[0].node
    return None


def render(answer: ExplainOutput) -> str:
    node = answer.node
    assert node is not None
    location = md.where(node.file, node.line)
    head = [f"# {node.kind} `{node.qualified_name}`" + (f" ({location})" if location else ""),
            f"project {answer.project} · {answer.layer} layer"]  # fmt: skip
    if node.signature:
        head.append(f"`{md.first_line(node.signature, 300)}`")
    if answer.parent is not None:
        head.append(f"in {md.ref(answer.parent)}")
    if node.docstring:
        head.extend("> " + line for line in node.docstring.strip().splitlines()[:6])
    around = ["## Neighborhood"] if answer.neighborhood else []
    for summary in answer.neighborhood or []:
        arrow = "←" if summary.direction == "in" else "→"
        names = ", ".join(f"`{md.title(e.node)}`" for e in summary.examples)
        more = f" … {summary.total - len(summary.examples)} more" if summary.total > len(summary.examples) else ""
        around.append(f"- {arrow} {summary.relation} ({summary.total}): {names}{more}")
    return md.document(
        [
            head,
            around,
            md.section("Documents", answer.documents, md.link_line),
            md.section("Annotations", answer.annotations, md.annotation_line),
            [f"next: {answer.next}"] if answer.next else [],
        ]
    )


SPEC = ToolSpec(
    name="explain",
    families=("code",),
    title="Explain any name",
    description=(
        "Universal lookup of any node by name — code (function, class, module, file) or knowledge layer "
        "(concept, rule, decision, wiki page, document) — or by node id: the node, its direct neighborhood "
        "summarized (each relation both ways with an exact count and a few examples), linked documents "
        "and annotations (CONTRIBUTED), plus which tool tells more. Use it when you do not know what kind "
        "of thing a name is. Several matches: the error lists the candidates."
    ),
    input_model=ExplainInput,
    output_model=ExplainOutput,
    run=run,
)
