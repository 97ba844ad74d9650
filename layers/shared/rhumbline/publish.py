"""`rhumbline publish`: a CI job sends its checkout to a hosted deployment.

The hosted stack has no upload route, so the archive travels through S3 with the caller's own AWS
credentials, and the MCP endpoint is asked to ingest it:

    discover(root) (the ingester's own walk rules) → tar.gz with one top-level `<name>-<sha>/`
    → s3://bucket/rhumbline/<owner>/<repo>/<sha or time>.tar.gz
    → tools/call ingest {source: s3://..., project, async?} with the bearer token.
"""

from __future__ import annotations

import io
import re
import tarfile
import time
from pathlib import Path
from typing import Any


class PublishError(Exception):
    """A failure the user can act on."""


def pack(root: Path, *, exclude: tuple[str, ...] = ()) -> tuple[bytes, str | None, int]:
    """A .tar.gz of the files the ingester would read under `root`: (bytes, commit, file count)."""
    from rhumbline.ingest.discover.git import head_commit
    from rhumbline.ingest.discover.walk import discover

    root = root.resolve()
    if not root.is_dir():
        raise PublishError(f"'{root}' is not a directory")
    commit = head_commit(root)
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", root.name).strip("-.") or "repo"
    top = f"{name}-{commit}" if commit else name
    paths = discover(root, exclude).paths
    if not paths:
        raise PublishError(f"nothing to publish under '{root}': no source file passes the ingester's rules")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path in paths:
            file = root / path
            if file.is_symlink() or not file.is_file():
                continue
            tar.add(file, arcname=f"{top}/{path}", recursive=False)
    return buffer.getvalue(), commit, len(paths)


def object_key(project: str, commit: str | None) -> str:
    return f"rhumbline/{project}/{commit or time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}.tar.gz"


def upload(data: bytes, bucket: str, key: str, *, client: Any = None) -> str:
    import boto3
    from botocore.config import Config
    from botocore.exceptions import BotoCoreError, ClientError

    s3 = client or boto3.client("s3", config=Config(connect_timeout=10, read_timeout=60, retries={"max_attempts": 3}))
    try:
        s3.put_object(Bucket=bucket, Key=key, Body=data, ContentType="application/gzip")
    except (BotoCoreError, ClientError) as error:
        raise PublishError(f"the upload to s3://{bucket}/{key} failed: {error}") from None
    return f"s3://{bucket}/{key}"


def call_ingest(endpoint: str, token: str, arguments: dict[str, Any], *, timeout: float = 60.0) -> dict[str, Any]:
    """tools/call ingest on a hosted MCP endpoint with the mcp SDK client; the structured result."""
    import anyio
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def run() -> Any:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=timeout)
        async with Client(streamable_http_client(endpoint, http_client=http)) as client:
            return await client.call_tool("ingest", arguments)

    try:
        result = anyio.run(run)
    except Exception as error:  # noqa: BLE001 - transport failures, reported in one line
        raise PublishError(f"the MCP endpoint {endpoint} could not be called: {type(error).__name__}: {error}") from None
    if result.is_error:
        text = result.content[0].text if result.content else "(no message)"
        raise PublishError(f"the ingest tool refused: {text}")
    return dict(result.structured_content or {})


def publish(
    root: Path, *, endpoint: str, token: str, project: str, bucket: str, run_async: bool = False,
    exclude: tuple[str, ...] = (), s3_client: Any = None,
) -> dict[str, Any]:
    data, commit, files = pack(root, exclude=exclude)
    source = upload(data, bucket, object_key(project, commit), client=s3_client)
    arguments: dict[str, Any] = {"source": source, "project": project}
    if run_async:
        arguments["async"] = True
    result = call_ingest(endpoint, token, arguments)
    return {"source": source, "files_sent": files, "commit": commit, "result": result}
