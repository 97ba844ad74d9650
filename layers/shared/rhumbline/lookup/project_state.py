"""Why a lookup found nothing at project level: never ingested, still ingesting, failed, or empty.

Consulted only when a lookup misses (never on the fast path): an agent told "no function named X"
about a project that was never ingested would go looking for a typo that is not there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rhumbline.errors import NotFound

if TYPE_CHECKING:
    from rhumbline.runtime.context import ToolContext


def empty_project_failure(context: "ToolContext", project: str) -> NotFound | None:
    """A specific NotFound when the project's graph is empty, else None (the graph has nodes)."""
    from rhumbline.stores.relational import versions

    if context.graph.counts(project).nodes:
        return None
    with context.db() as session:
        latest = versions.latest(session, project)
        completed = versions.latest(session, project, status="completed")
        state = None if latest is None else (latest.version, latest.status, latest.error, latest.commit_sha)
        done = None if completed is None else (completed.version, completed.commit_sha)
    if state is None:
        return NotFound(
            f"project '{project}' has not been ingested yet: run `ingest` first",
            details={"project": project, "reason": "not_ingested"},
        )
    version, status, error, _ = state
    if done is not None:
        done_version, commit = done
        at = f" at commit {commit[:12]}" if commit else ""
        return NotFound(
            f"project '{project}' was ingested (version {done_version}{at}) but its graph is empty: "
            "the ingest found no source files it could parse",
            details={"project": project, "reason": "empty", "version": done_version},
        )
    if status == "running":
        return NotFound(
            f"project '{project}' is being ingested (version {version}) and has no graph yet: retry shortly",
            details={"project": project, "reason": "ingest_running", "version": version},
        )
    return NotFound(
        f"project '{project}' has no graph: its ingest (version {version}) failed: {error or 'no reason recorded'}",
        details={"project": project, "reason": "ingest_failed", "version": version},
    )
