"""Models shared by several tools' inputs and outputs."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

PROJECT_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}/[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$"


def project_field(required: bool = False):
    description = "Project slug, `owner/repo`."
    if not required:
        description += " May be omitted when the token can see exactly one project."
    return Field(default=... if required else None, description=description, pattern=PROJECT_PATTERN)


class StrictInput(BaseModel):
    """Base for tool inputs: unknown arguments are an error, not silently dropped."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class NodeSummary(BaseModel):
    id: str
    kind: str
    name: str
    qualified_name: str
    file: str | None = None
    line: int | None = None


# The knowledge layer (documents, ADRs, wiki pages) is searched only when asked for: agents editing
# code mostly want code.
KNOWLEDGE_KINDS = ("Document", "Concept", "Rule", "Decision", "WikiPage")
CODE_KINDS = (
    "Repository",
    "Directory",
    "File",
    "Module",
    "Class",
    "Interface",
    "Trait",
    "Struct",
    "Enum",
    "Function",
    "Method",
    "Variable",
    "Constant",
    "Import",
    "Decorator",
)
# One node per import binding / decorator application (their names are their text): searched only
# when asked for by kind, so they never crowd out the definitions they name.
STATEMENT_KINDS = ("Import", "Decorator")
NAMED_CODE_KINDS = tuple(kind for kind in CODE_KINDS if kind not in STATEMENT_KINDS)
