"""The files' contents a hosted run's parse workers store, so the finish step does not.

The plan asks for it when the deployment keeps contents in a bucket (RHUMBLINE_CONTENTS_BUCKET)
and the tree is sharded: its output names the bucket and the project's id, the Map hands both
to each worker, and each worker stores the new contents of its own shard's files
(sources.upload, one PUT a file, many in flight) after parsing them. The finish step then
records as stored every file of the shards parsed in this run (sources.keep's `uploaded`) and
reads and sends only those of shards whose answers an earlier run kept, which the bucket may no
longer hold if no version named them since.

Both functions check the bucket they were configured with against the one the plan named: a
worker that could not store the contents fails its shard rather than leave the finish step
recording contents no one stored.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from rhumbline.stores.source_blobs import S3Blobs


class Contents(BaseModel):
    model_config = ConfigDict(extra="forbid")
    bucket: str = Field(min_length=3, max_length=63)
    project_id: int = Field(ge=1)


def requested(project_id: int) -> Contents | None:
    """What the plan asks of the workers: the configured bucket and the project, or None when
    this deployment keeps contents in the relational store (the finish step keeps them there)."""
    from rhumbline.config import settings

    bucket = settings().contents_bucket
    return Contents(bucket=bucket, project_id=project_id) if bucket else None


def bucket_for(contents: Contents) -> S3Blobs:
    """The bucket the plan named, if it is the one this function was configured with."""
    from rhumbline.config import settings

    configured = settings().contents_bucket
    if configured != contents.bucket:
        raise ValueError(
            f"the plan asked for the files' contents in bucket {contents.bucket!r}, and this function is"
            f" configured with {configured or 'none'!r}: the plan, shard and finish functions must share"
            " RHUMBLINE_CONTENTS_BUCKET"
        )
    return S3Blobs(configured)
