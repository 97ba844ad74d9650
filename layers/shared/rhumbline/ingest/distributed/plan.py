"""The run's first step: fetch the source, list and shard it, start the version, write the plan.

In:  {"run": execution name, "project": owner/repo, "source": github:... or s3://..., "clear": bool}
Out: the same, plus {"version_id", "version", "commit", "sharded", "shards", "reused", "root" (the
     tree's directory name, which names the graph's root module), "contents" (the bucket and
     project the workers store the files' contents for, or null: contents.py)}: what the Map and
     the finish step need (the shard list itself is in S3, too large for a state's input).

Incremental: a shard whose key (its files' blob ids, sharded/content_ids.py) an earlier run
answered gets that answer copied into this run inside S3 (two requests, no bytes through this
function) and is left out of the Map's items; only the shards whose files changed are parsed. A
file's id comes from git's index where git describes the tree, else from hashing it, never from
parsing it. The tree is uploaded once: each parsed shard's files sit together in it, and its
item names their byte span, which is all its worker reads.

The source may be larger than the one-function ingest fetches (FETCH_LIMITS). The version
started here is the project's lease for the whole run (RUN_LEASE_SECONDS, the state
machine's own timeout): a second ingest of the project is refused, naming this one, until the
finish step completes it or the failed step fails it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Engine

from rhumbline.ingest.discover.parallel import size_of
from rhumbline.ingest.discover.sources import FetchLimits, fetch_limits, fetched
from rhumbline.ingest.discover.walk import discover
from rhumbline.ingest.distributed.contents import requested
from rhumbline.ingest.distributed.run import Run
from rhumbline.ingest.distributed.shard import answer_key, kept_answer_key
from rhumbline.ingest.sharded.content_ids import content_ids, shard_key
from rhumbline.ingest.sharded.executors import SHARDED_ABOVE_BYTES, wants_shards
from rhumbline.ingest.sharded.layout import SHARD_BYTES, SHARD_FILES, plan_shards
from rhumbline.ingest.snapshots.facts_cache import extractor_fingerprint
from rhumbline.observability import lambda_entry
from rhumbline.stores.relational import versions
from rhumbline.stores.relational.session import session_scope

# The state machine's TimeoutSeconds (statemachines/ingest.asl.yaml): the lease outlives no run.
RUN_LEASE_SECONDS = 2 * 3600
# What the plan and finish functions' 10 GB of /tmp hold at once: the archive beside the tree it
# unpacks to, then the tree beside its tar (plan); the tar beside the tree (finish).
TMP_BYTES = 10 * 1024**3
FETCH_LIMITS = FetchLimits(download_bytes=4 * 1024**3, unpacked_bytes=4608 * 1024**2, files=1_000_000)


class PlanRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    run: str
    project: str = Field(pattern=r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
    source: str
    clear: bool = False


def plan(
    request: PlanRequest, run: Run, engine: Engine, *,
    above: int = SHARDED_ABOVE_BYTES, max_bytes: int = SHARD_BYTES, max_files: int = SHARD_FILES,
) -> dict[str, Any]:  # fmt: skip
    with fetch_limits(FETCH_LIMITS), fetched(request.source) as tree:
        root = Path(tree.root)
        paths = discover(root).paths
        sizes = [size_of(str(root / path)) or 0 for path in paths]
        sharded = wants_shards(sizes, above=above)
        shards = plan_shards(paths, sizes, max_bytes=max_bytes, max_files=max_files) if sharded else []
        ids = content_ids(root, paths) if sharded else []
        fingerprint = extractor_fingerprint()
        items, parsed = [], []
        for number, shard in enumerate(shards):
            members = [paths[index] for index in shard]
            key = shard_key(fingerprint, members, [ids[index] for index in shard])
            if key is not None and _reuse(run, kept_answer_key(fingerprint, key), number):
                continue
            parsed.append(members)
            items.append({
                "number": number, "files": len(members), "first": members[0], "last": members[-1], "key": key,
            })  # fmt: skip
        # One upload: each shard the Map parses reads its own span of the tree.
        spans = run.upload_tree(run.key("tree.tar"), root, parsed)
        items = [{**item, "span": list(span)} for item, span in zip(items, spans, strict=True)]
        reused = len(shards) - len(items)
        run.put(run.key("shards.json"), json.dumps(items).encode())
        commit, name = tree.commit, root.name
    holder = f"hosted ingest run {run.name}"
    with session_scope(engine) as session:
        running = versions.latest(session, request.project, status="running")
        if running is not None and running.holder == holder:  # this run's plan, retried
            version_id, number, project_id = running.id, running.version, running.project_id
        else:
            row = versions.start(
                session, request.project, commit_sha=commit, holder=holder, lease_seconds=RUN_LEASE_SECONDS
            )  # fmt: skip
            version_id, number, project_id = row.id, row.version, row.project_id
    contents = requested(project_id) if items else None
    return {
        **request.model_dump(), "version_id": version_id, "version": number, "commit": commit,
        "sharded": sharded, "shards": len(shards), "reused": reused, "root": name,
        "contents": None if contents is None else contents.model_dump(),
    }  # fmt: skip


def _reuse(run: Run, kept: str, number: int) -> bool:
    """Copy an earlier run's answer kept at `kept` into this run as shard `number`'s, if there is
    one. It is first copied onto itself, which restarts its age: the lifecycle rule expires only
    answers no run used for its retention, never one this run is about to read."""
    from botocore.exceptions import ClientError

    try:
        run.copy(kept, kept)
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") in ("NoSuchKey", "404", "NotFound"):
            return False
        raise
    run.copy(kept, answer_key(run, number))
    return True


def handle(event: Any, _context: Any) -> dict[str, Any]:
    from rhumbline.runtime import resources

    request = PlanRequest.model_validate(event)
    return plan(request, Run.named(request.run), resources.relational_engine())


handler = lambda_entry(handle, function="ingest-plan")
