"""The hosted ingest's steps (ingest/distributed/), driven in the state machine's order against moto
S3 and the real stores: plan → every shard → finish builds exactly the graph the local sharded
ingest builds (SQLite and Neo4j), a second run reuses every shard's kept answer (nothing parsed,
no object added under facts/), a push that changed one file parses one shard (the others' answers kept from the first
run) and builds the changed tree's graph, a small tree skips the Map and is parsed by the finish step, and a shard that fails fails
the version naming it, which frees the project for the next ingest.
"""

from __future__ import annotations

import io
import json
import shutil
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from rhumbline.ingest.build import build_graph
from rhumbline.ingest.distributed.failed import FailedRequest, fail
from rhumbline.ingest.distributed.finish import FinishRequest, finish
from rhumbline.ingest.distributed.plan import PlanRequest, plan
from rhumbline.ingest.distributed.run import Run
from rhumbline.ingest.distributed.shard import ShardRequest, parse
from rhumbline.ingest.sharded.executors import ShardedReader
from rhumbline.ingest.snapshots.facts_cache import extractor_fingerprint
from rhumbline.stores.graph.protocol import GraphStore
from rhumbline.stores.relational import versions
from rhumbline.stores.relational.session import session_scope
from tests.functional.ingest.graph_dump import dump
from tests.functional.ingest.test_ingest_identity import expected_graph

FIXTURES = Path(__file__).parents[2] / "fixtures" / "ingest"
SHARD_BYTES = 1_500  # as the local plan's identity test: a dozen shards and more, directories cut
BUCKET, SOURCES = "rhumbline-ingest-test", "rhumbline-sources-test"
SOURCE = f"s3://{SOURCES}/ci/polyglot.tar.gz"


@pytest.fixture
def s3(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    from moto import mock_aws

    env = {"AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "x", "AWS_DEFAULT_REGION": "us-east-1",
           "RHUMBLINE_INGEST_BUCKET": BUCKET}  # fmt: skip
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with mock_aws():
        import boto3

        client = boto3.client("s3", region_name="us-east-1")
        client.create_bucket(Bucket=BUCKET)
        client.create_bucket(Bucket=SOURCES)
        archive = io.BytesIO()
        with tarfile.open(fileobj=archive, mode="w:gz") as tar:
            tar.add(FIXTURES, arcname="polyglot")  # fetched() strips the top directory: root "polyglot"
        client.put_object(Bucket=SOURCES, Key="ci/polyglot.tar.gz", Body=archive.getvalue())
        yield client


def run_steps(
    name: str, project: str, s3: Any, store: GraphStore, engine: Engine, source: str = SOURCE, **sizes: int
) -> dict[str, Any]:
    """plan → the Map's items, each once → finish, as the state machine runs them."""
    run = Run.named(name, s3)
    planned = plan(PlanRequest(run=name, project=project, source=source), run, engine, **sizes)
    items = json.loads(run.get(run.key("shards.json")))
    for item in items:  # the Map's ItemSelector
        parse(ShardRequest.model_validate({"run": name, "shard": item, "contents": planned["contents"]}), run)
    return {**planned, "parsed": len(items), "finished": finish(FinishRequest.model_validate(planned), run, store, engine)}


def uploaded(s3: Any, tree: Path, key: str) -> str:
    """`tree` as a source archive in the sources bucket (its top directory named polyglot)."""
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w:gz") as tar:
        tar.add(tree, arcname="polyglot")
    s3.put_object(Bucket=SOURCES, Key=key, Body=archive.getvalue())
    return f"s3://{SOURCES}/{key}"


def facts(s3: Any) -> set[str]:
    pages = s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix="facts/")
    return {item["Key"] for page in pages for item in page.get("Contents", ())}


def test_the_hosted_run_builds_the_local_sharded_ingests_graph(
    s3: Any, store: GraphStore, engine: Engine, tmp_path: Path, unique_project: str
) -> None:
    tree = Path(shutil.copytree(FIXTURES, tmp_path / "polyglot"))
    local = ShardedReader(max_bytes=SHARD_BYTES)
    expected = expected_graph(build_graph(tree, unique_project, workers=1, history=False, parse=local))

    first = run_steps("run-1", unique_project, s3, store, engine, above=0, max_bytes=SHARD_BYTES)

    assert first["sharded"] and first["shards"] >= 10, first
    assert dump(store, unique_project) == expected
    assert first["finished"]["version"] == first["version"]
    with session_scope(engine) as session:
        row = versions.latest(session, unique_project)
        assert (row.version, row.status, row.holder) == (first["version"], "completed", "hosted ingest run run-1")
    stored = facts(s3)  # one kept answer a shard, nothing a file
    assert len(stored) == first["shards"] and all(key.startswith(f"facts/{extractor_fingerprint()}/shards/") for key in stored)

    # The next version: every shard's answer is kept, nothing is parsed, and the graph is the same.
    second = run_steps("run-2", unique_project, s3, store, engine, above=0, max_bytes=SHARD_BYTES)
    assert second["version"] == first["version"] + 1 and facts(s3) == stored
    assert (second["parsed"], second["reused"]) == (0, second["shards"])
    assert dump(store, unique_project) == expected


def test_a_push_parses_only_the_shards_whose_files_changed(
    s3: Any, graph_store: GraphStore, engine: Engine, tmp_path: Path, unique_project: str
) -> None:
    first = run_steps("run-push-1", unique_project, s3, graph_store, engine, above=0, max_bytes=SHARD_BYTES)
    assert (first["reused"], first["parsed"]) == (0, first["shards"]) and first["shards"] >= 10, first

    tree = Path(shutil.copytree(FIXTURES, tmp_path / "polyglot"))
    changed = next(path for path in sorted(tree.rglob("*.py")) if path.stat().st_size > 0)
    changed.write_text(changed.read_text() + "\n\ndef added_by_the_push():\n    return None\n")
    source = uploaded(s3, tree, "ci/pushed.tar.gz")
    local = ShardedReader(max_bytes=SHARD_BYTES)
    expected = expected_graph(build_graph(tree, unique_project, workers=1, history=False, parse=local))

    second = run_steps("run-push-2", unique_project, s3, graph_store, engine, source, above=0, max_bytes=SHARD_BYTES)

    assert second["shards"] == first["shards"] and second["parsed"] == 1, second
    assert second["reused"] == second["shards"] - 1
    assert dump(graph_store, unique_project) == expected
    # The same push again: nothing is parsed, and the graph stays the same.
    third = run_steps("run-push-3", unique_project, s3, graph_store, engine, source, above=0, max_bytes=SHARD_BYTES)
    assert (third["parsed"], third["reused"]) == (0, third["shards"])
    assert dump(graph_store, unique_project) == expected


def test_a_small_tree_skips_the_map_and_builds_the_same_graph(
    s3: Any, graph_store: GraphStore, engine: Engine, tmp_path: Path, unique_project: str
) -> None:
    tree = Path(shutil.copytree(FIXTURES, tmp_path / "polyglot"))
    expected = expected_graph(build_graph(tree, unique_project, workers=1, history=False))

    run = run_steps("run-small", unique_project, s3, graph_store, engine)  # the default size rule

    assert (run["sharded"], run["shards"]) == (False, 0)
    assert json.loads(Run.named("run-small", s3).get("runs/run-small/shards.json")) == []
    assert dump(graph_store, unique_project) == expected and facts(s3) == set()


def test_a_failed_shard_fails_the_version_naming_it(
    s3: Any, graph_store: GraphStore, engine: Engine, unique_project: str
) -> None:
    run = Run.named("run-broken", s3)
    planned = plan(PlanRequest(run=run.name, project=unique_project, source=SOURCE), run, engine,
                   above=0, max_bytes=SHARD_BYTES)  # fmt: skip
    # The plan step retried (its function's answer lost): the same run keeps its one version.
    again = plan(PlanRequest(run=run.name, project=unique_project, source=SOURCE), run, engine,
                 above=0, max_bytes=SHARD_BYTES)  # fmt: skip
    assert (again["version_id"], again["version"]) == (planned["version_id"], planned["version"])
    # Another run of the project is refused while this one holds the lease, naming it.
    other = Run.named("run-other", s3)
    with pytest.raises(versions.IngestInProgress, match="hosted ingest run run-broken"):
        plan(PlanRequest(run=other.name, project=unique_project, source=SOURCE), other, engine)
    items = json.loads(run.get(run.key("shards.json")))
    for item in items:
        request = ShardRequest.model_validate({"run": run.name, "shard": item})
        if item["number"] == 1:  # its span past the tree's end: it cannot be read, it fails
            request.shard.span = (10**12, 10**12 + 1)
            with pytest.raises(Exception, match="InvalidRange|416"):
                parse(request, run)
        else:
            parse(request, run)
    with session_scope(engine) as session:
        assert versions.latest(session, unique_project).status == "running"  # the lease held through the Map

    failure = {"Error": "States.ExceedToleratedFailureThreshold", "Cause": "a child execution failed"}
    outcome = fail(FailedRequest.model_validate({**planned, "failure": failure}), run, engine)

    shard = items[1]
    named = f"shard 1 ({shard['files']} files, {shard['first']} to {shard['last']})"
    assert outcome["error"].startswith(f"1 shard(s) failed after a retry: {named}"), outcome
    assert "States.ExceedToleratedFailureThreshold" in outcome["error"]
    with session_scope(engine) as session:
        row = versions.latest(session, unique_project)
        assert (row.version, row.status, row.error) == (planned["version"], "failed", outcome["error"])
    # The project is free: the next run starts the next version and completes it.
    again = run_steps("run-again", unique_project, s3, graph_store, engine, above=0, max_bytes=SHARD_BYTES)
    assert again["version"] == planned["version"] + 1 and again["finished"]["node_count"] > 0
