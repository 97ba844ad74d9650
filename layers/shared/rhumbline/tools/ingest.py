"""ingest: build (or rebuild) a project's code graph from a source tree."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel, Field

from rhumbline.errors import Forbidden, InvalidArguments, Unsupported
from rhumbline.runtime.context import ToolContext
from rhumbline.tools.common import StrictInput, project_field
from rhumbline.tools.registry import ToolSpec


class IngestInput(StrictInput):
    path: str | None = Field(
        default=None,
        max_length=4096,
        description="The directory to ingest, on the machine running the server (local mode only).",
    )
    project: str | None = project_field()
    clear: bool = Field(default=False, description="Wipe the project's graph first (annotations are kept).")


class SkippedFile(BaseModel):
    path: str
    reason: str


class IngestOutput(BaseModel):
    project: str
    version: int
    commit: str | None
    files: int
    skipped: dict[str, int]
    skipped_examples: list[SkippedFile]
    nodes_by_kind: dict[str, int]
    edges_by_relation: dict[str, int]
    node_count: int
    edge_count: int
    unresolved_calls: int
    files_with_syntax_errors: int
    duration_s: float


def default_project_for(root: Path) -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", root.resolve().name).strip("-.") or "repo"
    return f"local/{name}"


def run(arguments: IngestInput, context: ToolContext) -> IngestOutput:
    from rhumbline.ingest.pipeline import ingest_local
    from rhumbline.runtime import resources

    context.require_scope("write")
    if context.settings.mode == "hosted":
        raise Unsupported(
            "this deployment is hosted: it does not read paths on its servers, and hosted sources "
            "(a GitHub repository at a ref, an S3 object) are not supported by this version yet"
        )
    if not arguments.path:
        raise InvalidArguments("`path` is required: the directory to ingest, on the machine running the server")
    root = Path(arguments.path).expanduser()
    if not root.is_dir():
        raise InvalidArguments(f"'{arguments.path}' is not a directory on the server")
    project = arguments.project or default_project_for(root)
    if not context.caller.can_see(project):
        raise Forbidden(f"this token has no access to project '{project}'")
    summary = ingest_local(
        root,
        project,
        store=context.graph,
        engine=resources.relational_engine(),
        clear=arguments.clear,
    )
    return IngestOutput.model_validate(summary.model_dump())


SPEC = ToolSpec(
    name="ingest",
    title="Ingest a repository",
    description=(
        "Parse a source tree into the project's code graph as a new graph version: files, modules, "
        "classes, functions and methods, with imports, calls and inheritance resolved across files. "
        "Needs the `write` scope. Local mode reads a directory on the server."
    ),
    input_model=IngestInput,
    output_model=IngestOutput,
    run=run,
    scope="write",
    read_only=False,
    destructive=False,
    idempotent=True,
)
