"""The files a pull request changes, from GitHub's REST API (`GET /repos/{o}/{r}/pulls/{n}/files`).

Webhook payloads carry no file list; this reads it. The standard library's HTTP client, as
ingest/sources.py: one request at a time, each bounded by a timeout, within an overall deadline.
Pages of 100 files, following the `Link: rel="next"` header (only to the same API host: the token
never goes elsewhere, and a link to another host is an error, never a shorter list), up to GitHub's own cap of 3,000 files. A 5xx or a network error is retried
with exponential backoff; a rate limit (403/429 with `X-RateLimit-Remaining: 0` or `Retry-After`)
is waited out when the wait fits the deadline, else reported with when it resets.
"""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable

PER_PAGE = 100
MAX_PAGES = 30  # GitHub lists at most 3,000 files of a pull request
REQUEST_TIMEOUT_SECONDS = 5.0
ATTEMPTS = 3
BACKOFF_SECONDS = 0.5
API_VERSION = "2022-11-28"
_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="next"')


class GitHubFilesError(Exception):
    """The files could not be read; `retry_at` (epoch seconds) when GitHub said when to retry."""

    def __init__(self, message: str, *, retry_at: float | None = None) -> None:
        super().__init__(message)
        self.retry_at = retry_at


def pull_request_files(
    repository: str, number: int, *, api_url: str, token: str | None, deadline: float,
    clock: Callable[[], float] = time.time, sleep: Callable[[float], None] = time.sleep,
) -> list[str]:  # fmt: skip
    """The paths the pull request changes (renamed files by their new path), in GitHub's order."""
    owner, _, name = repository.partition("/")
    base = api_url.rstrip("/")
    url: str | None = (
        f"{base}/repos/{urllib.parse.quote(owner)}/{urllib.parse.quote(name)}/pulls/{number}/files?per_page={PER_PAGE}"
    )
    files: list[str] = []
    for _ in range(MAX_PAGES):
        if url is None:
            break
        page, link = _get(url, token, deadline, clock, sleep, what=f"{repository}#{number}")
        if not isinstance(page, list):
            raise GitHubFilesError(f"GitHub answered something other than a list of files for {repository}#{number}")
        files.extend(str(item["filename"]) for item in page if isinstance(item, dict) and item.get("filename"))
        found = _NEXT.search(link or "")
        url = found.group(1) if found else None
        if url is not None and not url.startswith(base + "/"):
            # Stopping here would answer part of the list as if it were all of it.
            host = urllib.parse.urlsplit(url).hostname or url
            raise GitHubFilesError(
                f"GitHub pointed to another host ({host}), which is not followed: the files of "
                f"{repository}#{number} past the first {len(files)} are not read"
            )
    return list(dict.fromkeys(files))


def _get(
    url: str, token: str | None, deadline: float, clock: Callable[[], float], sleep: Callable[[float], None], *, what: str
) -> tuple[object, str | None]:
    request = urllib.request.Request(url, method="GET")
    request.add_header("Accept", "application/vnd.github+json")
    request.add_header("X-GitHub-Api-Version", API_VERSION)
    request.add_header("User-Agent", "rhumbline-webhook")
    if token:
        request.add_unredirected_header("Authorization", f"Bearer {token}")
    problem = "no attempt"
    for attempt in range(ATTEMPTS):
        left = deadline - clock()
        if left <= 0:
            break
        try:
            with urllib.request.urlopen(request, timeout=min(REQUEST_TIMEOUT_SECONDS, left)) as response:
                return json.loads(response.read()), response.headers.get("Link")
        except urllib.error.HTTPError as error:
            wait = _rate_limit_wait(error, clock())
            if wait is not None:
                if clock() + wait >= deadline:
                    raise GitHubFilesError(
                        f"GitHub's rate limit stops reading the files of {what} until {time.strftime('%H:%M:%S', time.gmtime(clock() + wait))} UTC",
                        retry_at=clock() + wait,
                    ) from None
                sleep(wait)
                continue
            if error.code == 404:
                raise GitHubFilesError(f"GitHub has no pull request {what} (or the token cannot see it)") from None
            if error.code in (401, 403):
                raise GitHubFilesError(f"GitHub refused to list the files of {what} (HTTP {error.code}): check the token") from None
            if error.code < 500:
                raise GitHubFilesError(f"GitHub answered HTTP {error.code} for the files of {what}") from None
            problem = f"HTTP {error.code}"
        except (urllib.error.URLError, TimeoutError, OSError, ValueError) as error:
            problem = str(getattr(error, "reason", error)) or type(error).__name__
        if attempt + 1 < ATTEMPTS:
            sleep(min(BACKOFF_SECONDS * 2**attempt, max(deadline - clock(), 0)))
    raise GitHubFilesError(f"GitHub could not be read for the files of {what} ({problem})")


def _rate_limit_wait(error: urllib.error.HTTPError, now: float) -> float | None:
    """Seconds to wait before retrying a rate-limited request, or None if it is not one."""
    if error.code not in (403, 429):
        return None
    headers = error.headers
    retry_after = headers.get("Retry-After") if headers else None
    if retry_after and retry_after.strip().isdigit():
        return float(retry_after.strip())
    if headers and headers.get("X-RateLimit-Remaining") == "0":
        reset = headers.get("X-RateLimit-Reset", "")
        return max(float(reset) - now, 0.0) + 1.0 if reset.strip().isdigit() else 60.0
    return 60.0 if error.code == 429 else None
