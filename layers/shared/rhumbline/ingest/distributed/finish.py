"""The run's last step: resolution, the staged graph write and the head flip, as ever.

pipeline.ingest_local runs on the plan's tree and continues the plan's version; its phase 1
reads the shards' answers in S3 instead of parsing, one GET a shard, many in flight (a tree the
plan did not shard is parsed here by the single reader, as the one-function ingest does). The
files' contents the shards parsed in this run are in the bucket already (contents.py): only
those of shards whose answers an earlier run kept are read and stored here, if new.

In:  the plan step's output.  Out: {"project", "version", "node_count", "edge_count", "files"}.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict
from sqlalchemy import Engine

from rhumbline.ingest.discover.parallel import Encoded, Parse, Progress, read_all_encoded
from rhumbline.ingest.distributed.contents import Contents, bucket_for
from rhumbline.ingest.distributed.run import MAX_POOL_CONNECTIONS, Run
from rhumbline.ingest.distributed.shard import answer_key
from rhumbline.ingest.pipeline import ingest_local
from rhumbline.ingest.sources import listed
from rhumbline.ingest.sharded.answer import Row, decode_answer
from rhumbline.ingest.sharded.executors import outcome_of
from rhumbline.observability import lambda_entry
from rhumbline.stores.graph.protocol import GraphStore

_PROGRESS_EVERY = 1_000  # files: each report checks (and renews) the version's lease
FETCH_THREADS = MAX_POOL_CONNECTIONS  # the answers' GETs in flight, each on its own connection


class FinishRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    run: str
    project: str
    source: str
    clear: bool = False
    version_id: int
    version: int
    commit: str | None
    sharded: bool
    shards: int
    reused: int = 0
    root: str
    contents: Contents | None = None


@dataclass(frozen=True)
class AnsweredReader:
    """Phase 1 (read_all_encoded's signature) from the shards' answers: path → its row and facts.
    Read once: it then lets go of every answer, so the facts of the files the facts cache answered
    are not held through resolution beside the cache's own."""

    answers: dict[str, tuple[Row, bytes | None]]
    uploaded: frozenset[str] = frozenset()  # digests of the files of the shards in `parsed`

    @classmethod
    def of(cls, run: Run, shards: int, parsed: frozenset[int] = frozenset()) -> AnsweredReader:
        answers: dict[str, tuple[Row, bytes | None]] = {}
        uploaded: set[str] = set()
        # One GET a shard, many in flight: one after another, their latency would add up.
        with ThreadPoolExecutor(FETCH_THREADS, thread_name_prefix="answer-get") as pool:
            bodies = pool.map(lambda number: (number, run.get(answer_key(run, number))), range(shards))
            for number, body in bodies:
                rows = decode_answer(body)
                answers.update((row[1], (row, blob)) for row, blob in rows)
                if number in parsed:  # what its worker stored: the files a manifest may list
                    uploaded.update(row[3] for row, _ in rows if row[0] == "file" and listed(row[1]))
        return cls(answers, frozenset(uploaded))

    def __call__(
        self, root: Path, paths: Sequence[str], *, workers: int | None = None, progress: Progress | None = None,
        sizes: Sequence[int | None] | None = None,
    ) -> list[Encoded]:  # fmt: skip
        missing = [path for path in paths if path not in self.answers]
        if missing:  # the plan listed the same tree: a difference is a bug, never a partial graph
            raise RuntimeError(f"{len(missing)} files have no shard answer, first {missing[0]!r}")
        results = []
        for done, path in enumerate(paths, 1):
            results.append(outcome_of(*self.answers[path], str(root)))
            if progress is not None and (done % _PROGRESS_EVERY == 0 or done == len(paths)):
                progress(done, len(paths))
        self.answers.clear()
        return results


def finish(request: FinishRequest, run: Run, store: GraphStore, engine: Engine) -> dict[str, Any]:
    parse: Parse = read_all_encoded
    uploaded: frozenset[str] = frozenset()
    if request.sharded:
        parsed: frozenset[int] = frozenset()
        if request.contents is not None:
            bucket_for(request.contents)  # the bucket the workers stored into is this one's
            parsed = frozenset(item["number"] for item in json.loads(run.get(run.key("shards.json"))))
        parse = reader = AnsweredReader.of(run, request.shards, parsed)
        uploaded = reader.uploaded
    with run.extracted(run.key("tree.tar"), request.root) as (root, _):
        summary = ingest_local(
            root, request.project, store=store, engine=engine, clear=request.clear, commit=request.commit,
            history=False, holder=f"hosted ingest run {run.name}", parse=parse,
            started=(request.version_id, request.version), uploaded=uploaded,
        )  # fmt: skip
    return {
        "project": request.project, "version": summary.version, "node_count": summary.node_count,
        "edge_count": summary.edge_count, "files": summary.files,
    }  # fmt: skip


def handle(event: Any, _context: Any) -> dict[str, Any]:
    from rhumbline.runtime import resources

    request = FinishRequest.model_validate(event)
    return finish(request, Run.named(request.run), resources.graph_store(), resources.relational_engine())


handler = lambda_entry(handle, function="ingest-finish")
