"""Fetch a hosted source into a temporary directory, for the ingest tool in hosted mode.

    github:owner/repo[@ref]  → GET {RHUMBLINE_GITHUB_API_URL}/repos/{owner}/{repo}/tarball/{ref}
                               (default https://api.github.com; token from RHUMBLINE_GITHUB_TOKEN or
                               the Secrets Manager secret RHUMBLINE_GITHUB_TOKEN_SECRET_ARN)
    s3://bucket/key          → a .tar.gz / .tgz / .tar / .zip object, read with boto3

Extraction is safe: members with absolute paths, `..` components, links, devices or anything
resolving outside the destination are refused (the whole archive, not just the member); the total
unpacked size and the file count are capped. A single top-level directory (GitHub's
`owner-repo-<sha>/`) is stripped; the commit is taken from its name, or from the ref when that is
a full SHA.
"""

from __future__ import annotations

import os
import re
import shutil
import tarfile
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from rhumbline.errors import ToolFailure

GITHUB_API_VARIABLE = "RHUMBLINE_GITHUB_API_URL"
GITHUB_TOKEN_VARIABLE = "RHUMBLINE_GITHUB_TOKEN"
GITHUB_TOKEN_SECRET_VARIABLE = "RHUMBLINE_GITHUB_TOKEN_SECRET_ARN"
DEFAULT_GITHUB_API = "https://api.github.com"

MAX_DOWNLOAD_BYTES = 500 * 1024 * 1024
MAX_UNPACKED_BYTES = 1024 * 1024 * 1024
MAX_FILES = 100_000
CONNECT_TIMEOUT_SECONDS = 10.0
READ_TIMEOUT_SECONDS = 60.0
_CHUNK = 1024 * 1024


@dataclass(frozen=True)
class FetchLimits:
    download_bytes: int
    unpacked_bytes: int
    files: int


# Set by a caller with more room than the ingest function (the hosted run's plan step); read at
# each check, so the module's limits stay the default everywhere else.
_LIMITS: ContextVar[FetchLimits | None] = ContextVar("rhumbline_fetch_limits", default=None)


def limits() -> FetchLimits:
    return _LIMITS.get() or FetchLimits(MAX_DOWNLOAD_BYTES, MAX_UNPACKED_BYTES, MAX_FILES)


@contextmanager
def fetch_limits(chosen: FetchLimits) -> Iterator[None]:
    """Fetch with these limits instead of the module's, in this context only."""
    token = _LIMITS.set(chosen)
    try:
        yield
    finally:
        _LIMITS.reset(token)

_GITHUB = re.compile(r"^github:(?P<owner>[A-Za-z0-9_.-]+)/(?P<repo>[A-Za-z0-9_.-]+)(?:@(?P<ref>\S+))?$")
_S3 = re.compile(r"^s3://(?P<bucket>[a-z0-9.-]{3,63})/(?P<key>\S+)$")
_SHA = re.compile(r"^[0-9a-f]{40}$")


class SourceFailure(ToolFailure):
    code = "source_error"


class SourceNotFound(SourceFailure):
    code = "source_not_found"


class SourceAuthFailed(SourceFailure):
    code = "source_auth_failed"


class SourceTooLarge(SourceFailure):
    code = "source_too_large"


class UnsafeArchive(SourceFailure):
    code = "unsafe_archive"


class SourceUnavailable(SourceFailure):
    code = "source_unavailable"


@dataclass(frozen=True)
class FetchedSource:
    root: Path
    commit: str | None
    source: str


def parse_source(source: str) -> tuple[str, dict[str, str | None]]:
    if match := _GITHUB.match(source):
        return "github", match.groupdict()
    if match := _S3.match(source):
        return "s3", match.groupdict()
    raise SourceFailure(f"unrecognised source '{source}': expected `github:owner/repo[@ref]` or `s3://bucket/key`")


@contextmanager
def fetched(source: str, *, workdir: str | None = None) -> Iterator[FetchedSource]:
    """Fetch `source` into a fresh temporary directory (removed on exit) and yield where it landed."""
    kind, parts = parse_source(source)
    tmp = Path(tempfile.mkdtemp(prefix="rhumbline-source-", dir=workdir))
    try:
        archive = tmp / "archive"
        tree = tmp / "tree"
        tree.mkdir()
        if kind == "github":
            _download_github(parts["owner"] or "", parts["repo"] or "", parts.get("ref"), archive)
            fmt = "tar"
        else:
            key = parts["key"] or ""
            _download_s3(parts["bucket"] or "", key, archive)
            fmt = "zip" if key.lower().endswith(".zip") else "tar"
        top = extract(archive, tree, fmt=fmt)
        archive.unlink(missing_ok=True)
        root = tree / top if top else tree
        if kind == "github":
            commit = commit_from(top, parts.get("ref"))
        else:
            # `rhumbline publish` names its top-level directory `<name>-<full sha>`.
            match = re.search(r"-([0-9a-f]{40})$", top or "")
            commit = match.group(1) if match else None
        yield FetchedSource(root=root, commit=commit, source=source)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def commit_from(top: str | None, ref: str | None) -> str | None:
    if top and (match := re.search(r"-([0-9a-f]{7,40})$", top)):
        sha = match.group(1)
        if ref and _SHA.match(ref) and ref.startswith(sha):
            return ref
        return sha
    if ref and _SHA.match(ref):
        return ref
    return None


# GitHub -------------------------------------------------------------------------------------------


def github_token() -> str | None:
    token = os.environ.get(GITHUB_TOKEN_VARIABLE, "").strip()
    if token:
        return token
    arn = os.environ.get(GITHUB_TOKEN_SECRET_VARIABLE, "").strip()
    if not arn:
        return None
    try:
        from rhumbline.secrets import read_secret

        value = read_secret(arn)
    except Exception as error:  # noqa: BLE001 - reported as a clear failure
        raise SourceAuthFailed(f"the GitHub token secret could not be read: {type(error).__name__}") from None
    if isinstance(value, bytes):
        value = value.decode()
    value = str(value or "").strip()
    if value.startswith("{"):
        import json

        data = json.loads(value)
        value = str(data.get("token") or data.get("GITHUB_TOKEN") or "").strip()
    return value or None


class _NoAuthOnRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects are followed (GitHub sends tarballs from codeload); headers added with
    add_unredirected_header — the token — are not carried to the new host."""


def _download_github(owner: str, repo: str, ref: str | None, dest: Path) -> None:
    base = os.environ.get(GITHUB_API_VARIABLE, "").strip().rstrip("/") or DEFAULT_GITHUB_API
    path = f"/repos/{urllib.parse.quote(owner)}/{urllib.parse.quote(repo)}/tarball"
    if ref:
        path += "/" + urllib.parse.quote(ref, safe="")
    request = urllib.request.Request(base + path, method="GET")
    request.add_header("Accept", "application/vnd.github+json")
    request.add_header("User-Agent", "rhumbline-ingest")
    token = github_token()
    if token:
        request.add_unredirected_header("Authorization", f"Bearer {token}")
    name = f"{owner}/{repo}" + (f"@{ref}" if ref else "")
    opener = urllib.request.build_opener(_NoAuthOnRedirect())
    try:
        # urllib's one timeout bounds the connect and every blocking read.
        with opener.open(request, timeout=READ_TIMEOUT_SECONDS) as response:
            length = response.headers.get("Content-Length")
            if length and length.isdigit() and int(length) > limits().download_bytes:
                raise SourceTooLarge(_too_large(name, int(length)))
            _copy_capped(response, dest, name)
    except urllib.error.HTTPError as error:
        if error.code == 404:
            raise SourceNotFound(
                f"GitHub has no repository {owner}/{repo}" + (f" at ref '{ref}'" if ref else "")
                + " (or the token cannot see it)"
            ) from None
        if error.code in (401, 403):
            raise SourceAuthFailed(
                f"GitHub refused the download of {name} (HTTP {error.code}): "
                + ("check the token" if token else f"no token configured ({GITHUB_TOKEN_VARIABLE})")
            ) from None
        raise SourceUnavailable(f"GitHub answered HTTP {error.code} for {name}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as error:
        if isinstance(error, SourceFailure):
            raise
        reason = getattr(error, "reason", error)
        raise SourceUnavailable(f"GitHub could not be reached for {name}: {reason}") from None


def _too_large(name: str, size: int) -> str:
    return f"{name} is too large to ingest here ({size // (1024 * 1024)} MB; the limit is {limits().download_bytes // (1024 * 1024)} MB)"


def _copy_capped(stream, dest: Path, name: str) -> None:
    total = 0
    with dest.open("wb") as out:
        while chunk := stream.read(_CHUNK):
            total += len(chunk)
            if total > limits().download_bytes:
                raise SourceTooLarge(_too_large(name, total))
            out.write(chunk)


# S3 -----------------------------------------------------------------------------------------------


def _download_s3(bucket: str, key: str, dest: Path) -> None:
    import boto3
    from botocore.config import Config
    from botocore.exceptions import BotoCoreError, ClientError

    if not key.lower().endswith((".tar.gz", ".tgz", ".tar", ".zip")):
        raise SourceFailure(f"s3://{bucket}/{key} is not a .tar.gz, .tgz, .tar or .zip archive")
    name = f"s3://{bucket}/{key}"
    client = boto3.client(
        "s3",
        config=Config(
            connect_timeout=CONNECT_TIMEOUT_SECONDS,
            read_timeout=READ_TIMEOUT_SECONDS,
            retries={"max_attempts": 3, "mode": "standard"},
        ),
    )
    try:
        response = client.get_object(Bucket=bucket, Key=key)
        size = int(response.get("ContentLength") or 0)
        if size > limits().download_bytes:
            raise SourceTooLarge(_too_large(name, size))
        _copy_capped(response["Body"], dest, name)
    except ClientError as error:
        code = str(error.response.get("Error", {}).get("Code", ""))
        if code in ("NoSuchKey", "NoSuchBucket", "404", "NotFound"):
            raise SourceNotFound(f"{name} does not exist") from None
        if code in ("AccessDenied", "403", "InvalidAccessKeyId", "SignatureDoesNotMatch"):
            raise SourceAuthFailed(f"access to {name} was denied ({code})") from None
        raise SourceUnavailable(f"{name} could not be read ({code or error})") from None
    except BotoCoreError as error:
        raise SourceUnavailable(f"{name} could not be read: {error}") from None


# Safe extraction ----------------------------------------------------------------------------------


def _safe_relative(name: str) -> PurePosixPath:
    normalized = name.replace("\\", "/")
    if normalized.startswith("/") or re.match(r"^[A-Za-z]:", normalized):
        raise UnsafeArchive(f"the archive holds an absolute path ('{name}'): refused")
    path = PurePosixPath(normalized)
    if any(part == ".." for part in path.parts):
        raise UnsafeArchive(f"the archive holds a path leaving its directory ('{name}'): refused")
    return PurePosixPath(*[part for part in path.parts if part not in ("", ".")])


def extract(archive: Path, dest: Path, *, fmt: str = "tar") -> str | None:
    """Extract `archive` into `dest` safely; return the single top-level directory's name, if any."""
    dest = dest.resolve()
    try:
        if fmt == "zip":
            _extract_zip(archive, dest)
        else:
            _extract_tar(archive, dest)
    except (tarfile.TarError, zipfile.BadZipFile, EOFError) as error:
        raise SourceFailure(f"the source is not a readable archive: {error}") from None
    entries = list(dest.iterdir())
    if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink():
        return entries[0].name
    return None


def _check_budget(count: int, size: int) -> None:
    budget = limits()
    if count > budget.files:
        raise SourceTooLarge(f"the archive holds more than {budget.files} files")
    if size > budget.unpacked_bytes:
        raise SourceTooLarge(f"the archive unpacks to more than {budget.unpacked_bytes // (1024 * 1024)} MB")


def _check_link(member: tarfile.TarInfo, relative: PurePosixPath) -> None:
    target = member.linkname.replace("\\", "/")
    refused = UnsafeArchive(f"the archive holds a link leaving its directory ('{member.name}' → '{member.linkname}'): refused")
    if target.startswith("/") or re.match(r"^[A-Za-z]:", target):
        raise refused
    # Symlinks resolve against the link's directory, hard links against the archive root.
    base = list(relative.parts[:-1]) if member.issym() else []
    depth = len(base)
    for part in PurePosixPath(target).parts:
        if part == "..":
            depth -= 1
            if depth < 0:
                raise refused
        elif part not in ("", "."):
            depth += 1


def _extract_tar(archive: Path, dest: Path) -> None:
    count = size = 0
    with tarfile.open(archive, mode="r:*") as tar:
        members = []
        for member in tar:
            relative = _safe_relative(member.name)
            if member.issym() or member.islnk():
                # A link that stays inside the tree is skipped (the ingester reads regular files);
                # one that points out of it marks the archive as hostile.
                _check_link(member, relative)
                continue
            if not (member.isfile() or member.isdir()):
                if member.type in (tarfile.XHDTYPE, tarfile.XGLTYPE):
                    continue
                raise UnsafeArchive(f"the archive holds a special file ('{member.name}'): refused")
            if member.isfile():
                count += 1
                size += member.size
                _check_budget(count, size)
            members.append((member, relative))
        # Every member checked first: a refused archive leaves nothing half-extracted to ingest.
        for member, relative in members:
            if not relative.parts:
                continue
            target = (dest / Path(*relative.parts)).resolve()
            if not target.is_relative_to(dest):
                raise UnsafeArchive(f"the archive member '{member.name}' resolves outside the destination: refused")
            if member.isdir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            source = tar.extractfile(member)
            if source is None:
                continue
            with source, target.open("wb") as out:
                shutil.copyfileobj(source, out, _CHUNK)


def _extract_zip(archive: Path, dest: Path) -> None:
    count = size = 0
    with zipfile.ZipFile(archive) as bundle:
        infos = bundle.infolist()
        for info in infos:
            _safe_relative(info.filename)
            mode = (info.external_attr >> 16) & 0o170000
            if mode == 0o120000:
                raise UnsafeArchive(f"the archive holds a symbolic link ('{info.filename}'): refused")
            if not info.is_dir():
                count += 1
                size += info.file_size
                _check_budget(count, size)
        for info in infos:
            relative = _safe_relative(info.filename)
            if not relative.parts:
                continue
            target = (dest / Path(*relative.parts)).resolve()
            if not target.is_relative_to(dest):
                raise UnsafeArchive(f"the archive member '{info.filename}' resolves outside the destination: refused")
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            with bundle.open(info) as source, target.open("wb") as out:
                written = 0
                while chunk := source.read(_CHUNK):
                    written += len(chunk)
                    if written > info.file_size:
                        raise UnsafeArchive(f"the archive member '{info.filename}' is larger than it declares")
                    out.write(chunk)
