"""Names shared by every layer: the project slug's form, node kinds and how tools group them."""

from __future__ import annotations

from typing import Literal

# The toolsets a client may choose (gateway/toolsets.py); every tool belongs to at least one.
Family = Literal["code", "exploration", "review", "admin"]
FAMILIES: tuple[Family, ...] = ("code", "exploration", "review", "admin")

# A project slug, `owner/repo`.
PROJECT_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}/[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$"

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
# Every kind a node of the graph may have: on Neo4j each such node is labelled by its kind too.
NODE_KINDS = (*CODE_KINDS, *KNOWLEDGE_KINDS)

CLASS_KINDS = ("Class", "Interface", "Trait", "Struct", "Enum")
CALLABLE_KINDS = ("Function", "Method")
# What a file defines, as `context` lists it: code definitions and knowledge-layer sections.
DEFINITION_KINDS = (*CLASS_KINDS, *CALLABLE_KINDS, "Variable", "Constant", *KNOWLEDGE_KINDS)
# Relations along which a class hierarchy is followed.
HIERARCHY_RELATIONS = ("INHERITS", "IMPLEMENTS")
