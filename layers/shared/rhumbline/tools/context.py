"""context: one file's context bundle — its definitions, imports both ways, the knowledge-layer
documents about it, and annotations. What an agent reads before editing a file."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from rhumbline.errors import NotFound
from rhumbline.lookup import markdown as md
from rhumbline.lookup.file_views import DocLink, FileDefinition, FileImport, FileImporter
from rhumbline.lookup.views import FORMAT_FIELD, Annotation, Format, Listing
from rhumbline.runtime.context import ToolContext
from rhumbline.runtime.spec import ToolSpec
from rhumbline.tools.common import StrictInput, project_field
from rhumbline.tools.graph_common import cursor_field, query_of
from rhumbline.vocabulary import DEFINITION_KINDS, KNOWLEDGE_KINDS

# Definitions per answer, continued with `next_cursor`: a large module (Django's query.py: 176)
# listed whole with docstrings was ~65 KB of the answer, sent twice (structured and as text).
MAX_DEFINITIONS = 50
MAX_LINKS = 100
MAX_MODULES = 10
# What the bundle reads: the file's modules and a page of its definitions; who imports or
# documents any of them, and what the file imports or its documentation sections document.
_BUNDLE: dict[str, Any] = {
    "definition_kinds": DEFINITION_KINDS,
    "limit": MAX_DEFINITIONS,
    "module_limit": MAX_MODULES,
    "section_kinds": KNOWLEDGE_KINDS,
    "relations": ("DOCUMENTS", "IMPORTS"),
    "link_limit": MAX_LINKS,
}


class ContextInput(StrictInput):
    file: str = Field(
        min_length=1,
        max_length=4096,
        description="Path of the file relative to the repository root (`django/db/models/query.py`); an "
        "absolute path on the ingested machine or a unique tail of the path (`models/query.py`) works too.",
    )
    project: str | None = project_field()
    format: Format = FORMAT_FIELD
    cursor: str | None = cursor_field()


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
    definitions: Listing[FileDefinition] | None = Field(
        default=None,
        description=f"What the file defines, by line: {MAX_DEFINITIONS} per answer from the cursor's position. "
        "Each is in the bundle's `file`, in its language.",
    )
    imports: Listing[FileImport] | None = Field(
        default=None,
        description="What the file imports (resolved targets): its IMPORTS edges out (file → `node`), with the "
        "line of the import statement in this file.",
    )
    imported_by: Listing[FileImporter] | None = Field(
        default=None,
        description="Who imports the file, its module or a definition listed here: IMPORTS edges in (`node` → "
        "`about`), with the line of the import statement in `node`'s file.",
    )
    documented_by: Listing[DocLink] | None = Field(
        default=None,
        description="Knowledge-layer nodes (documents, ADRs, concepts, rules) about this file's code: DOCUMENTS "
        "edges in (`node` → `about`).",
    )
    documents: Listing[DocLink] | None = Field(
        default=None,
        description="For a documentation file: the code its sections document: DOCUMENTS edges out "
        "(`about` → `node`).",
    )
    annotations: Listing[Annotation] | None = None
    next_cursor: str | None = Field(
        default=None, description="Pass as `cursor` (same arguments) for the next definitions; the other lists repeat."
    )


def run(arguments: ContextInput, context: ToolContext) -> ContextOutput:
    from rhumbline.lookup import annotations
    from rhumbline.lookup.file_views import doc_links, file_definition, importers, imports
    from rhumbline.lookup.names import file_id, resolve_file
    from rhumbline.stores.graph.model import FileQuery
    from rhumbline.tools import cursors

    project = context.project(arguments.project)
    graph = context.graph
    query = query_of(arguments, project)
    offset = 0
    if arguments.cursor:  # rare: checked against the version served now, then the page is read
        position = cursors.read(context, "context", query, arguments.cursor, graph_version=graph.graph_version(project))
        offset = cursors.offset(position, "definitions")
    # One read (one snapshot; on Neo4j one statement) when `file` is the path in the project; else
    # the name is resolved (tail, absolute path, or a precise error) and the file found read.
    bundle = FileQuery(**_BUNDLE, offset=offset)
    found = graph.file_rows(project, file_id(arguments.file), bundle)
    if found is None:
        node = resolve_file(context, project, arguments.file, id_missed=True)
        found = graph.file_rows(project, node.id, bundle)
        if found is None:  # the file vanished between the two reads (a concurrent ingest)
            raise NotFound(f"file '{arguments.file}' is not in project '{project}' any more; retry")
    node = found.file
    path = node.file or node.qualified_name
    modules, defined = found.modules, found.definitions
    subjects = [node.id, *(m.id for m in modules), *(d[0] for d in defined)]
    annotated = annotations.for_nodes(context, project, subjects)
    inward, outward = found.inward, found.outward
    end = offset + len(defined)
    next_cursor = None
    if end < found.definitions_total:
        next_cursor = cursors.issue(context, "context", query, {"definitions": end}, graph_version=found.version)
    answer = ContextOutput(
        project=project,
        format=arguments.format,
        file=FileInfo(id=node.id, path=path, language=node.language, lines=node.end_line, content_hash=node.content_hash),
        definitions=Listing[FileDefinition](
            items=[file_definition(d) for d in defined], total=found.definitions_total
        ),
        imports=imports(outward.get("IMPORTS")),
        imported_by=importers(inward.get("IMPORTS")),
        documented_by=doc_links(inward.get("DOCUMENTS")),
        documents=doc_links(outward.get("DOCUMENTS")),
        annotations=annotated,
        next_cursor=next_cursor,
    )
    if arguments.format == "markdown":
        text = render(answer, modules=[m.qualified_name for m in modules], offset=offset)
        return ContextOutput(project=project, format="markdown", markdown=text, next_cursor=next_cursor)
    return answer


def render(bundle: ContextOutput, *, modules: list[str], offset: int = 0) -> str:
    file = bundle.file
    assert file is not None
    facts = ", ".join(part for part in (file.language, f"{file.lines} lines" if file.lines else None) if part)
    head = [f"# {file.path}" + (f" ({facts})" if facts else ""), f"project {bundle.project}"]
    if modules:
        head.append(f"module {', '.join(f'`{m}`' for m in modules)}")
    prefixes = tuple(m + "." for m in modules)

    def local(item: FileDefinition) -> str:
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

    defined = bundle.definitions
    assert defined is not None
    title = "Definitions"
    if offset:  # a later page: counted from the cursor's position
        title = f"Definitions from #{offset + 1} of {defined.total}"
        defined = Listing[FileDefinition](items=defined.items, total=defined.total - offset)
    more = [f"More definitions: call again with `cursor` = `{bundle.next_cursor}`"] if bundle.next_cursor else []
    return md.document(
        [
            head,
            md.section(title, defined, local, limit=MAX_DEFINITIONS),
            more,
            md.section("Imports", bundle.imports, _import_line),
            md.section("Imported by", bundle.imported_by, _import_line),
            md.section("Documented by", bundle.documented_by, _doc_line),
            md.section("Documents", bundle.documents, _doc_line),
            md.section("Annotations", bundle.annotations, md.annotation_line),
        ]
    )


# One line per link, without what its section's title says (the relation and its direction) or
# what the bundle's head says (the file an import statement is in).


def _confidence(confidence: str) -> str:
    return "" if confidence == "EXTRACTED" else f" {confidence.lower()}"


def _import_line(item: FileImport | FileImporter) -> str:
    """Imports: the line is in this file; importers: in the importing file, `node`."""
    line = f" @ line {item.evidence_line}" if item.evidence_line else ""
    return f"- {md.ref(item.node)}{_confidence(item.confidence)}{line}"


def _doc_line(item: DocLink) -> str:
    evidence = md.where(item.evidence_file, item.evidence_line)
    text = f"- {md.ref(item.node)} [{item.about}]{_confidence(item.confidence)}"
    return text + (f" @ {evidence}" if evidence else "")


SPEC = ToolSpec(
    name="context",
    families=("code",),
    title="A file's context",
    description=(
        "Everything an agent needs before editing one file: the file node, every definition in it "
        "(kind, qualified name, lines, signature, docstring), what it imports (resolved targets) and who "
        "imports it, knowledge-layer documents (docs, ADRs, concepts, rules) about its code, and "
        "annotations (CONTRIBUTED). Lists are capped with exact totals; `next_cursor` continues the "
        "definitions. `format: markdown` returns the same bundle as compact text."
    ),
    input_model=ContextInput,
    output_model=ContextOutput,
    run=run,
)
