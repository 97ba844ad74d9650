"""context's own item models: one file's definitions and links, each fact said once.

The shared `Definition` and `Link` (views.py) let an item stand alone, as function, class, explain
and get_node need. Inside one file's bundle several of their fields are the same for every item of
a list, and were most of context's answer (Django's query.py: 28.6 KB): every definition's `file`
and `language` are the bundle's `file.path` / `file.language` (definitions are read by their file,
and the ingester gives each the language of its file); every link of a list has the list's relation
and direction. Imports are written from the File with their evidence in it (docs/graph-model.md),
so `imports` needs neither `about` nor the evidence file, and `imported_by` finds the evidence file
in its importer (`node.file`). What is left is what varies per item.

Items are built from bundles.FileRows' tuples.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, Field

from rhumbline.lookup.views import EXPLANATION_CHARS, SIGNATURE_CHARS, Listing, NodeRef, clip
from rhumbline.stores.graph.model import RelationRows

M = TypeVar("M", bound=BaseModel)
# Per definition: a file can hold hundreds (the shared views clip to views.DOCSTRING_CHARS).
DEFINITION_DOCSTRING_CHARS = 200


class FileDefinition(BaseModel):
    """A definition of the bundle's file: its file and language are the bundle's `file`."""

    id: str
    kind: str
    name: str
    qualified_name: str
    line: int | None = None
    end_line: int | None = None
    signature: str | None = None
    docstring: str | None = Field(default=None, description=f"Clipped to {DEFINITION_DOCSTRING_CHARS} characters.")


class FileImport(BaseModel):
    """An IMPORTS edge from the bundle's file to `node`."""

    node: NodeRef = Field(description="What is imported (a module, or a file in languages that import files).")
    confidence: str
    confidence_score: float
    explanation: str
    evidence_line: int | None = Field(default=None, description="Line of the import statement in the bundle's file.")


class FileImporter(BaseModel):
    """An IMPORTS edge from `node` (a file) to `about`: the bundle's file, its module or one of its
    definitions."""

    about: str = Field(description="Id of the imported node: the file, its module or a definition listed here.")
    node: NodeRef = Field(description="The importing file.")
    confidence: str
    confidence_score: float
    explanation: str
    evidence_line: int | None = Field(default=None, description="Line of the import statement in `node`'s file.")


class DocLink(BaseModel):
    """A DOCUMENTS edge between a knowledge-layer node and code; the list says which way."""

    about: str = Field(description="Id of the bundle's node this edge touches.")
    node: NodeRef = Field(description="The node at the other end.")
    confidence: str
    confidence_score: float
    explanation: str
    evidence_file: str | None = None
    evidence_line: int | None = None


def file_definition(values: Sequence[Any], *, docstring_chars: int = DEFINITION_DOCSTRING_CHARS) -> FileDefinition:
    """A definition given as its NODE_FIELDS values."""
    return FileDefinition(
        id=values[0], kind=values[1], name=values[2], qualified_name=values[3], line=values[5], end_line=values[6],
        signature=clip(values[8], SIGNATURE_CHARS), docstring=clip(values[9], docstring_chars),
    )  # fmt: skip


# LINK rows (bundles.LINK_FIELDS): 0 about, 1 relation, 2 confidence, 3 confidence_score,
# 4 explanation, 5 evidence file, 6 evidence line, 7-12 the far end's reference.


def _far(row: Sequence[Any]) -> NodeRef:
    return NodeRef(id=row[7], kind=row[8], name=row[9], qualified_name=row[10], file=row[11], line=row[12])


def _edge(row: Sequence[Any]) -> dict[str, Any]:
    """What every link item says of its edge."""
    explanation = clip(row[4], EXPLANATION_CHARS) or ""
    return {"confidence": row[2], "confidence_score": row[3], "explanation": explanation, "evidence_line": row[6]}


def _listing(model: type[M], group: RelationRows | None, item: Callable[[Sequence[Any]], M]) -> Listing[M]:
    rows, total = (group.rows, group.total) if group is not None else ([], 0)
    # Listing of the concrete class, so pydantic checks and serializes the items as that model.
    return Listing[model](items=[item(row) for row in rows], total=total)  # type: ignore[valid-type]


def imports(group: RelationRows | None) -> Listing[FileImport]:
    """The file's outward IMPORTS rows."""
    return _listing(FileImport, group, lambda row: FileImport(node=_far(row), **_edge(row)))


def importers(group: RelationRows | None) -> Listing[FileImporter]:
    """The inward IMPORTS rows."""
    return _listing(FileImporter, group, lambda row: FileImporter(about=row[0], node=_far(row), **_edge(row)))


def doc_links(group: RelationRows | None) -> Listing[DocLink]:
    """DOCUMENTS rows (either way)."""
    return _listing(DocLink, group, lambda row: DocLink(about=row[0], node=_far(row), evidence_file=row[5], **_edge(row)))
