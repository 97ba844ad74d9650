"""The files' contents of a hosted run where the deployment keeps them in a bucket (moto S3, the
real stores): each parse worker stores its own shard's files' contents and the finish step sends
none, only recording them; a push's one parsed shard stores its files again; a run whose shards
were all answered before (another project of the same tree) has no worker, and its finish step
stores the contents itself, as it does a kept shard's file whose bytes only a withheld file of a
parsed shard shares; a worker told another bucket than its own fails before parsing."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import boto3
import pytest
from sqlalchemy import Engine

from rhumbline.config import settings
from rhumbline.ingest.distributed.finish import FinishRequest, finish
from rhumbline.ingest.distributed.plan import PlanRequest, plan
from rhumbline.ingest.distributed.run import Run
from rhumbline.ingest.distributed.shard import ShardRequest, parse
from rhumbline.stores.graph.protocol import GraphStore
from rhumbline.stores.relational import projects
from rhumbline.stores.relational import sources as rows
from rhumbline.stores.relational.session import session_scope
from tests.functional.ingest.test_ingest_hosted_run import FIXTURES, SHARD_BYTES, SOURCE, s3, uploaded  # noqa: F401

CONTENTS = "rhumbline-contents-test"


@pytest.fixture
def contents(s3: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:  # noqa: F811
    s3.create_bucket(Bucket=CONTENTS)
    monkeypatch.setenv("RHUMBLINE_CONTENTS_BUCKET", CONTENTS)
    settings.cache_clear()
    yield s3
    monkeypatch.delenv("RHUMBLINE_CONTENTS_BUCKET")
    settings.cache_clear()


@contextmanager
def contents_puts() -> Iterator[list[str]]:
    """The digests of the PUTs into the contents bucket made within the block, by any client
    created in it (their events are copied from the default session's)."""
    digests: list[str] = []

    def seen(params: dict[str, Any], **_: Any) -> None:
        if params.get("Bucket") == CONTENTS:
            digests.append(params["Key"].rsplit("/", 1)[1])

    session = boto3._get_default_session()
    session.events.register("before-parameter-build.s3.PutObject", seen, unique_id="contents-puts")
    try:
        yield digests
    finally:
        session.events.unregister("before-parameter-build.s3.PutObject", unique_id="contents-puts")


def steps(
    name: str, project: str, s3: Any, store: GraphStore, engine: Engine, source: str = SOURCE
) -> tuple[dict, list[str], list[str]]:
    """plan → the Map → finish, as the state machine runs them; the plan's output and the digests
    the workers and the finish step put into the contents bucket."""
    run = Run.named(name, s3)
    planned = plan(PlanRequest(run=name, project=project, source=source), run, engine, above=0, max_bytes=SHARD_BYTES)
    with contents_puts() as by_workers:
        for item in json.loads(run.get(run.key("shards.json"))):
            parse(ShardRequest.model_validate({"run": name, "shard": item, "contents": planned["contents"]}), run)
    with contents_puts() as by_finish:
        finish(FinishRequest.model_validate(planned), run, store, engine)
    return planned, by_workers, by_finish


def listed(engine: Engine, project: str) -> tuple[int, dict[str, str]]:
    """The project's id and its newest manifest: path → digest."""
    with session_scope(engine) as session:
        project_id = projects.get_or_create(session, project).id
        found = rows.latest_manifest(session, project_id)
        assert found is not None
        return project_id, {path: digest for path, (digest, _) in found[1].items()}


def objects(s3: Any, project_id: int) -> dict[str, bytes]:
    found = s3.list_objects_v2(Bucket=CONTENTS, Prefix=f"sources/{project_id}/").get("Contents", [])
    return {item["Key"].rsplit("/", 1)[1]: s3.get_object(Bucket=CONTENTS, Key=item["Key"])["Body"].read() for item in found}


def test_the_workers_store_the_contents_and_the_finish_step_sends_none(
    contents: Any, graph_store: GraphStore, engine: Engine, unique_project: str
) -> None:
    planned, by_workers, by_finish = steps("run-contents", unique_project, contents, graph_store, engine)

    project_id, manifest = listed(engine, unique_project)
    assert planned["contents"] == {"bucket": CONTENTS, "project_id": project_id}
    assert by_finish == [] and len(manifest) > 20
    stored = objects(contents, project_id)
    # Every file the version lists, and nothing else, with the bytes of its digest.
    assert set(stored) == set(manifest.values()) == set(by_workers)
    assert all(hashlib.sha256(data).hexdigest() == digest for digest, data in stored.items())

    # The same tree for another project: every shard's answer is kept, no worker runs, and the
    # finish step stores that project's contents itself.
    other = f"{unique_project}-again"
    again, by_workers, by_finish = steps("run-contents-again", other, contents, graph_store, engine)
    other_id, other_manifest = listed(engine, other)
    assert (again["reused"], again["contents"]) == (again["shards"], None) and by_workers == []
    assert sorted(by_finish) == sorted(set(other_manifest.values())) == sorted(objects(contents, other_id))


def test_a_kept_shards_file_is_stored_by_the_finish_step_when_only_a_withheld_file_shares_its_bytes(
    contents: Any, graph_store: GraphStore, engine: Engine, tmp_path: Path, unique_project: str
) -> None:
    tree = Path(shutil.copytree(FIXTURES, tmp_path / "polyglot"))
    shared = b"the same bytes, listed in one place and withheld in another\n"
    (tree / "aaa-sample").mkdir()
    (tree / "aaa-sample" / "sample.txt").write_bytes(shared)
    first = uploaded(contents, tree, "ci/sample.tar.gz")
    steps("run-sample", f"{unique_project}-first", contents, graph_store, engine, first)
    # Another project: the same tree and a secret file at its end, in the one shard parsed.
    (tree / "zzz-secret").mkdir()
    (tree / "zzz-secret" / ".env").write_bytes(shared)
    second = uploaded(contents, tree, "ci/secret.tar.gz")
    planned, by_workers, by_finish = steps("run-secret", unique_project, contents, graph_store, engine, second)

    digest = hashlib.sha256(shared).hexdigest()
    project_id, manifest = listed(engine, unique_project)
    assert planned["reused"] > 0 and manifest["aaa-sample/sample.txt"] == digest and "zzz-secret/.env" not in manifest
    assert digest not in by_workers and digest in by_finish
    assert objects(contents, project_id)[digest] == shared


def test_a_worker_told_another_bucket_fails_before_parsing(contents: Any, engine: Engine, unique_project: str) -> None:
    run = Run.named("run-contents-elsewhere", contents)
    planned = plan(PlanRequest(run=run.name, project=unique_project, source=SOURCE), run, engine,
                   above=0, max_bytes=SHARD_BYTES)  # fmt: skip
    item = json.loads(run.get(run.key("shards.json")))[0]
    elsewhere = {**planned["contents"], "bucket": "another-bucket"}
    with pytest.raises(ValueError, match="'another-bucket'.*'rhumbline-contents-test'"):
        parse(ShardRequest.model_validate({"run": run.name, "shard": item, "contents": elsewhere}), run)
    assert contents.list_objects_v2(Bucket=run.bucket, Prefix=run.key("answers")).get("KeyCount") == 0


def test_a_file_no_longer_as_its_parse_read_it_fails_the_upload(contents: Any, tmp_path: Path) -> None:
    from rhumbline.ingest.sources import upload
    from rhumbline.stores.source_blobs import S3Blobs

    (tmp_path / "a.py").write_bytes(b"x = 1\n")
    (tmp_path / ".env").write_bytes(b"TOKEN=1\n")
    parsed = hashlib.sha256(b"x = 0\n").hexdigest()
    with pytest.raises(RuntimeError, match="a.py changed after it was parsed"):
        upload(S3Blobs(CONTENTS), 1, tmp_path, [(".env", "0" * 64), ("a.py", parsed)])
    assert contents.list_objects_v2(Bucket=CONTENTS).get("KeyCount") == 0  # a withheld name is never read
