"""search: ranked lookup of code (and, on request, knowledge-layer) nodes by name and text."""

from __future__ import annotations

from pydantic import BaseModel, Field, field_validator

from rhumbline.errors import InvalidArguments
from rhumbline.runtime.context import ToolContext
from rhumbline.runtime.spec import ToolSpec
from rhumbline.tools.common import StrictInput
from rhumbline.vocabulary import CODE_KINDS, KNOWLEDGE_KINDS, NAMED_CODE_KINDS, PROJECT_PATTERN

SNIPPET_CHARS = 160


class SearchInput(StrictInput):
    query: str = Field(min_length=1, max_length=500, description="Name, qualified name or words to look for.")
    project: str | None = Field(
        default=None,
        pattern=PROJECT_PATTERN,
        description="Project slug `owner/repo`. Omitted: every project this token can see, merged by score.",
    )
    all: bool = Field(default=False, description="Include the knowledge layer (documents, ADRs, wiki pages).")
    docs: bool = Field(default=False, description="Only hits whose docstring or document text matches.")
    limit: int = Field(default=20, ge=1, le=50)
    kinds: list[str] | None = Field(default=None, max_length=20, description="Only these node kinds, e.g. [\"Class\"]; Import and Decorator nodes only when named here.")

    @field_validator("query")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("query must not be blank")
        return value


class DeclarationOut(BaseModel):
    of: str = Field(description="The id of the hit (an implementation) this declaration is folded into.")
    kind: str
    id: str
    qualified_name: str
    file: str | None
    line: int | None


class SearchHitOut(BaseModel):
    kind: str
    id: str
    name: str
    qualified_name: str
    file: str | None
    line: int | None
    snippet: str | None
    project: str
    score: float
    match: str = Field(description="exact, prefix or fulltext")


class SearchOutput(BaseModel):
    hits: list[SearchHitOut]
    total: int = Field(description="Exact number of matching nodes; `hits` holds the best `limit` of them.")
    declarations: list[DeclarationOut] = Field(
        description="Declarations without a body (a declaration or stub file's, an interface's methods) of the same "
        "name and kind as a hit ranked above them: listed here with that hit's id instead of as hits."
    )


# What a search ranks unless told otherwise: the named code. query_graph seeds from the same.
DEFAULT_KINDS = tuple(NAMED_CODE_KINDS)


def _kinds(arguments: SearchInput) -> list[str]:
    allowed = set(CODE_KINDS) | set(KNOWLEDGE_KINDS)
    if arguments.kinds:
        unknown = sorted(set(arguments.kinds) - allowed)
        if unknown:
            raise InvalidArguments(f"unknown kinds {unknown}; known kinds: {sorted(allowed)}")
        return list(arguments.kinds)
    if arguments.docs:
        return list(NAMED_CODE_KINDS) + list(KNOWLEDGE_KINDS)
    return list(DEFAULT_KINDS) + (list(KNOWLEDGE_KINDS) if arguments.all else [])


def _snippet(signature: str | None, docstring: str | None) -> str | None:
    text = docstring.strip().splitlines()[0] if docstring and docstring.strip() else signature
    if text and len(text) > SNIPPET_CHARS:
        return text[: SNIPPET_CHARS - 1] + "…"
    return text


def run(arguments: SearchInput, context: ToolContext) -> SearchOutput:
    projects = [arguments.project] if arguments.project else context.visible_projects()
    if not projects:
        return SearchOutput(hits=[], total=0, declarations=[])
    try:
        hits, total = context.graph.search(
            projects, arguments.query, kinds=_kinds(arguments), limit=arguments.limit, docs_only=arguments.docs
        )
    except ValueError as error:
        raise InvalidArguments(str(error)) from None
    return SearchOutput(
        hits=[
            SearchHitOut(
                kind=hit.node.kind,
                id=hit.node.id,
                name=hit.node.name,
                qualified_name=hit.node.qualified_name,
                file=hit.node.file,
                line=hit.node.start_line,
                snippet=_snippet(hit.node.signature, hit.node.docstring),
                project=hit.project,
                score=round(float(hit.score), 4),
                match=hit.match,
            )
            for hit in hits
        ],
        total=total,
        declarations=[
            DeclarationOut(
                of=hit.node.id, kind=node.kind, id=node.id, qualified_name=node.qualified_name, file=node.file,
                line=node.start_line,
            )
            for hit in hits
            for node in hit.declarations
        ],
    )


SPEC = ToolSpec(
    name="search",
    families=("code", "exploration"),
    title="Search the code graph",
    description=(
        "Find functions, classes, methods, files and modules by name or words. Ranking: exact name, "
        "then prefix, then full text over names, qualified names, docstrings and paths; case-insensitive; "
        "CamelCase and snake_case are split into words. Without `project`, searches every project this "
        "token can see. `all` adds the knowledge layer; `docs` keeps only docstring/document matches."
    ),
    input_model=SearchInput,
    output_model=SearchOutput,
    run=run,
)
