"""One shard in the Map: its span of the tree's archive in, its answer (sharded/worker.py's: each
file's row and facts, one object) written beside the run.

In:  {"run": execution name, "shard": an item of shards.json (its span: [start, end) in tree.tar)}
Out: {"number", "files"}: small, the Map keeps no result (the answer is in S3).

A worker makes the same few S3 requests whatever its shard's file count: its span of the tree's
archive in (one ranged GET), its answer out and, for a shard with a key (sharded/content_ids.py),
that answer copied under the key inside S3, where a later run's plan finds it and does not parse
the shard again. Reuse is by shard, not by file: a file whose shard changed (a neighbour edited, a
file added to its directory, itself moved to another shard) is parsed again with it. A shard is a
few seconds of one worker, and a file-level store cost two requests per file in every worker and
one per file in the finish step, the larger part of a large tree's hosted wall time and of its
cost.

Where the deployment keeps the files' contents in a bucket, the plan asks each worker to store
its own shard's new contents there too (contents.py): one PUT a file, many in flight, in the Map's
workers side by side rather than one after another in the finish step.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rhumbline.ingest.distributed.contents import Contents, bucket_for
from rhumbline.ingest.distributed.run import FACTS_PREFIX, Run
from rhumbline.ingest.sharded.answer import decode_answer
from rhumbline.ingest.sharded.worker import parse_shard
from rhumbline.ingest.snapshots.facts_cache import extractor_fingerprint
from rhumbline.observability import lambda_entry


class ShardItem(BaseModel):
    number: int = Field(ge=0)
    files: int = Field(ge=1)
    first: str
    last: str
    key: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    span: tuple[int, int]

    @model_validator(mode="after")
    def _a_span(self) -> ShardItem:
        if not 0 <= self.span[0] < self.span[1]:
            raise ValueError(f"not a byte span: {list(self.span)}")
        return self


class ShardRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    run: str
    shard: ShardItem
    contents: Contents | None = None  # the bucket its files' contents go to (contents.py)


def answer_key(run: Run, number: int) -> str:
    return run.key("answers", str(number))


def kept_answer_key(fingerprint: str, key: str) -> str:
    """Where the answer of the shard with this key is kept for later runs: under the extractor
    version that wrote its facts (the key digests it too; the prefix keeps versions apart)."""
    if not re.fullmatch(r"[0-9a-f]{16}", fingerprint) or not re.fullmatch(r"[0-9a-f]{64}", key):
        raise ValueError(f"not a shard key: {fingerprint!r}/{key!r}")
    return f"{FACTS_PREFIX}{fingerprint}/shards/{key}"


def parse(request: ShardRequest, run: Run) -> dict[str, Any]:
    number = request.shard.number
    contents = request.contents
    bucket = None if contents is None else bucket_for(contents)  # refused before any work
    with run.extracted(run.key("tree.tar"), span=request.shard.span) as (root, paths):
        answer = parse_shard({"root": str(root), "paths": paths})
        if bucket is not None and contents is not None:
            from rhumbline.ingest import sources

            files = [(row[1], row[3]) for row, _ in decode_answer(answer) if row[0] == "file"]
            sources.upload(bucket, contents.project_id, root, files)
    run.put(answer_key(run, number), answer)
    if request.shard.key is not None:
        run.copy(answer_key(run, number), kept_answer_key(extractor_fingerprint(), request.shard.key))
    return {"number": number, "files": len(paths)}


def handle(event: Any, _context: Any) -> dict[str, Any]:
    request = ShardRequest.model_validate(event)
    return parse(request, Run.named(request.run))


handler = lambda_entry(handle, function="ingest-shard")
