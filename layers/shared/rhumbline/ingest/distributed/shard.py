"""One shard in the Map: its archive in, its files' facts into the shared facts in S3, its answer
(sharded/worker.py's, one row per file) written beside the run.

In:  {"run": execution name, "shard": an item of shards.json}
Out: {"number", "files"}: small, the Map keeps no result (the answer is in S3).

A shard with a key (sharded/content_ids.py) leaves its answer under the key too, beside the facts
(and expiring with them): a later run's plan finds it there and does not parse the shard again.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from rhumbline.ingest.distributed.run import FACTS_PREFIX, Run
from rhumbline.ingest.sharded.worker import parse_shard
from rhumbline.ingest.snapshots.facts_cache import extractor_fingerprint
from rhumbline.observability import lambda_entry


class ShardItem(BaseModel):
    number: int = Field(ge=0)
    files: int = Field(ge=1)
    first: str
    last: str
    key: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")


class ShardRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    run: str
    shard: ShardItem


def answer_key(run: Run, number: int) -> str:
    return run.key("answers", f"{number}.json")


def kept_answer_key(fingerprint: str, key: str) -> str:
    """Where the answer of the shard with this key is kept for later runs: beside the facts of
    the extractor version that wrote them."""
    if not re.fullmatch(r"[0-9a-f]{16}", fingerprint) or not re.fullmatch(r"[0-9a-f]{64}", key):
        raise ValueError(f"not a shard key: {fingerprint!r}/{key!r}")
    return f"{FACTS_PREFIX}{fingerprint}/shards/{key}.json"


def parse(request: ShardRequest, run: Run) -> dict[str, Any]:
    number = request.shard.number
    with run.extracted(run.key("shards", f"{number}.tar")) as (root, paths):
        fingerprint = extractor_fingerprint()
        task = {"root": str(root), "paths": paths, "facts": run.facts, "fingerprint": fingerprint}
        answer = parse_shard(task)
    body = json.dumps(answer).encode()
    run.put(answer_key(run, number), body)
    if request.shard.key is not None:
        run.put(kept_answer_key(fingerprint, request.shard.key), body)
    return {"number": number, "files": len(paths)}


def handle(event: Any, _context: Any) -> dict[str, Any]:
    request = ShardRequest.model_validate(event)
    return parse(request, Run.named(request.run))


handler = lambda_entry(handle, function="ingest-shard")
