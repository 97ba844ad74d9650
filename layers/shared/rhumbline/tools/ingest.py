"""ingest: build (or rebuild) a project's code graph from a source tree."""

from __future__ import annotations

import json
import os
import re
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field, model_validator

from rhumbline.errors import Conflict, Forbidden, InvalidArguments, Unavailable, Unsupported
from rhumbline.ingest.host_paths import ingestible_directory
from rhumbline.ingest.project_slug import default_project_slug
from rhumbline.ingest.summary import IngestChanges, IngestFailure
from rhumbline.runtime.context import ToolContext
from rhumbline.runtime.spec import ToolSpec
from rhumbline.tools.common import StrictInput, project_field

if TYPE_CHECKING:
    from sqlalchemy import Engine

# A GitHub repository at an optional ref, or an S3 object: what a hosted deployment can fetch.
# How long a local ingest waits for another ingest of the same project before saying so.
BUSY_WAIT_SECONDS = 5.0
# Set in a hosted deployment: `async` ingests start this state machine (template.yaml).
STATE_MACHINE_VARIABLE = "RHUMBLINE_INGEST_STATE_MACHINE_ARN"
SOURCE_PATTERN = r"^(github:[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(@[^\s]+)?|s3://[a-z0-9.-]{3,63}/\S+)$"


class IngestInput(StrictInput):
    path: str | None = Field(
        default=None,
        max_length=4096,
        description=(
            "The directory to ingest, on the machine running the server (local mode only; needs the `admin` "
            "scope, and a directory under the ones the server was started for)."
        ),
    )
    source: str | None = Field(
        default=None,
        max_length=2048,
        pattern=SOURCE_PATTERN,
        description="Hosted mode: `github:owner/repo[@ref]` or `s3://bucket/key` (a tarball).",
    )
    project: str | None = project_field()
    clear: bool = Field(default=False, description="Wipe the project's graph first (annotations are kept).")
    run_async: bool = Field(
        default=False,
        alias="async",
        description=(
            "Hosted mode, with `source`: schedule the ingest in the background and return at once "
            "(status `scheduled`); the new version shows as running in list_projects."
        ),
    )

    @model_validator(mode="after")
    def _path_or_source(self) -> "IngestInput":
        if self.path and self.source:
            raise ValueError("give either `path` (local mode) or `source` (hosted mode), not both")
        return self


class SkippedFile(BaseModel):
    path: str
    reason: str
    detail: str = Field(default="", description="more than the reason says: a build copy's original, an extractor's error")


class IngestOutput(BaseModel):
    status: Literal["completed", "scheduled"] = Field(
        default="completed",
        description="`scheduled`: an asynchronous ingest was started; only `project` (and `source`) are set",
    )
    project: str
    source: str | None = None
    version: int | None = None
    commit: str | None = None
    files: int = 0
    skipped: dict[str, int] = Field(
        default_factory=dict,
        description="reason → files (or pruned directories) skipped; `generated`: minified, bundled, or a build copy of files in the tree (its source map names them: `skipped_examples` say which)",
    )
    skipped_examples: list[SkippedFile] = Field(default_factory=list)
    nodes_by_kind: dict[str, int] = Field(default_factory=dict)
    edges_by_relation: dict[str, int] = Field(default_factory=dict)
    node_count: int = 0
    edge_count: int = 0
    unresolved_calls: int = 0
    files_with_syntax_errors: int = 0
    syntax_errors_by_language: dict[str, int] = Field(
        default_factory=dict, description="language → parsed files with syntax errors (definitions may be partial)"
    )
    failure_count: int = Field(
        default=0,
        description="files whose extraction or resolution raised (exact count); the graph has every other file",
    )
    failures: list[IngestFailure] = Field(
        default_factory=list, description="the first failures (at most 20): file, stage, reason"
    )
    warning_count: int = Field(default=0, description="warnings (exact count), e.g. a .gitignore line git skips")
    warnings: list[str] = Field(default_factory=list, description="the first warnings (at most 20)")
    duration_s: float = 0.0
    changes: IngestChanges | None = Field(
        default=None, description="files parsed vs reused and nodes/edges added, changed, removed"
    )


def run(arguments: IngestInput, context: ToolContext) -> IngestOutput:
    from rhumbline.ingest.lock import IngestBusy, exclusive_ingest
    from rhumbline.ingest.pipeline import ingest_local

    if context.settings.mode == "hosted" and not arguments.source:
        raise Unsupported(
            f"this deployment is hosted: it does not read paths on its own servers ('{arguments.path}')"
            if arguments.path
            else "this deployment is hosted: it ingests a `source`, and none was given",
            details={"mode": "hosted", "accepts": "source: github:owner/repo@ref or s3://bucket/key"},
        )
    if arguments.source:
        return _run_source(arguments, context)
    if arguments.run_async:
        raise InvalidArguments("`async` needs a hosted deployment and a `source`; a local `path` is ingested in place")
    if not arguments.path:
        raise InvalidArguments("`path` is required: the directory to ingest, on the machine running the server")
    # Reading the server's own disk is the machine owner's to grant, not a project writer's.
    if not context.caller.has_scope("admin"):
        raise Forbidden("ingesting a `path` on the server needs the 'admin' scope (`write` may ingest a `source`)")
    root = ingestible_directory(arguments.path, context.settings.ingest_roots)
    project = arguments.project or default_project_slug(root)
    if not context.caller.can_see(project):
        raise Forbidden(f"this token has no access to project '{project}'")
    try:
        with exclusive_ingest(context.settings.home, project, timeout=min(BUSY_WAIT_SECONDS, context.remaining())):
            summary = ingest_local(
                root,
                project,
                store=context.graph,
                engine=context.engine,
                blobs=context.blobs,
                clear=arguments.clear,
                progress=context.progress,
                holder=_holder(context),
                deadline=context.deadline,
            )
    except IngestBusy as busy:
        raise _busy(context.engine, project, str(busy)) from None
    return IngestOutput.model_validate(summary.model_dump())


def _busy(engine: "Engine", project: str, reason: str) -> Conflict:
    """Another local ingest of the project holds the machine's lock: the conflict names its version."""
    from rhumbline.stores.relational import versions
    from rhumbline.stores.relational.session import session_scope

    with session_scope(engine) as session:
        running = versions.latest(session, project, status="running")
        if running is None:
            return Conflict(reason)
        busy = versions.IngestInProgress(project, running.version, running.holder, running.lease_expires_at)
    return Conflict(str(busy), details={"running_version": busy.version, "holder": busy.holder})


def _holder(context: ToolContext) -> str:
    """Who runs this ingest, as a concurrent one is told."""
    return f"{context.caller.principal} (token {context.caller.token_id}, request {context.request_id})"


def _source_project(source: str) -> str | None:
    match = re.match(r"^github:([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)", source)
    return match.group(1) if match else None


def _run_source(arguments: IngestInput, context: ToolContext) -> IngestOutput:
    """A hosted source (GitHub tarball, S3 archive): fetched to a temporary directory and ingested
    like a local tree, with the commit the archive names; or, with `async`, scheduled. A hosted
    deployment with the ingest state machine hands it a tree too large for one function (by the
    plan step's size rule, or past this function's fetch limits), and answers `scheduled`."""
    from rhumbline.ingest.pipeline import ingest_local
    from rhumbline.ingest.discover.sources import SourceTooLarge, fetched

    source = arguments.source or ""
    project = arguments.project or _source_project(source)
    if not project:
        raise InvalidArguments("`project` is required with an `s3://` source (owner/repo)")
    if not context.caller.can_see(project):
        raise Forbidden(f"this token has no access to project '{project}'")
    if arguments.run_async:
        if context.settings.mode != "hosted":
            raise InvalidArguments("`async` is for hosted deployments; a local server ingests a source in the call")
        _schedule_self(arguments, project, context)
        return IngestOutput(status="scheduled", project=project, source=source)
    machine = _state_machine() if context.settings.mode == "hosted" else ""
    with ExitStack() as fetching:
        try:
            tree = fetching.enter_context(fetched(source))
        except SourceTooLarge:
            if not machine:
                raise
            tree = None  # past this function's fetch limits: the state machine's plan has larger ones
        if machine and (tree is None or _takes_shards(Path(tree.root))):
            # Too large for one function (the plan step's own rule, by size): every entry point,
            # a webhook's re-ingest as well as a call, hands it to the state machine.
            _start_run(machine, arguments, project)
            return IngestOutput(status="scheduled", project=project, source=source)
        assert tree is not None
        summary = ingest_local(
            tree.root,
            project,
            store=context.graph,
            engine=context.engine,
            blobs=context.blobs,
            clear=arguments.clear,
            commit=tree.commit,
            history=False,
            progress=context.progress,
            holder=_holder(context),
            deadline=context.deadline,
        )
    output = IngestOutput.model_validate(summary.model_dump())
    output.source = source
    return output


def _takes_shards(root: Path) -> bool:
    """Whether the tree has more to parse than the single reader takes (the plan step's rule)."""
    from rhumbline.ingest.discover.parallel import size_of
    from rhumbline.ingest.discover.walk import discover
    from rhumbline.ingest.sharded import executors

    sizes = [size_of(str(root / path)) for path in discover(root).paths]
    return executors.wants_shards(sizes, above=executors.SHARDED_ABOVE_BYTES)


def _schedule_self(arguments: IngestInput, project: str, context: ToolContext) -> None:
    """Start the hosted ingest's state machine when the deployment has one (its plan step picks
    the shard plan or the single reader by size), else invoke this very function asynchronously
    (InvocationType Event) with the same invocation, minus `async`: either runs past API Gateway's
    30 s."""
    import time

    from rhumbline.contract import ToolInvocation

    machine = _state_machine()
    if machine:
        _start_run(machine, arguments, project)
        return
    function = os.environ.get("AWS_LAMBDA_FUNCTION_NAME", "").strip()
    if not function:
        raise Unsupported("`async` needs to run inside the ingest Lambda function (AWS_LAMBDA_FUNCTION_NAME is unset)")
    payload = arguments.model_dump(mode="json", by_alias=True, exclude_none=True)
    payload.pop("async", None)
    payload["project"] = project
    invocation = ToolInvocation(
        tool="ingest",
        arguments=payload,
        caller=context.caller,
        request_id=f"{context.request_id}-async"[:100],
        deadline_ms=int((time.time() + 900) * 1000),
    )
    try:
        import boto3
        from botocore.config import Config
        from botocore.exceptions import BotoCoreError, ClientError

        client = boto3.client(
            "lambda", config=Config(connect_timeout=2, read_timeout=5, retries={"total_max_attempts": 2, "mode": "standard"})
        )
        response = client.invoke(
            FunctionName=function,
            InvocationType="Event",
            Payload=json.dumps(invocation.model_dump(mode="json")).encode(),
        )
    except (BotoCoreError, ClientError) as error:
        raise Unavailable(f"the asynchronous ingest could not be started: {error}") from None
    if response.get("StatusCode") != 202:
        raise Unavailable(f"the asynchronous ingest was refused (status {response.get('StatusCode')})")



def _state_machine() -> str:
    """The hosted ingest state machine's ARN; empty when the deployment has none."""
    return os.environ.get(STATE_MACHINE_VARIABLE, "").strip()


def _start_run(machine: str, arguments: IngestInput, project: str) -> None:
    run_input = {"project": project, "source": arguments.source, "clear": arguments.clear}
    try:
        import boto3
        from botocore.config import Config
        from botocore.exceptions import BotoCoreError, ClientError

        client = boto3.client(
            "stepfunctions",
            config=Config(connect_timeout=2, read_timeout=5, retries={"total_max_attempts": 2, "mode": "standard"}),
        )
        client.start_execution(stateMachineArn=machine, input=json.dumps(run_input))
    except (BotoCoreError, ClientError) as error:
        raise Unavailable(f"the hosted ingest could not be started: {error}") from None


SPEC = ToolSpec(
    name="ingest",
    families=("code",),
    title="Ingest a repository",
    description=(
        "Parse a source tree into the project's code graph as a new graph version: files, modules, "
        "classes, functions and methods, with imports, calls and inheritance resolved across files. "
        "Needs the `write` scope. Local mode reads a directory on the server (`path`, `admin` scope, under "
        "the directory the server was started for); a hosted deployment refuses paths and takes a `source`. `clear` wipes the project's graph first "
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
