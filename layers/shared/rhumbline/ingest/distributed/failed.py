"""A run's shard (past its retry) or its finish step failed: the version fails, naming the shard.

The Map's own error says only that a child failed, so the shards are named from the run: a shard
in shards.json without an answer is one that never completed (it raised, or its function timed
out). The version is failed only while still running (the finish step fails its version itself
when the ingest raises; a lease that expired was failed by the next ingest).

In:  the plan step's output, plus {"failure": {"Error", "Cause"}} (the Catch's).
Out: {"error": the message the version records}.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict
from sqlalchemy import Engine

from rhumbline.ingest.distributed.run import Run
from rhumbline.ingest.distributed.shard import answer_key
from rhumbline.ingest.sharded.layout import described
from rhumbline.observability import lambda_entry
from rhumbline.stores.relational import versions
from rhumbline.stores.relational.schema.core import GraphVersion
from rhumbline.stores.relational.session import session_scope

_NAMED = 5  # shards named in the message; the count is exact


class Failure(BaseModel):
    Error: str = "unknown"
    Cause: str = ""


class FailedRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")  # the plan's output, whatever else it carries
    run: str
    version_id: int
    sharded: bool = False
    failure: Failure


def unanswered(run: Run) -> list[str]:
    """The shards of the run that have no answer, described as a failure names them."""
    items = json.loads(run.get(run.key("shards.json")))
    return [
        described(item["number"], item["files"], item["first"], item["last"])
        for item in items
        if not run.exists(answer_key(run, item["number"]))
    ]


def fail(request: FailedRequest, run: Run, engine: Engine) -> dict[str, Any]:
    failure = f"{request.failure.Error}: {request.failure.Cause}".rstrip(": ")
    shards = unanswered(run) if request.sharded else []
    if shards:
        named = ", ".join(shards[:_NAMED]) + (f" and {len(shards) - _NAMED} more" if len(shards) > _NAMED else "")
        message = f"{len(shards)} shard(s) failed after a retry: {named} ({failure})"
    else:
        message = f"the hosted ingest failed: {failure}"
    with session_scope(engine) as session:
        row = session.get(GraphVersion, request.version_id)
        if row is not None and row.status == "running":
            versions.finish(session, request.version_id, status="failed", node_count=0, edge_count=0, error=message[:2000])
    return {"error": message}


def handle(event: Any, _context: Any) -> dict[str, Any]:
    from rhumbline.runtime import resources

    request = FailedRequest.model_validate(event)
    return fail(request, Run.named(request.run), resources.relational_engine())


handler = lambda_entry(handle, function="ingest-failed")
