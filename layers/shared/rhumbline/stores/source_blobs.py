"""Where the bytes of stored files live: in their `source_blobs` rows (the embedded store, and any
deployment without a bucket), or in the deployment's S3 bucket (RHUMBLINE_CONTENTS_BUCKET), under
`sources/<project id>/<sha256>` — content-addressed, so a key's bytes never change.

The relational rows stay the index in both cases (stores/relational/sources.py): which digests a
project has, and which no version names any more, is read there, never listed from S3.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

# Every S3 call is bounded: connect and read timeouts, three attempts.
S3_TIMEOUTS = {"connect_timeout": 5, "read_timeout": 15, "retries": {"max_attempts": 3, "mode": "standard"}}
UPLOAD_THREADS = 16
_DELETE_BATCH = 1000  # DeleteObjects' limit


class SourceStoreError(RuntimeError):
    """The bucket could not be read or written (its message names the bucket and the call)."""


def key_of(project_id: int, digest: str) -> str:
    return f"sources/{project_id}/{digest}"


class InlineBlobs:
    """The bytes are kept in the relational rows: nothing to do outside them."""

    inline = True

    def put_many(self, project_id: int, blobs: Sequence[tuple[str, bytes]]) -> None:
        pass

    def get(self, project_id: int, digest: str) -> bytes:
        # Only a row without bytes gets here: they were stored in a bucket this server is not told of.
        raise SourceStoreError(
            "the file's contents are in the deployment's S3 bucket, and this server has none configured "
            "(RHUMBLINE_CONTENTS_BUCKET)"
        )

    def delete_many(self, project_id: int, digests: Sequence[str]) -> None:
        pass

    def delete_all(self, project_id: int) -> None:
        pass


class S3Blobs:
    inline = False

    def __init__(self, bucket: str, client: Any = None) -> None:
        self.bucket = bucket
        self._client = client

    @property
    def client(self) -> Any:
        if self._client is None:
            import boto3
            from botocore.config import Config

            self._client = boto3.client(
                "s3", config=Config(max_pool_connections=UPLOAD_THREADS, **S3_TIMEOUTS)
            )
        return self._client

    def put_many(self, project_id: int, blobs: Sequence[tuple[str, bytes]]) -> None:
        """Upload concurrently; raises SourceStoreError if any upload fails."""

        def put(blob: tuple[str, bytes]) -> None:
            digest, data = blob
            self._call("PutObject", self.client.put_object, Bucket=self.bucket, Key=key_of(project_id, digest), Body=data)

        if not blobs:
            return
        with ThreadPoolExecutor(max_workers=min(UPLOAD_THREADS, len(blobs))) as pool:
            list(pool.map(put, blobs))

    def get(self, project_id: int, digest: str) -> bytes:
        answer = self._call("GetObject", self.client.get_object, Bucket=self.bucket, Key=key_of(project_id, digest))
        body: bytes = answer["Body"].read()
        return body

    def delete_many(self, project_id: int, digests: Sequence[str]) -> None:
        for start in range(0, len(digests), _DELETE_BATCH):
            objects = [{"Key": key_of(project_id, d)} for d in digests[start : start + _DELETE_BATCH]]
            answer = self._call(
                "DeleteObjects", self.client.delete_objects, Bucket=self.bucket,
                Delete={"Objects": objects, "Quiet": True},
            )  # fmt: skip
            if answer.get("Errors"):
                first = answer["Errors"][0]
                raise SourceStoreError(
                    f"S3 bucket {self.bucket}: {len(answer['Errors'])} objects not deleted "
                    f"(first {first.get('Key')}: {first.get('Code')})"
                )

    def delete_all(self, project_id: int) -> None:
        """Every object under the project's prefix, listed rows or not: a hosted run's workers
        store contents before any row names them, and a run that failed leaves those behind."""
        prefix = key_of(project_id, "")
        while True:
            listed = self._call("ListObjectsV2", self.client.list_objects_v2, Bucket=self.bucket, Prefix=prefix,
                                MaxKeys=_DELETE_BATCH)  # fmt: skip
            keys = [item["Key"].removeprefix(prefix) for item in listed.get("Contents", [])]
            if not keys:
                return
            self.delete_many(project_id, keys)

    def _call(self, name: str, method: Any, **arguments: Any) -> Any:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            return method(**arguments)
        except (BotoCoreError, ClientError) as error:
            raise SourceStoreError(f"S3 bucket {self.bucket}: {name} failed: {error}") from error


BlobStore = InlineBlobs | S3Blobs


def open_blob_store(bucket: str) -> BlobStore:
    return S3Blobs(bucket) if bucket else InlineBlobs()
