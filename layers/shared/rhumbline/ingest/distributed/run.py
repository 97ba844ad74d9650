"""Where a hosted run keeps its files: `runs/<execution name>/` in the ingest bucket.

    runs/<run>/tree.tar              the fetched tree, as the plan step saw it: the shards' files
                                     first, each shard's a span of its own (upload_tree)
    runs/<run>/shards.json           [{"number", "files", "first", "last", "key", "span"}]: the
                                     Map's items
    runs/<run>/answers/<n>           shard n's parse_shard answer (sharded/answer.py)
    facts/<fingerprint>/shards/<key>  a shard's answer kept for later runs (shard.py)

The bucket is the function's own (RHUMBLINE_INGEST_BUCKET), never one a step's input names, and
a run's name is checked before a key is made of it. The lifecycle rules expire runs/ after a day.
"""

from __future__ import annotations

import os
import re
import shutil
import tarfile
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BUCKET_VARIABLE = "RHUMBLINE_INGEST_BUCKET"
FACTS_PREFIX = "facts/"
# Step Functions' execution names: 1-80 of these characters.
_RUN = re.compile(r"^[A-Za-z0-9_-]{1,80}$")
_ROOT_NAME = re.compile(r"^[A-Za-z0-9_.@+-]{1,255}$")
CONNECT_TIMEOUT_SECONDS = 5
READ_TIMEOUT_SECONDS = 30
# Connections a client keeps: the finish step reads the shards' answers with this many GETs in flight.
MAX_POOL_CONNECTIONS = 32


def s3_client() -> Any:
    """An S3 client whose calls give up instead of hanging a step until its function times out."""
    import boto3
    from botocore.config import Config

    config = Config(
        connect_timeout=CONNECT_TIMEOUT_SECONDS, read_timeout=READ_TIMEOUT_SECONDS,
        retries={"total_max_attempts": 4, "mode": "standard"}, max_pool_connections=MAX_POOL_CONNECTIONS,
    )  # fmt: skip
    return boto3.client("s3", config=config)


@dataclass(frozen=True)
class Run:
    bucket: str
    name: str
    client: Any

    @classmethod
    def named(cls, name: object, client: Any = None) -> Run:
        if not isinstance(name, str) or not _RUN.match(name):
            raise ValueError(f"not a run name: {name!r} (an execution name, 1-80 of A-Z a-z 0-9 _ -)")
        bucket = os.environ.get(BUCKET_VARIABLE, "").strip()
        if not bucket:
            raise RuntimeError(f"{BUCKET_VARIABLE} is unset: the ingest bucket is not configured")
        return cls(bucket, name, client or s3_client())

    def key(self, *parts: str) -> str:
        return "/".join(("runs", self.name, *parts))

    def put(self, key: str, body: bytes) -> None:
        self.client.put_object(Bucket=self.bucket, Key=key, Body=body)

    def get(self, key: str) -> bytes:
        return bytes(self.client.get_object(Bucket=self.bucket, Key=key)["Body"].read())

    def copy(self, source: str, key: str) -> None:
        """The object at `source` copied to `key` inside S3 (onto itself too: its date, from which
        the bucket's lifecycle rule counts its age, is then now)."""
        self.client.copy_object(
            Bucket=self.bucket, Key=key, CopySource={"Bucket": self.bucket, "Key": source},
            MetadataDirective="REPLACE", Metadata={"used": str(int(time.time()))},
        )  # fmt: skip

    def exists(self, key: str) -> bool:
        listed = self.client.list_objects_v2(Bucket=self.bucket, Prefix=key, MaxKeys=1)
        return any(item["Key"] == key for item in listed.get("Contents", ()))

    def upload_tree(self, key: str, root: Path, shards: Sequence[Sequence[str]] = ()) -> list[tuple[int, int]]:
        """`root` as an uncompressed tar at `key`, each shard's files first and together, then
        the rest of the tree; returns each shard's byte span [start, end) in it. A span is a tar
        of its own (a worker reads just it: the tree is uploaded once, not again by shard), so a
        file is stored whole even where it is a hard link to an earlier member."""
        spans, added = [], set()
        with tempfile.TemporaryFile() as spool:
            with tarfile.open(fileobj=spool, mode="w") as archive:
                for members in shards:
                    start = archive.offset
                    for path in members:
                        info = archive.gettarinfo(root / path, arcname=path)
                        if info.islnk():
                            info.type, info.linkname, info.size = tarfile.REGTYPE, "", (root / path).stat().st_size
                        if info.isreg():
                            with open(root / path, "rb") as handle:
                                archive.addfile(info, handle)
                        else:
                            archive.addfile(info)
                        added.add(path)
                    spans.append((start, archive.offset))
                rest = lambda info: None if info.name.removeprefix("./") in added else info  # noqa: E731
                archive.add(root, arcname=".", filter=rest)
            spool.seek(0)
            self.client.upload_fileobj(spool, self.bucket, key)
        return spans

    @contextmanager
    def extracted(
        self, key: str, name: str = "tree", span: tuple[int, int] | None = None
    ) -> Iterator[tuple[Path, list[str]]]:
        """The tar at `key` (only its bytes [start, end) given a `span`: one GET) unpacked in a
        temporary directory called `name` (the graph's root module is named after it, so the
        finish step uses the fetched tree's), and its regular files' names in archive order.
        tarfile's `data` filter refuses links out, absolute paths and devices."""
        if not _ROOT_NAME.match(name) or name in (".", ".."):
            raise ValueError(f"not a directory name: {name!r}")
        with tempfile.TemporaryDirectory(prefix="rhumbline-run-") as directory, tempfile.TemporaryFile() as spool:
            if span is None:
                self.client.download_fileobj(self.bucket, key, spool)
            else:
                ranged = f"bytes={span[0]}-{span[1] - 1}"
                shutil.copyfileobj(self.client.get_object(Bucket=self.bucket, Key=key, Range=ranged)["Body"], spool)
            spool.seek(0)
            root = Path(directory) / name
            with tarfile.open(fileobj=spool, mode="r") as archive:
                # The names as the filter extracts them (an absolute one made relative), so no
                # name handed on can point outside the tree.
                members = [tarfile.data_filter(member, str(root)) for member in archive.getmembers()]
                archive.extractall(root, members=members, filter="data")
                names = [member.name.removeprefix("./") for member in members if member.isfile()]
            yield root, names
