"""ingest: build (or rebuild) a project's code graph from a source tree."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel, Field, field_validator, model_validator

from rhumbline.errors import Forbidden, InvalidArguments, Unsupported
from rhumbline.ingest.summary import IngestChanges
from rhumbline.runtime.context import ToolContext
from rhumbline.tools.common import StrictInput, project_field
from rhumbline.tools.registry import ToolSpec


# A GitHub repository at an optional ref, or an S3 object: what a hosted deployment can fetch.
SOURCE_PATTERN = r"^(github:[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(@[^\s]+)?|s3://[a-z0-9.-]{3,63}/\S+)$"


class IngestInput(StrictInput):
    path: str | None = Field(
        default=None,
        max_length=4096,
        description="The directory to ingest, on the machine running the server (local mode only).",
    )
    source: str | None = Field(
        default=None,
        max_length=2048,
        pattern=SOURCE_PATTERN,
        description="Hosted mode: `github:owner/repo[@ref]` or `s3://bucket/key` (a tarball).",
    )
    project: str | None = project_field()
    clear: bool = Field(default=False, description="Wipe the project's graph first (annotations are kept).")

    @field_validator("source")
    @classmethod
    def _source_available(cls, value: str | None) -> str | None:
        # The contract names `source`; fetching one (a GitHub tarball, an S3 object) belongs to the
        # ingestion issue and is not in this build. Refusing at validation keeps every caller
        # honest, the GitHub webhook's probe (webhooks/reingest.py) included.
        if value is not None:
            raise ValueError(
                "hosted sources (`github:owner/repo@ref`, `s3://bucket/key`) are not available in this "
                "build yet; ingest a local checkout with `path` on a local server"
            )
        return value

    @model_validator(mode="after")
    def _path_or_source(self) -> "IngestInput":
        if self.path and self.source:
            raise ValueError("give either `path` (local mode) or `source` (hosted mode), not both")
        return self


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
    changes: IngestChanges | None = Field(
        default=None, description="files parsed vs reused and nodes/edges added, changed, removed"
    )


def default_project_for(root: Path) -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", root.resolve().name).strip("-.") or "repo"
    return f"local/{name}"


def run(arguments: IngestInput, context: ToolContext) -> IngestOutput:
    from rhumbline.ingest.pipeline import ingest_local
    from rhumbline.runtime import resources

    context.require_scope("write")
    if context.settings.mode == "hosted":
        raise Unsupported(
            f"this deployment is hosted: it does not read paths on its own servers ('{arguments.path}')"
            if arguments.path
            else "this deployment is hosted: it ingests a `source`, and none was given",
            details={"mode": "hosted", "accepts": "source: github:owner/repo@ref or s3://bucket/key"},
        )
    if arguments.source:
        raise InvalidArguments("this server runs in local mode: pass `path`, a directory on its machine")
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
        "Needs the `write` scope. Local mode reads a directory on the server (`path`); a hosted "
        "deployment refuses paths and takes a `source`. `clear` wipes the project's graph first "
        "(annotations are kept)."
    ),
    input_model=IngestInput,
    output_model=IngestOutput,
    run=run,
    scope="write",
    read_only=False,
    destructive=False,
    idempotent=True,
)
