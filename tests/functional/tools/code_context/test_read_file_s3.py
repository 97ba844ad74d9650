"""The hosted shape of stored contents: the bytes in the deployment's S3 bucket (moto), the
relational rows only their index, on both shapes. Objects go with their versions and with the
project; a bucket that cannot be read is `unavailable` naming it, never an internal error."""

from __future__ import annotations

import hashlib
import inspect
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import boto3
import pytest
from moto import mock_aws

from rhumbline.config import settings
from rhumbline.stores.source_blobs import InlineBlobs, S3Blobs
from tests.functional.tools.code_context.conftest import failed, ok
from tests.functional.tools.code_context.test_read_file import _blob_rows, _ingest, _project_id, tree  # noqa: F401

BUCKET = "rhumbline-contents-test"


@pytest.fixture
def bucket(world, monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():  # fmt: skip
        monkeypatch.setenv(name, value)
    with mock_aws():
        client = boto3.client("s3", region_name="us-east-1")
        client.create_bucket(Bucket=BUCKET)
        blobs = S3Blobs(BUCKET)
        world.stores = replace(world.stores, blobs=lambda: blobs)
        yield client


def _objects(client, project_id: int) -> dict[str, bytes]:
    listed = client.list_objects_v2(Bucket=BUCKET, Prefix=f"sources/{project_id}/").get("Contents", [])
    return {
        item["Key"].rsplit("/", 1)[1]: client.get_object(Bucket=BUCKET, Key=item["Key"])["Body"].read()
        for item in listed
    }


def test_contents_live_in_the_bucket_and_go_with_their_versions(
    world, tree: Path, bucket, monkeypatch: pytest.MonkeyPatch
) -> None:
    from requests import sessions

    slug = f"psf/requests{uuid.uuid4().hex[:8]}"
    first = _ingest(world, tree, slug)
    project_id = _project_id(world.engine, slug)
    rows = _blob_rows(world.engine, project_id)
    objects = _objects(bucket, project_id)
    # The rows are the index: one per object, no bytes of their own; each object is its digest's.
    assert {digest for digest, _ in rows} == set(objects) and all(content is None for _, content in rows)
    assert all(hashlib.sha256(data).hexdigest() == digest for digest, data in objects.items())
    assert len(objects) == first["changes"]["source_files"]
    found = ok(world.call("function", {"name": "requests.sessions.merge_setting", "include_source": True}, projects=(slug,)))
    assert found["source"]["text"] == inspect.getsource(sessions.merge_setting)
    # Retention 1: the next ingest prunes version 1, and its one changed content leaves the bucket.
    monkeypatch.setenv("RHUMBLINE_GRAPH_RETENTION", "1")
    settings.cache_clear()
    old = hashlib.sha256((tree / "long.py").read_bytes()).hexdigest()
    (tree / "long.py").write_text("changed = True\n")
    second = _ingest(world, tree, slug)
    assert second["changes"]["pruned_versions"] == 1
    now = _objects(bucket, project_id)
    assert old not in now and hashlib.sha256(b"changed = True\n").hexdigest() in now and len(now) == len(objects)
    # Contents a hosted run's workers stored before a failed finish step: no row names them.
    orphan = b"stored by a worker of a run that failed\n"
    bucket.put_object(Bucket=BUCKET, Key=f"sources/{project_id}/{hashlib.sha256(orphan).hexdigest()}", Body=orphan)
    ok(world.call("delete_project", {"project": slug, "confirm": slug, "reviews": "drop"}, projects=(slug,),
                  scopes=("admin",)))  # fmt: skip
    assert _objects(bucket, project_id) == {}


def test_a_bucket_that_cannot_be_read_is_unavailable_naming_it(world, tree: Path, bucket) -> None:
    slug = f"psf/requests{uuid.uuid4().hex[:8]}"
    _ingest(world, tree, slug)
    project_id = _project_id(world.engine, slug)
    for key in _objects(bucket, project_id):
        bucket.delete_object(Bucket=BUCKET, Key=f"sources/{project_id}/{key}")
    error = failed(world.call("read_file", {"path": "requests/sessions.py"}, projects=(slug,)), "unavailable")
    assert f"S3 bucket {BUCKET}: GetObject failed" in error["message"] and error["details"] == {"store": "s3"}


def test_a_server_not_told_of_the_bucket_says_so(world, tree: Path, bucket) -> None:
    slug = f"psf/requests{uuid.uuid4().hex[:8]}"
    _ingest(world, tree, slug)
    world.stores = replace(world.stores, blobs=InlineBlobs)  # a server not told of the bucket
    error = failed(world.call("read_file", {"path": "requests/sessions.py"}, projects=(slug,)), "unavailable")
    assert "this server has none configured (RHUMBLINE_CONTENTS_BUCKET)" in error["message"]
