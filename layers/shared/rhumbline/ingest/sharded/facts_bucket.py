"""The facts store in S3, for workers that share no disk: the same keys and blobs as FactsDirectory.

A blob lives at `<prefix><key>` (keys checked as the directory store checks them). S3 writes are
atomic per object, so two workers putting one key leave one whole copy. Nothing is deleted here:
the bucket's lifecycle rule expires a blob some days after it was last written, and `has` rewrites
a blob it finds (a copy onto itself, one request like the HEAD it replaces), so a blob any ingest
still reads is never that old, and those of a retired extractor version or a deleted file age out.
"""

from __future__ import annotations

import re
import time
from collections.abc import Set
from typing import Any

from rhumbline.ingest.sharded.facts_store import FactsDirectory, FactsStore, checked_key

_LOCATION = re.compile(r"^s3://(?P<bucket>[a-z0-9][a-z0-9.-]{1,61}[a-z0-9])/(?P<prefix>(?:[A-Za-z0-9][A-Za-z0-9_.-]*/)*)$")
CONNECT_TIMEOUT_SECONDS = 5
READ_TIMEOUT_SECONDS = 30
# Connections a client keeps: the finish step reads a tree's facts with this many GETs in flight.
MAX_POOL_CONNECTIONS = 32


def open_facts(location: str) -> FactsStore:
    """The store a task names: `s3://bucket/prefix/` (a hosted run's workers) or a directory."""
    return FactsBucket.at(location) if location.startswith("s3://") else FactsDirectory(location)


def s3_client() -> Any:
    """An S3 client whose calls give up instead of hanging a worker until its function times out."""
    import boto3
    from botocore.config import Config

    config = Config(
        connect_timeout=CONNECT_TIMEOUT_SECONDS, read_timeout=READ_TIMEOUT_SECONDS,
        retries={"total_max_attempts": 4, "mode": "standard"}, max_pool_connections=MAX_POOL_CONNECTIONS,
    )  # fmt: skip
    return boto3.client("s3", config=config)


class FactsBucket:
    def __init__(self, client: Any, bucket: str, prefix: str = "facts/") -> None:
        self.client, self.bucket, self.prefix = client, bucket, prefix

    @classmethod
    def at(cls, location: str, client: Any = None) -> FactsBucket:
        """`s3://bucket/prefix/` (the prefix ends with a slash, or is empty)."""
        match = _LOCATION.match(location)
        if match is None:
            raise ValueError(f"not a facts location: {location!r} (s3://bucket/prefix/)")
        return cls(client or s3_client(), match["bucket"], match["prefix"])

    def _key(self, key: str) -> str:
        return self.prefix + checked_key(key)

    def has(self, key: str) -> bool:
        """Whether the blob is stored; a stored one is rewritten in place, which restarts its age."""
        from botocore.exceptions import ClientError

        name = self._key(key)
        try:
            self.client.copy_object(
                Bucket=self.bucket, Key=name, CopySource={"Bucket": self.bucket, "Key": name},
                MetadataDirective="REPLACE", Metadata={"used": str(int(time.time()))},
            )  # fmt: skip
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") in ("NoSuchKey", "404", "NotFound"):
                return False
            raise
        return True

    def get(self, key: str) -> bytes:
        return bytes(self.client.get_object(Bucket=self.bucket, Key=self._key(key))["Body"].read())

    def put(self, key: str, blob: bytes) -> None:
        self.client.put_object(Bucket=self.bucket, Key=self._key(key), Body=blob)

    def keep_only(self, fingerprint: str, keys: Set[str] | None = None) -> None:
        """Nothing to do: the bucket's lifecycle rule expires what no ingest reads (see above)."""
