"""What an ingest reports: counts an agent or an operator can check against the graph."""

from __future__ import annotations

from pydantic import BaseModel, Field


class SkippedExample(BaseModel):
    path: str  # a directory ends with "/"
    reason: str


class IngestSummary(BaseModel):
    project: str
    version: int
    commit: str | None = Field(description="git HEAD when the root is in a git work tree")
    files: int = Field(description="files ingested (one File node each)")
    parsed_files: int = Field(description="files parsed by a language extractor")
    files_by_language: dict[str, int]
    lines_by_language: dict[str, int]
    skipped: dict[str, int] = Field(description="reason → files (or pruned directories) skipped")
    skipped_examples: list[SkippedExample]
    nodes_by_kind: dict[str, int]
    edges_by_relation: dict[str, int]
    node_count: int
    edge_count: int
    unresolved_calls: int = Field(description="call sites without an edge (builtins, third-party)")
    files_with_syntax_errors: int
    duration_s: float
    phase_seconds: dict[str, float] = Field(description="walk, parse, resolve, store")
