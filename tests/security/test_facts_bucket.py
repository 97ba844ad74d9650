"""The facts store in S3 (ingest/sharded/facts_bucket.py), against moto: the directory store's keys
and blobs, a key of any other form refused before a request names an object, a blob found by `has`
rewritten so the lifecycle rule counts its age from its last use, and a location that is not
`s3://bucket/prefix/` refused. A hosted run's step names a run only by an execution name, and reads
and writes only its own bucket (distributed/run.py)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rhumbline.ingest.distributed.run import Run
from rhumbline.ingest.sharded.facts_bucket import FactsBucket, open_facts
from rhumbline.ingest.sharded.facts_store import FactsDirectory, facts_key
from tests.security.test_facts_store import ESCAPES

BUCKET = "rhumbline-ingest-test"


@pytest.fixture
def s3(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    from moto import mock_aws

    for name, value in {"AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "x", "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(name, value)
    with mock_aws():
        import boto3

        client = boto3.client("s3", region_name="us-east-1")
        client.create_bucket(Bucket=BUCKET)
        yield client


def objects(s3: Any) -> list[str]:
    return [item["Key"] for item in s3.list_objects_v2(Bucket=BUCKET).get("Contents", ())]


def test_blobs_round_trip_under_their_keys(s3: Any) -> None:
    store = FactsBucket.at(f"s3://{BUCKET}/facts/", s3)
    key = facts_key("0123456789abcdef", "python", "a" * 64)
    assert not store.has(key)
    store.put(key, b"facts")
    assert store.has(key) and store.get(key) == b"facts"
    store.put(key, b"facts")  # a second worker writing the same key
    assert objects(s3) == [f"facts/{key}"]
    store.keep_only("fedcba9876543210", set())  # the lifecycle rule expires, not the ingest
    assert objects(s3) == [f"facts/{key}"]


def test_has_restarts_a_found_blobs_age(s3: Any) -> None:
    store = FactsBucket.at(f"s3://{BUCKET}/facts/", s3)
    key = facts_key("0123456789abcdef", "go", "b" * 64)
    store.put(key, b"facts")
    written = s3.head_object(Bucket=BUCKET, Key=f"facts/{key}")
    time.sleep(1.1)  # S3 dates have a one-second resolution
    assert store.has(key)
    used = s3.head_object(Bucket=BUCKET, Key=f"facts/{key}")
    assert used["LastModified"] > written["LastModified"] and "used" in used["Metadata"]
    assert store.get(key) == b"facts"


@pytest.mark.parametrize("key", ESCAPES)
def test_a_key_of_another_form_names_no_object(s3: Any, key: str) -> None:
    store = FactsBucket.at(f"s3://{BUCKET}/facts/", s3)
    for call in (store.has, store.get, lambda k: store.put(k, b"blob")):
        with pytest.raises(ValueError, match="not a facts key"):
            call(key)
    assert objects(s3) == []


@pytest.mark.parametrize(
    "location", [f"s3://{BUCKET}/facts", f"s3://{BUCKET}/../facts/", "s3://UPPER/facts/", f"s3://{BUCKET}//"]
)
def test_a_location_of_another_form_is_refused(s3: Any, location: str) -> None:
    with pytest.raises(ValueError, match="not a facts location"):
        FactsBucket.at(location, s3)


def test_a_task_names_its_store_by_location(s3: Any, tmp_path: Any) -> None:
    assert isinstance(open_facts(f"s3://{BUCKET}/facts/"), FactsBucket)
    assert isinstance(open_facts(str(tmp_path)), FactsDirectory)


@pytest.mark.parametrize("name", ["", "../other", "a/b", "x" * 81, "run name", None, 3])
def test_a_run_is_named_only_by_an_execution_name(s3: Any, monkeypatch: pytest.MonkeyPatch, name: object) -> None:
    monkeypatch.setenv("RHUMBLINE_INGEST_BUCKET", BUCKET)
    with pytest.raises(ValueError, match="not a run name"):
        Run.named(name, s3)


def test_a_run_uses_only_the_functions_own_bucket(s3: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RHUMBLINE_INGEST_BUCKET", raising=False)
    with pytest.raises(RuntimeError, match="RHUMBLINE_INGEST_BUCKET is unset"):
        Run.named("run-1", s3)
    monkeypatch.setenv("RHUMBLINE_INGEST_BUCKET", BUCKET)
    run = Run.named("run-1", s3)
    assert (run.bucket, run.key("tree.tar"), run.facts) == (BUCKET, "runs/run-1/tree.tar", f"s3://{BUCKET}/facts/")
    with pytest.raises(ValueError, match="not a directory name"):
        with run.extracted("runs/run-1/tree.tar", ".."):
            pass


@pytest.mark.parametrize("member", ["../escaped.py", "link"])
def test_a_shard_archive_that_leaves_its_directory_is_refused(
    s3: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Any, member: str
) -> None:
    import io
    import tarfile

    from rhumbline.ingest.distributed.shard import ShardRequest, parse

    monkeypatch.setenv("RHUMBLINE_INGEST_BUCKET", BUCKET)
    run = Run.named("run-evil", s3)
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w") as tar:
        info = tarfile.TarInfo(member)
        if member == "link":  # a link out of the tree, then a file written through it
            info.type, info.linkname = tarfile.SYMTYPE, str(tmp_path)
            tar.addfile(info)
            info = tarfile.TarInfo("link/escaped.py")
        info.size = 5
        tar.addfile(info, io.BytesIO(b"x = 1"))
    s3.put_object(Bucket=BUCKET, Key=run.key("shards", "0.tar"), Body=archive.getvalue())
    request = ShardRequest.model_validate({"run": run.name, "shard": {"number": 0, "files": 1, "first": "a", "last": "a"}})

    with pytest.raises(tarfile.FilterError):
        parse(request, run)
    assert not list(tmp_path.rglob("escaped.py")) and objects(s3) == [run.key("shards", "0.tar")]


def test_an_absolute_member_of_a_shard_archive_lands_inside_the_tree(s3: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import tarfile

    monkeypatch.setenv("RHUMBLINE_INGEST_BUCKET", BUCKET)
    run = Run.named("run-absolute", s3)
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w") as tar:
        info = tarfile.TarInfo("/tmp/rhumbline-absolute-escape.py")
        info.size = 5
        tar.addfile(info, io.BytesIO(b"x = 1"))
    s3.put_object(Bucket=BUCKET, Key=run.key("tree.tar"), Body=archive.getvalue())

    with run.extracted(run.key("tree.tar")) as (root, names):
        assert names == ["tmp/rhumbline-absolute-escape.py"]  # as tarfile's data filter extracts it
        assert (root / names[0]).read_bytes() == b"x = 1"
    assert not Path("/tmp/rhumbline-absolute-escape.py").exists()
