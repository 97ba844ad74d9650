"""A push to the default branch → an incremental re-ingest of the project, or an honest record of why not.

Hosted: the ingest function is invoked asynchronously (InvocationType=Event) with a ToolInvocation
whose caller is a service principal limited to that one project with the `write` scope, and the
arguments `{"project": "owner/repo", "source": "github:owner/repo@<after sha>"}`: the ingest
function fetches that commit's tarball (rhumbline.ingest.discover.sources) and, like every hosted
ingest, ingests it itself when small and starts the ingest state machine when it is too large for
one function (tools/ingest.py, the plan step's size rule). Should the ingest tool's input
model ever refuse that source, the request is recorded and the response says no ingest was started.
Locally there is no source to ingest from: the request is recorded.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from typing import Any

from rhumbline.contract import Caller, ToolInvocation

INGEST_FUNCTION_VARIABLE = "RHUMBLINE_INGEST_FUNCTION"
SERVICE_PRINCIPAL = "github-webhook"
# The ingest function's own timeout (template.yaml): the invocation's deadline.
INGEST_DEADLINE_SECONDS = 900
CONNECT_TIMEOUT_SECONDS = 2.0
READ_TIMEOUT_SECONDS = 5.0


class ReingestFailed(Exception):
    """The ingest function could not be invoked (answered 503 so GitHub can redeliver)."""


@dataclass(frozen=True)
class Scheduled:
    outcome: str  # reingest_invoked | reingest_recorded
    detail: str


def ingest_arguments(project: str, sha: str) -> dict[str, Any] | None:
    """Arguments for the ingest tool that name the repository at `sha`, if its input model accepts a
    hosted source; None when it does not (checked against the model, not assumed)."""
    from pydantic import ValidationError

    from rhumbline.tools.ingest import IngestInput

    if "source" not in IngestInput.model_fields:
        return None
    # The pushed commit (`after`), fetched by the ingest function as a GitHub tarball
    # (rhumbline.ingest.discover.sources); the invocation is already asynchronous, so no `async` here.
    candidate = {"project": project, "source": f"github:{project}@{sha}"}
    try:
        IngestInput.model_validate(candidate)
    except ValidationError:
        return None
    return candidate


def invocation_for(project: str, arguments: dict[str, Any], delivery_id: str) -> ToolInvocation:
    return ToolInvocation(
        tool="ingest",
        arguments=arguments,
        caller=Caller(principal=SERVICE_PRINCIPAL, token_id="svc-webhook", projects=(project,), scopes=("write",)),
        request_id=f"webhook-{delivery_id}"[:100],
        deadline_ms=int((time.time() + INGEST_DEADLINE_SECONDS) * 1000),
    )


def _lambda_client() -> Any:
    import boto3
    from botocore.config import Config

    config = Config(
        connect_timeout=CONNECT_TIMEOUT_SECONDS,
        read_timeout=READ_TIMEOUT_SECONDS,
        retries={"total_max_attempts": 2, "mode": "standard"},
    )
    return boto3.client("lambda", config=config)


def schedule(project: str, sha: str, delivery_id: str, *, hosted: bool, client: Any = None) -> Scheduled:
    short = sha[:12]
    if not hosted:
        return Scheduled(
            "reingest_recorded",
            f"local mode: a re-ingest of {project} at {short} is recorded but not started (the local server has "
            f"no copy of the repository to read): run `rhumbline ingest PATH --project {project}`",
        )
    function = os.environ.get(INGEST_FUNCTION_VARIABLE, "").strip()
    if not function:
        return Scheduled(
            "reingest_recorded",
            f"re-ingest of {project} at {short} recorded, not started: no ingest function is configured "
            f"({INGEST_FUNCTION_VARIABLE})",
        )
    arguments = ingest_arguments(project, sha)
    if arguments is None:
        return Scheduled(
            "reingest_recorded",
            f"re-ingest of {project} at {short} recorded, not started: this version's ingest tool accepts no "
            "hosted source (a GitHub repository at a ref) yet",
        )
    invocation = invocation_for(project, arguments, delivery_id)
    try:
        from botocore.exceptions import BotoCoreError, ClientError

        response = (client or _lambda_client()).invoke(
            FunctionName=function,
            InvocationType="Event",
            Payload=json.dumps(invocation.model_dump(mode="json")).encode(),
        )
    except (BotoCoreError, ClientError) as error:
        raise ReingestFailed(f"the ingest function could not be invoked: {error}") from None
    if response.get("StatusCode") != 202:
        raise ReingestFailed(f"the ingest function refused the asynchronous invocation (status {response.get('StatusCode')})")
    return Scheduled(
        "reingest_invoked",
        f"incremental re-ingest of {project} at {short} started asynchronously (request {invocation.request_id})",
    )
