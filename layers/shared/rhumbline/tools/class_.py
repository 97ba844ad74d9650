"""class: a class (or interface, trait, struct, enum) by bare or qualified name — its hierarchy
both ways across files, its methods with their callers count, decorators and references."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from rhumbline.lookup import markdown as md
from rhumbline.lookup.views import FORMAT_FIELD, Annotation, Definition, Format, Link, Listing
from rhumbline.lookup.walks import RECURSION_FIELD, Step, StepListing, step_line
from rhumbline.runtime.context import ToolContext
from rhumbline.runtime.spec import ToolSpec
from rhumbline.tools.common import StrictInput, project_field
from rhumbline.tools.source_text import INCLUDE_SOURCE_FIELD, SourceMissing, SourceText, markdown_block

if TYPE_CHECKING:
    from rhumbline.stores.graph.model import Node

HIERARCHY_DEPTH = 10
DEFAULT_LIMIT = 20
MAX_LIMIT = 200
MAX_MEMBERS = 1_000  # DEFINES edges read to find the methods (a class never has more)
MEMBER_DOCSTRING_CHARS = 200
METHOD_KINDS = ("Method", "Function")  # the members listed under `methods`
# Incoming relations that say where a class is used, and how each reads.
REFERENCE_RELATIONS = {
    "CALLS": "instantiated",
    "INHERITS": "subclassed",
    "IMPLEMENTS": "implemented",
    "IMPORTS": "imported",
    "REFERENCES": "referenced",
}


class ClassInput(StrictInput):
    name: str = Field(
        min_length=1, max_length=1000, description="Bare (`QuerySet`), qualified (`django.db.models.QuerySet`) or a node id."
    )
    file: str | None = Field(default=None, max_length=4096, description="The file it is defined in, to disambiguate.")
    limit: int = Field(default=DEFAULT_LIMIT, ge=1, le=MAX_LIMIT, description="Items listed per section.")
    project: str | None = project_field()
    format: Format = FORMAT_FIELD
    include_source: bool = INCLUDE_SOURCE_FIELD


class Method(Definition):
    callers: int = Field(description="Exact number of direct callers (incoming CALLS edges, its own call included).")
    recursion: bool = RECURSION_FIELD


class Reference(Link):
    how: str = Field(description="instantiated, subclassed, implemented, imported or referenced.")


class ClassOutput(BaseModel):
    project: str
    format: Format
    markdown: str | None = Field(default=None, description="format=markdown: the whole answer as text.")
    node: Definition | None = None
    bases: StepListing | None = Field(default=None, description="Up the hierarchy, across files, nearest first.")
    unresolved_bases: list[str] | None = Field(default=None, description="Bases the ingest could not resolve.")
    subclasses: StepListing | None = Field(default=None, description="Known subclasses and implementers, all depths.")
    methods: Listing[Method] | None = None
    decorators: Listing[Link] | None = None
    references: Listing[Reference] | None = Field(
        default=None, description="Where it is instantiated, subclassed, imported or referenced."
    )
    documented_by: Listing[Link] | None = None
    annotations: Listing[Annotation] | None = None
    source: SourceText | SourceMissing | None = Field(
        default=None, description="include_source: its text, or why it is not available."
    )


def run(arguments: ClassInput, context: ToolContext) -> ClassOutput:
    from rhumbline.lookup import annotations
    from rhumbline.lookup.bundle import resolve_bundle
    from rhumbline.lookup.views import definition, link, links, merged
    from rhumbline.lookup.walks import listing, walk_for
    from rhumbline.stores.graph.model import Around, Keep
    from rhumbline.vocabulary import CLASS_KINDS, HIERARCHY_RELATIONS

    project = context.project(arguments.project)
    limit = arguments.limit
    # One read (on Neo4j one statement, the name lookup included): the first methods in source
    # order with their callers count (the other members are only counted) and their calls of
    # themselves, bases out, uses in, the hierarchy both ways.
    hierarchy = tuple(HIERARCHY_RELATIONS)
    node, bundle = resolve_bundle(
        context, project, arguments.name, kinds=CLASS_KINDS, file=arguments.file,
        noun="class", other_kind_hint=": use `function` for functions and methods, `explain` for anything else",
        around=[
            Around("out", ("DEFINES",), MAX_MEMBERS, far_degrees=("in", ("CALLS",)), keep=Keep(METHOD_KINDS, limit)),
            Around("out", hierarchy, MAX_MEMBERS),
            Around("in", (*REFERENCE_RELATIONS, "DECORATES", "DOCUMENTS"), limit),
        ],
        walks=[walk_for(way, hierarchy, depth=HIERARCHY_DEPTH, limit=limit) for way in ("out", "in")],
        loops=["CALLS"],
    )  # fmt: skip
    annotated = annotations.for_nodes(context, project, [node.id])
    defined, based, inward = bundle.around
    callers = bundle.far_degrees[0]
    stubs = [e for r in HIERARCHY_RELATIONS if r in based for e in based[r].edges if e.other is None]
    methods = [m.other for m in defined["DEFINES"].edges if m.other is not None] if "DEFINES" in defined else []
    used, used_total = merged(inward, list(REFERENCE_RELATIONS), limit)
    bases, subclasses = (listing(walked, depth=HIERARCHY_DEPTH, limit=limit) for walked in bundle.walks)
    answer = ClassOutput(
        project=project,
        format=arguments.format,
        node=definition(node),
        bases=bases,
        unresolved_bases=[s.edge.other_name for s in stubs],
        subclasses=subclasses,
        methods=Listing[Method](
            items=[
                definition(
                    m, docstring_chars=MEMBER_DOCSTRING_CHARS, model=Method, callers=callers.get(m.id, 0),
                    recursion=m.id in bundle.loops,
                )
                for m in methods
            ],
            total=bundle.kept[0].get("DEFINES", 0),
        ),
        decorators=links(inward.get("DECORATES")),
        references=Listing[Reference](
            items=[
                link(e.node_id, e.edge, e.other, model=Reference, how=REFERENCE_RELATIONS[e.edge.relation])
                for e in used
            ],
            total=used_total,
        ),
        documented_by=links(inward.get("DOCUMENTS")),
        annotations=annotated,
        source=_source(arguments, context, project, node),
    )
    if arguments.format == "markdown":
        return ClassOutput(project=project, format="markdown", markdown=render(answer))
    return answer


def _source(arguments: ClassInput, context: ToolContext, project: str, node: "Node") -> SourceText | SourceMissing | None:
    from rhumbline.tools.source_text import of_span

    if not arguments.include_source:
        return None
    return of_span(context, project, node.file, node.start_line, node.end_line)


def _method_line(item: Method) -> str:
    text = f"- {item.line or ''} `{item.signature or item.name}` — {item.callers} caller{'s' if item.callers != 1 else ''}"
    if item.recursion:
        text += " (recursion)"
    doc = md.first_line(item.docstring, 100)
    return text + (f" — {doc}" if doc else "")


def _reference_line(item: Reference) -> str:
    location = md.where(item.evidence_file, item.evidence_line)
    text = f"- {item.how} by {md.ref(item.node)}"
    if item.confidence != "EXTRACTED":
        text += f" {item.confidence.lower()}"
    return text + (f" @ {location}" if location else "")


def render(answer: ClassOutput) -> str:
    node = answer.node
    assert node is not None
    span = f"{node.line}-{node.end_line}" if node.line and node.end_line else str(node.line or "")
    head = [f"# {node.kind} `{node.qualified_name}` ({node.file}:{span})", f"project {answer.project}"]
    if node.signature:
        head.append(f"`{md.first_line(node.signature, 300)}`")
    if node.docstring:
        head.append("> " + md.first_line(node.docstring, 400))
    if answer.unresolved_bases:
        head.append("unresolved bases: " + ", ".join(f"`{b}`" for b in answer.unresolved_bases))

    def steps(listing: StepListing | None) -> Listing[Step] | None:
        return None if listing is None else Listing[Step](items=listing.items, total=listing.total)

    return md.document(
        [
            head,
            md.section("Bases", steps(answer.bases), step_line),
            md.section("Subclasses", steps(answer.subclasses), step_line),
            md.section("Methods", answer.methods, _method_line, limit=60),
            md.section("Decorators", answer.decorators, md.link_line),
            md.section("References", answer.references, _reference_line),
            md.section("Documented by", answer.documented_by, md.link_line),
            md.section("Annotations", answer.annotations, md.annotation_line),
            markdown_block(answer.source),
        ]
    )


SPEC = ToolSpec(
    name="class",
    families=("code",),
    title="A class and its hierarchy",
    description=(
        "A class (or interface, trait, struct, enum) by bare or qualified name or node id: its bases up "
        "the hierarchy across files, known subclasses, methods with their callers count, decorators, and "
        "references (where it is instantiated, subclassed, imported or referenced), each list capped with "
        "an exact total. When several match and no `file` is given, the error lists the candidates."
    ),
    input_model=ClassInput,
    output_model=ClassOutput,
    run=run,
)
