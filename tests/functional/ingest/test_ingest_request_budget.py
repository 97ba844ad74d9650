"""A hosted run's S3 requests grow with its shards, never with its files (moto S3, the real
stores; requests counted by botocore's event hooks on the run's client): each worker makes the
same four requests whatever its shard's file count (its archive's HEAD and GET, its answer's PUT,
the answer's copy kept under the shard key), the finish step one GET a shard besides the tree's,
and a re-ingest's plan two copies a kept shard (made fresh, then into the run), reading none."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from sqlalchemy import Engine

from rhumbline.ingest.distributed.finish import FinishRequest, finish
from rhumbline.ingest.distributed.plan import PlanRequest, plan
from rhumbline.ingest.distributed.run import Run
from rhumbline.ingest.distributed.shard import ShardRequest, parse
from rhumbline.stores.graph.protocol import GraphStore
from tests.functional.ingest.test_ingest_hosted_run import SHARD_BYTES, SOURCE, s3  # noqa: F401 — the fixture

WORKER = Counter({"HeadObject": 1, "GetObject": 1, "PutObject": 1, "CopyObject": 1})


def counted(client: Any) -> Counter[str]:
    """Every request the client makes from now on, by operation."""
    calls: Counter[str] = Counter()

    def count(model: Any, **_: Any) -> None:
        calls[model.name] += 1

    client.meta.events.register("before-call.s3", count)
    return calls


def test_requests_grow_with_shards_not_files(
    s3: Any, graph_store: GraphStore, engine: Engine, unique_project: str  # noqa: F811
) -> None:
    run = Run.named("run-budget", s3)
    planned = plan(PlanRequest(run=run.name, project=unique_project, source=SOURCE), run, engine,
                   above=0, max_bytes=SHARD_BYTES)  # fmt: skip
    items = json.loads(run.get(run.key("shards.json")))
    assert len({item["files"] for item in items}) > 3 and max(item["files"] for item in items) >= 5, items

    for item in items:
        calls = counted(s3)
        parse(ShardRequest.model_validate({"run": run.name, "shard": item}), run)
        s3.meta.events.unregister("before-call.s3")
        assert calls == WORKER, (item, calls)

    calls = counted(s3)
    finish(FinishRequest.model_validate(planned), run, graph_store, engine)
    s3.meta.events.unregister("before-call.s3")
    assert calls == Counter({"GetObject": len(items) + 1, "HeadObject": 1}), calls  # the answers, the tree

    again = Run.named("run-budget-2", s3)
    calls = counted(s3)
    replanned = plan(PlanRequest(run=again.name, project=unique_project, source=SOURCE), again, engine,
                     above=0, max_bytes=SHARD_BYTES)  # fmt: skip
    s3.meta.events.unregister("before-call.s3")
    assert replanned["reused"] == len(items)
    # The tree and the (empty) shard list up; no answer passes through the plan.
    assert calls == Counter({"CopyObject": 2 * len(items), "PutObject": 2}), calls
