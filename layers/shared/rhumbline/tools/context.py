"""context: one file's context bundle — its definitions, imports both ways, the knowledge-layer
documents about it, and annotations. What an agent reads before editing a file."""

from __future__ import annotations

from pydantic import BaseModel, Field

from rhumbline.lookup import markdown as md
from rhumbline.lookup.views import FORMAT_FIELD, Annotation, Definition, Format, Link, Listing
from rhumbline.runtime.context import ToolContext
from rhumbline.tools.common import StrictInput, project_field
from rhumbline.tools.registry import ToolSpec

MAX_DEFINITIONS = 200
MAX_LINKS = 100
MAX_MODULES = 10
DOCSTRING_CHARS = 200  # per definition: a file can hold hundreds


class ContextInput(StrictInput):
    file: str = Field(
        min_length=1,
        max_length=4096,
        description="Path of the file relative to the repository root (`django/db/models/query.py`); an "
        "absolute path on the ingested machine or a unique tail of the path (`models/query.py`) works too.",
    )
    project: str | None = project_field()
    format: Format = FORMAT_FIELD


class FileInfo(BaseModel):
    id: str
    path: str
    language: str | None
    lines: int | None
    content_hash: str | None


class ContextOutput(BaseModel):
    project: str
    format: Format
    markdown: str | None = Field(default=None, description="format=markdown: the whole bundle as text.")
    file: FileInfo | None = None
    definitions: Listing[Definition] | None = Field(
        default=None, description=f"Everything the file defines, by line; at most {MAX_DEFINITIONS}."
    )
    imports: Listing[Link] | None = Field(default=None, description="What the file imports (resolved targets).")
    imported_by: Listing[Link] | None = Field(
        default=None, description="Who imports the file, its module or a definition listed here."
    )
    documented_by: Listing[Link] | None = Field(
        default=None, description="Knowledge-layer nodes (documents, ADRs, concepts, rules) about this file's code."
    )
    documents: Listing[Link] | None = Field(
        default=None, description="For a documentation file: the code its sections document."
    )
    annotations: Listing[Annotation] | None = None


def run(arguments: ContextInput, context: ToolContext) -> ContextOutput:
    from rhumbline.lookup import annotations
    from rhumbline.lookup.kinds import DEFINITION_KINDS
    from rhumbline.lookup.names import resolve_file
    from rhumbline.lookup.views import definition, links
    from rhumbline.tools.common import KNOWLEDGE_KINDS
    from rhumbline.tools.graph_common import overlapped

    project = context.project(arguments.project)
    graph = context.graph
    node = resolve_file(context, project, arguments.file)
    path = node.file or node.qualified_name
    # One read for the definitions and the file's module: a module starts at line 1, so it is
    # among the first rows whatever the cap.
    found, found_total = graph.nodes_in_file(
        project, path, kinds=(*DEFINITION_KINDS, "Module"), limit=MAX_DEFINITIONS + MAX_MODULES
    )
    modules = [n for n in found if n.kind == "Module"]
    defined = [n for n in found if n.kind != "Module"][:MAX_DEFINITIONS]
    defined_total = found_total - len(modules)
    own = [node.id, *(m.id for m in modules)]
    subjects = own + [d.id for d in defined]
    sections = [d.id for d in defined if d.kind in KNOWLEDGE_KINDS]
    # Two reads for the four lists: who imports or documents anything here, and what the file
    # imports or its documentation sections document.
    relations = ["DOCUMENTS", "IMPORTS"]
    # Independent reads: on Neo4j their round trips overlap (on SQLite they run inline).
    pending_in = overlapped(
        graph.backend, graph.edges_around, project, subjects, "in", relations=relations, limit=MAX_LINKS
    )
    pending_out = overlapped(
        graph.backend, graph.edges_around, project, own + sections, "out", relations=relations, limit=MAX_LINKS
    )
    annotated = annotations.for_nodes(context, project, subjects)
    inward, outward = pending_in.result(), pending_out.result()
    output = ContextOutput(
        project=project,
        format=arguments.format,
        file=FileInfo(
            id=node.id, path=path, language=node.language, lines=node.end_line, content_hash=node.content_hash
        ),
        definitions=Listing[Definition](
            items=[definition(d, docstring_chars=DOCSTRING_CHARS) for d in defined], total=defined_total
        ),
        imports=links(outward.get("IMPORTS")),
        imported_by=links(inward.get("IMPORTS")),
        documented_by=links(inward.get("DOCUMENTS")),
        documents=links(outward.get("DOCUMENTS")),
        annotations=annotated,
    )
    if arguments.format == "markdown":
        text = render(output, modules=[m.qualified_name for m in modules])
        return ContextOutput(project=project, format="markdown", markdown=text)
    return output


def render(bundle: ContextOutput, *, modules: list[str]) -> str:
    file = bundle.file
    assert file is not None
    facts = ", ".join(part for part in (file.language, f"{file.lines} lines" if file.lines else None) if part)
    head = [f"# {file.path}" + (f" ({facts})" if facts else ""), f"project {bundle.project}"]
    if modules:
        head.append(f"module {', '.join(f'`{m}`' for m in modules)}")
    prefixes = tuple(m + "." for m in modules)

    def local(item: Definition) -> str:
        name = item.qualified_name
        for prefix in prefixes:
            if name.startswith(prefix):
                name = name[len(prefix) :]
                break
        span = f"{item.line}-{item.end_line}" if item.line and item.end_line else str(item.line or "")
        text = f"- {span} {item.kind} `{name}`"
        if item.signature and item.signature != name:
            text += f" — `{md.first_line(item.signature, 100)}`"
        doc = md.first_line(item.docstring)
        return text + (f" — {doc}" if doc else "")

    return md.document(
        [
            head,
            md.section("Definitions", bundle.definitions, local, limit=60),
            md.section("Imports", bundle.imports, md.link_line),
            md.section("Imported by", bundle.imported_by, md.link_line),
            md.section("Documented by", bundle.documented_by, lambda i: md.link_line(i, show_about=True)),
            md.section("Documents", bundle.documents, lambda i: md.link_line(i, show_about=True)),
            md.section("Annotations", bundle.annotations, md.annotation_line),
        ]
    )


SPEC = ToolSpec(
    name="context",
    title="A file's context",
    description=(
        "Everything an agent needs before editing one file: the file node, every definition in it "
        "(kind, qualified name, lines, signature, docstring), what it imports (resolved targets) and who "
        "imports it, knowledge-layer documents (docs, ADRs, concepts, rules) about its code, and "
        "annotations (CONTRIBUTED). Lists are capped with exact totals. `format: markdown` returns the "
        "same bundle as compact text."
    ),
    input_model=ContextInput,
    output_model=ContextOutput,
    run=run,
)
