"""What an ingest reports: counts an agent or an operator can check against the graph."""

from __future__ import annotations

from pydantic import BaseModel, Field


class SkippedExample(BaseModel):
    path: str  # a directory ends with "/"
    reason: str
    detail: str = Field(default="", description="more than the reason says: a build copy's original, an extractor's error")


class IngestFailure(BaseModel):
    """A file that raised in one stage: reported, the rest of the graph built (ingest/failures.py)."""

    file: str = Field(description="path relative to the root; `(N files)` when a language's whole resolution failed")
    stage: str = Field(description="extract (the file is listed as skipped), resolve <language>, or knowledge")
    reason: str = Field(description="the error, `Type: message`")


class IngestChanges(BaseModel):
    """How this version differs from the graph it replaced (see rhumbline/ingest/plan.py and docs/incremental.md)."""

    mode: str = Field(
        description="unchanged: same inputs as the stored version, its graph reused (only the"
        " version stamp written); incremental: only the difference was written; full: the graph"
        " was rewritten (first ingest, clear, or no snapshot of the stored version); phase2 says"
        " how much was resolved"
    )
    base_version: int | None = Field(description="the version the store held before; None if none")
    files_parsed: int = Field(description="files a language extractor parsed this time")
    files_reused: int = Field(description="files whose facts came from the cache, unchanged")
    nodes_added: int
    nodes_changed: int
    nodes_removed: int
    edges_added: int
    edges_changed: int
    edges_removed: int
    snapshot_bytes: int = Field(description="size of this version's stored snapshot")
    pruned_versions: int = Field(description="old versions deleted by retention")
    phase2: str = Field(
        default="full",
        description="skipped: the inputs were the stored version's; partial: only the changed"
        " files were resolved, every other file's nodes and edges kept from the stored version"
        " (rhumbline/ingest/partial.py); full: every file was resolved",
    )
    partial_refused: str | None = Field(
        default=None, description="why a re-ingest could not take the partial path"
    )
    source_files: int = Field(default=0, description="files whose contents this version keeps (`read_file`)")
    source_bytes_added: int = Field(
        default=0, description="bytes of contents stored by this ingest (unchanged files share earlier ones)"
    )
    source_files_withheld: int = Field(
        default=0, description="files never stored because their names match a secret pattern"
    )


class IngestSummary(BaseModel):
    project: str
    version: int
    commit: str | None = Field(description="git HEAD when the root is in a git work tree")
    files: int = Field(description="files ingested (one File node each)")
    parsed_files: int = Field(description="files parsed by a language extractor")
    files_by_language: dict[str, int]
    lines_by_language: dict[str, int]
    skipped: dict[str, int] = Field(
        description="reason → files (or pruned directories) skipped; `generated`: minified, bundled, or a build copy of files in the tree (its source map names them: `skipped_examples` say which)"
    )
    skipped_examples: list[SkippedExample]
    nodes_by_kind: dict[str, int]
    edges_by_relation: dict[str, int]
    node_count: int
    edge_count: int
    unresolved_calls: int = Field(description="call sites without an edge (builtins, third-party)")
    files_with_syntax_errors: int
    syntax_errors_by_language: dict[str, int] = Field(
        default_factory=dict,
        description="language → parsed files with syntax errors (their definitions may be partial)",
    )
    failure_count: int = Field(
        default=0, description="files whose extraction or resolution raised (exact); the graph has the rest"
    )
    failures: list[IngestFailure] = Field(
        default_factory=list, description="the first failures (at most 20): file, stage, reason"
    )
    warning_count: int = Field(default=0, description="problems that cost nothing but a line (exact)")
    warnings: list[str] = Field(
        default_factory=list,
        description="the first warnings (at most 20), e.g. a .gitignore line git would ignore, ignored here too",
    )
    duration_s: float
    phase_seconds: dict[str, float] = Field(description="walk, parse, resolve, diff, store")
    changes: IngestChanges | None = None
