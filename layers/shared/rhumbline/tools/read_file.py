"""read_file: a file's text as the project's graph version stored it, whole or a line range."""

from __future__ import annotations

from pydantic import Field

from rhumbline.runtime.context import ToolContext
from rhumbline.runtime.spec import ToolSpec
from rhumbline.tools.common import StrictInput, project_field
from rhumbline.tools.source_text import MAX_BYTES, MAX_LINES, SourceText


class ReadFileInput(StrictInput):
    path: str = Field(
        min_length=1, max_length=1024,
        description="The file, relative to the project root, as `file` in other answers (`requests/sessions.py`).",
    )  # fmt: skip
    start_line: int = Field(default=1, ge=1, le=10_000_000, description="First line to return (1-based).")
    end_line: int | None = Field(
        default=None, ge=1, le=10_000_000, description="Last line to return (inclusive); default the end of the file."
    )
    version: int | None = Field(
        default=None, ge=1, le=2_000_000_000,
        description="The graph version to read the file from (as `graph_diff` and `ingest` number them); "
        "default the version the graph serves.",
    )  # fmt: skip
    project: str | None = project_field()


class ReadFileOutput(SourceText):
    project: str


def run(arguments: ReadFileInput, context: ToolContext) -> ReadFileOutput:
    from rhumbline.tools.source_text import read

    project = context.project(arguments.project)
    found = read(
        context, project, arguments.path, version=arguments.version,
        start_line=arguments.start_line, end_line=arguments.end_line,
    )  # fmt: skip
    return ReadFileOutput(project=project, **found.model_dump())


SPEC = ToolSpec(
    name="read_file",
    families=("code",),
    title="Read a file",
    description=(
        "A file's text as the project's ingest stored it (the served graph version, or `version`): "
        "whole or lines `start_line`..`end_line`, with the file's exact `total_lines` and `size`. At most "
        f"{MAX_LINES} lines and {MAX_BYTES // 1024} KiB per call: `truncated` and `next_start_line` say how "
        "to read on. Binary, oversized, ignored or excluded files, and files named like secrets (`.env`, "
        "`*.pem`, `id_rsa`, credentials), are never stored."
    ),
    input_model=ReadFileInput,
    output_model=ReadFileOutput,
    run=run,
)
