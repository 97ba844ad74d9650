"""A pull request's files, read from GitHub after the delivery is answered.

A `pull_request` event (opened, synchronize, reopened, closed) carries no file list. Reading it
(reviews/github_files.py) may take several requests; the webhook must answer GitHub within 10 s, so
the read is a job of its own: hosted, this very function invoked asynchronously (InvocationType
Event) with the job as its event — an event API Gateway cannot forge, its HTTP events have no
top-level `rhumbline_job` — locally, a thread of the server. The job stores the files
(pull_requests.set_files) unless the PR moved to another head meanwhile (that push's own job
does), then writes the PR's TOUCHES edges into the graph (best effort, as the webhook does), so
contributors' files_touched, file experts and the graph work without a CI bot calling
record_review.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from typing import Any

logger = logging.getLogger("rhumbline.webhooks")

JOB_KEY = "rhumbline_job"
JOB = "pull_request_files"
ACTIONS = frozenset({"opened", "synchronize", "reopened", "closed"})
# Within the function's 10 s timeout, leaving room for the database and the graph.
JOB_SECONDS = 7.0
_threads: set[threading.Thread] = set()
_lock = threading.Lock()


def job_for(project: str, repository: str, number: int, head_sha: str | None) -> dict[str, Any]:
    return {JOB_KEY: JOB, "project": project, "repository": repository, "number": number, "head_sha": head_sha}


def is_job(event: Any) -> bool:
    return isinstance(event, dict) and event.get(JOB_KEY) == JOB


def schedule(job: dict[str, Any], *, hosted: bool, client: Any = None) -> str:
    """Start the job without waiting for it; a sentence saying what happened."""
    what = f"PR #{job['number']}"
    if not hosted:
        thread = threading.Thread(target=_run_logged, args=(job,), name=f"pr-files-{job['number']}", daemon=True)
        with _lock:
            _threads.add(thread)
        thread.start()
        return f"the files of {what} are being read from GitHub"
    function = os.environ.get("AWS_LAMBDA_FUNCTION_NAME", "").strip()
    if not function:
        return f"the files of {what} were not read: no function to run the job"
    try:
        from botocore.exceptions import BotoCoreError, ClientError

        from rhumbline.webhooks.reingest import _lambda_client

        response = (client or _lambda_client()).invoke(
            FunctionName=function, InvocationType="Event", Payload=json.dumps(job).encode()
        )
    except (BotoCoreError, ClientError) as error:
        logger.error("the PR files job could not be started: %s", error)
        return f"the files of {what} were not read: the job could not be started ({type(error).__name__})"
    if response.get("StatusCode") != 202:
        return f"the files of {what} were not read: the job was refused (status {response.get('StatusCode')})"
    return f"the files of {what} are being read from GitHub (asynchronously)"


def drain(timeout: float) -> bool:
    """Wait for the local jobs started so far (the local server on shutdown); True if all ended."""
    end = time.monotonic() + timeout
    with _lock:
        pending = list(_threads)
    for thread in pending:
        thread.join(max(end - time.monotonic(), 0))
    with _lock:
        _threads.difference_update(t for t in pending if not t.is_alive())
        return not _threads


def _run_logged(job: dict[str, Any]) -> None:
    try:
        outcome = run(job)
        logger.info("PR files job: %s", outcome.get("detail"))
    except Exception:  # noqa: BLE001 - a background job logs its failure; nobody waits for it
        logger.exception("PR files job failed")
    finally:
        with _lock:
            _threads.discard(threading.current_thread())


def run(job: dict[str, Any]) -> dict[str, Any]:
    """Read the files and store them. Never raises for GitHub's or the graph's failures: the
    answer says what happened (the Lambda async invocation has no one to tell)."""
    from rhumbline.ingest.discover.sources import DEFAULT_GITHUB_API, GITHUB_API_VARIABLE, github_token
    from rhumbline.reviews.github_files import GitHubFilesError, pull_request_files
    from rhumbline.webhooks.payloads import SLUG

    project, repository, number = job.get("project"), job.get("repository"), job.get("number")
    head_sha = job.get("head_sha")
    if not (isinstance(project, str) and SLUG.match(project) and isinstance(repository, str) and SLUG.match(repository)
            and isinstance(number, int) and not isinstance(number, bool) and number >= 1):  # fmt: skip
        return {"outcome": "invalid", "detail": "a PR files job names a project, a repository and a PR number"}
    api_url = os.environ.get(GITHUB_API_VARIABLE, "").strip() or DEFAULT_GITHUB_API
    try:
        files = pull_request_files(
            repository, number, api_url=api_url, token=github_token(), deadline=time.time() + JOB_SECONDS
        )
    except GitHubFilesError as error:
        return {"outcome": "not_read", "detail": str(error)}
    except Exception as error:  # noqa: BLE001 - the token secret may be unreadable (sources.SourceAuthFailed)
        return {"outcome": "not_read", "detail": f"the files of {repository}#{number} were not read: {error}"}
    stored = _store(project, number, head_sha, files)
    if stored is None:
        return {"outcome": "stale", "detail": f"PR #{number} moved past {head_sha}: its newer job reads its files"}
    graph = _project(project, stored)
    return {"outcome": "stored", "detail": f"{len(files)} file(s) of {repository}#{number} recorded; graph {graph}"}


def _store(project: str, number: int, head_sha: str | None, files: list[str]) -> Any:
    from rhumbline.reviews.recording import find_project, snapshot
    from rhumbline.runtime import resources
    from rhumbline.stores.relational import pull_requests
    from rhumbline.stores.relational.session import session_scope

    with session_scope(resources.relational_engine()) as session:
        found = find_project(session, project, create=False)
        row = pull_requests.get(session, found.id, number) if found is not None else None
        if row is None or (head_sha and row.head_sha and row.head_sha != head_sha.lower()):
            return None
        stored = pull_requests.set_files(session, row, files[: pull_requests.MAX_FILES_PER_PR])
        return snapshot(row, stored)


def _project(project: str, snapshot: Any) -> str:
    from rhumbline.reviews.graph_projection import project_pull_requests
    from rhumbline.runtime import resources
    from rhumbline.stores.graph.protocol import GraphUnavailable

    try:
        project_pull_requests(resources.graph_store(), project, [snapshot])
    except GraphUnavailable as error:
        logger.warning("graph not updated for %s: %s", project, error)
        return f"not updated ({error})"
    return "updated"
