"""A hosted run's objects in S3 (ingest/distributed/), against moto: a run is named only by an
execution name and reads and writes only its own bucket (run.py); a kept shard answer is named
only by its extractor fingerprint and shard key, and is made fresh (its age restarted under the
lifecycle rule) before a run reuses it (plan.py); a shard archive cannot write outside its tree."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rhumbline.ingest.distributed.run import Run
from rhumbline.ingest.distributed.shard import kept_answer_key

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


def test_a_kept_answer_is_made_fresh_before_a_run_reuses_it(s3: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The lifecycle rule expires an answer by its date: the plan copies a kept answer onto itself
    before copying it into its run, so no answer a run is about to read is near its expiry."""
    from rhumbline.ingest.distributed.plan import _reuse
    from rhumbline.ingest.distributed.shard import answer_key

    monkeypatch.setenv("RHUMBLINE_INGEST_BUCKET", BUCKET)
    run = Run.named("run-kept", s3)
    kept = kept_answer_key("0123456789abcdef", "b" * 64)
    assert not _reuse(run, kept, 0) and objects(s3) == []  # nothing kept: the shard is parsed
    s3.put_object(Bucket=BUCKET, Key=kept, Body=b"answer")
    written = s3.head_object(Bucket=BUCKET, Key=kept)
    time.sleep(1.1)  # S3 dates have a one-second resolution

    assert _reuse(run, kept, 0)

    used = s3.head_object(Bucket=BUCKET, Key=kept)
    assert used["LastModified"] > written["LastModified"] and "used" in used["Metadata"]
    assert run.get(answer_key(run, 0)) == b"answer"


@pytest.mark.parametrize(
    ("fingerprint", "key"),
    [("0123456789abcdef", "../" + "a" * 61), ("../../runs/x/a", "a" * 64), ("0123456789abcdef", "A" * 64), ("", "")],
)
def test_a_kept_answer_is_named_only_by_its_fingerprint_and_shard_key(fingerprint: str, key: str) -> None:
    with pytest.raises(ValueError, match="not a shard key"):
        kept_answer_key(fingerprint, key)


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
    assert (run.bucket, run.key("tree.tar")) == (BUCKET, "runs/run-1/tree.tar")
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
    s3.put_object(Bucket=BUCKET, Key=run.key("tree.tar"), Body=archive.getvalue())
    span = [0, len(archive.getvalue())]
    request = ShardRequest.model_validate(
        {"run": run.name, "shard": {"number": 0, "files": 1, "first": "a", "last": "a", "span": span}}
    )  # fmt: skip

    with pytest.raises(tarfile.FilterError):
        parse(request, run)
    assert not list(tmp_path.rglob("escaped.py")) and objects(s3) == [run.key("tree.tar")]


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


def test_each_shards_span_of_the_tree_is_an_archive_of_its_own(
    s3: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A worker reads only its span of the one tree archive: its files whole, even one that is a
    hard link to another shard's, and nothing else; the whole archive is the whole tree."""
    monkeypatch.setenv("RHUMBLINE_INGEST_BUCKET", BUCKET)
    run = Run.named("run-spans", s3)
    tree = tmp_path / "tree"
    (tree / "a").mkdir(parents=True)
    (tree / "b").mkdir()
    (tree / "a" / "x.py").write_text("x = 1\n")
    (tree / "b" / "y.py").hardlink_to(tree / "a" / "x.py")
    (tree / "b" / "z.py").write_text("z = " + "9" * 300 + "\n")
    (tree / "notes.txt").write_text("not in a shard\n")
    shards = [["a/x.py"], ["b/y.py", "b/z.py"]]

    spans = run.upload_tree(run.key("tree.tar"), tree, shards)

    for members, span in zip(shards, spans, strict=True):
        with run.extracted(run.key("tree.tar"), span=span) as (root, names):
            assert names == members
            assert all((root / name).read_bytes() == (tree / name).read_bytes() for name in names)
    with run.extracted(run.key("tree.tar")) as (root, names):
        assert sorted(names) == ["a/x.py", "b/y.py", "b/z.py", "notes.txt"]
        assert all((root / name).read_bytes() == (tree / name).read_bytes() for name in names)
