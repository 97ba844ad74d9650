"""A hosted run's S3 requests grow with its shards, never with its files (moto S3, the real stores;
requests counted by botocore's event hooks on the run's client): the plan uploads the tree once (no
archive a shard) and probes each shard's kept answer with one copy, each worker makes the same
three requests whatever its shard's file count (one ranged GET of its span of the tree, its
answer's PUT, the answer's copy kept under the shard key), the finish step one GET a shard besides
the tree's, and a re-ingest's plan two copies a kept shard (made fresh, then into the run), reading
none."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine

from rhumbline.ingest.distributed.finish import FinishRequest, finish
from rhumbline.ingest.distributed.plan import PlanRequest, plan
from rhumbline.ingest.distributed.run import Run
from rhumbline.ingest.distributed.shard import ShardRequest, parse
from rhumbline.stores.graph.protocol import GraphStore
from tests.functional.ingest.test_ingest_hosted_run import SHARD_BYTES, SOURCE, s3  # noqa: F401 — the fixture

WORKER = Counter({"GetObject": 1, "PutObject": 1, "CopyObject": 1})


@contextmanager
def counted(client: Any) -> Iterator[Counter[str]]:
    """Every request the client makes within the block, by operation."""
    calls: Counter[str] = Counter()

    def count(model: Any, **_: Any) -> None:
        calls[model.name] += 1

    client.meta.events.register("before-call.s3", count, unique_id="request-budget")
    try:
        yield calls
    finally:
        client.meta.events.unregister("before-call.s3", unique_id="request-budget")


def test_requests_grow_with_shards_not_files(
    s3: Any, graph_store: GraphStore, engine: Engine, unique_project: str  # noqa: F811
) -> None:
    run = Run.named("run-budget", s3)
    with counted(s3) as calls:
        planned = plan(PlanRequest(run=run.name, project=unique_project, source=SOURCE), run, engine,
                       above=0, max_bytes=SHARD_BYTES)  # fmt: skip
    # The tree and the shard list up, and one copy a shard that finds no kept answer to copy.
    assert calls == Counter({"PutObject": 2, "CopyObject": planned["shards"]}), calls
    items = json.loads(run.get(run.key("shards.json")))
    assert len({item["files"] for item in items}) > 3 and max(item["files"] for item in items) >= 5, items

    for item in items:
        with counted(s3) as calls:
            parse(ShardRequest.model_validate({"run": run.name, "shard": item}), run)
        assert calls == WORKER, (item, calls)

    with counted(s3) as calls:
        finish(FinishRequest.model_validate(planned), run, graph_store, engine)
    assert calls == Counter({"GetObject": len(items) + 1, "HeadObject": 1}), calls  # the answers, the tree

    again = Run.named("run-budget-2", s3)
    with counted(s3) as calls:
        replanned = plan(PlanRequest(run=again.name, project=unique_project, source=SOURCE), again, engine,
                         above=0, max_bytes=SHARD_BYTES)  # fmt: skip
    assert replanned["reused"] == len(items)
    # The tree and the (empty) shard list up; no answer passes through the plan.
    assert calls == Counter({"CopyObject": 2 * len(items), "PutObject": 2}), calls
