"""One shard in the Map: its archive in, its files' facts into the shared facts in S3, its answer
(sharded/worker.py's, one row per file) written beside the run.

In:  {"run": execution name, "shard": an item of shards.json}
Out: {"number", "files"}: small, the Map keeps no result (the answer is in S3).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from rhumbline.ingest.distributed.run import Run
from rhumbline.ingest.sharded.worker import parse_shard
from rhumbline.ingest.snapshots.facts_cache import extractor_fingerprint
from rhumbline.observability import lambda_entry


class ShardItem(BaseModel):
    number: int = Field(ge=0)
    files: int = Field(ge=1)
    first: str
    last: str


class ShardRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    run: str
    shard: ShardItem


def answer_key(run: Run, number: int) -> str:
    return run.key("answers", f"{number}.json")


def parse(request: ShardRequest, run: Run) -> dict[str, Any]:
    number = request.shard.number
    with run.extracted(run.key("shards", f"{number}.tar")) as (root, paths):
        task = {"root": str(root), "paths": paths, "facts": run.facts, "fingerprint": extractor_fingerprint()}
        answer = parse_shard(task)
    run.put(answer_key(run, number), json.dumps(answer).encode())
    return {"number": number, "files": len(paths)}


def handle(event: Any, _context: Any) -> dict[str, Any]:
    request = ShardRequest.model_validate(event)
    return parse(request, Run.named(request.run))


handler = lambda_entry(handle, function="ingest-shard")
