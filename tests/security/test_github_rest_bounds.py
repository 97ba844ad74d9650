"""The GitHub REST reads (a pull request's files) stay inside their bounds, against a real HTTP
server faking GitHub's API: a stalled GitHub ends the read at its deadline, the token never goes
to a host other than the API's (and the list is not silently cut there), and failures that
outlast the retries are named."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from rhumbline.reviews.github_files import GitHubFilesError, pull_request_files
from tests.functional.reviews.fake_github import FakeGitHub, serving

REPO = "acme/shop"


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with serving() as fake:
        yield fake


def read(github: FakeGitHub, seconds: float, token: str | None = "ghp_bounds") -> list[str]:
    return pull_request_files(REPO, 7, api_url=github.url, token=token, deadline=time.time() + seconds)


def test_a_stalled_github_ends_the_read_at_its_deadline(github: FakeGitHub) -> None:
    github.files[(REPO, 7)] = ["a.py"]
    github.delay = 2.0
    started = time.monotonic()
    with pytest.raises(GitHubFilesError, match=r"^GitHub could not be read for the files of acme/shop#7 \(timed out\)$"):
        read(github, 0.6)
    assert time.monotonic() - started < 1.5
    assert len(github.requests) == 1  # no retry was started past the deadline


def test_a_next_page_on_another_host_is_refused_and_the_token_stays(github: FakeGitHub) -> None:
    github.files[(REPO, 7)] = [f"f{i}.py" for i in range(150)]
    github.link_base = github.url.replace("127.0.0.1", "localhost")  # the same server, another host name
    with pytest.raises(GitHubFilesError, match=r"GitHub pointed to another host \(localhost\), which is not followed"):
        read(github, 5)
    assert github.requests == [(f"/repos/{REPO}/pulls/7/files?per_page=100", "Bearer ghp_bounds")]


def test_failures_past_the_retries_are_named(github: FakeGitHub) -> None:
    github.files[(REPO, 7)] = ["a.py"]
    for _ in range(3):
        github.fail(503)
    with pytest.raises(GitHubFilesError, match=r"^GitHub could not be read for the files of acme/shop#7 \(HTTP 503\)$"):
        read(github, 5)
    assert len(github.requests) == 3
    github.fail(403)  # no rate-limit header: the token is refused
    with pytest.raises(GitHubFilesError, match=r"refused to list the files of acme/shop#7 \(HTTP 403\): check the token"):
        read(github, 5)
    github.fail(403, **{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(time.time()) + 3600)})
    with pytest.raises(GitHubFilesError, match=r"rate limit stops reading the files of acme/shop#7 until") as limited:
        read(github, 5)
    assert limited.value.retry_at is not None and limited.value.retry_at > time.time() + 3500
    # Unauthenticated reads send no token at all.
    assert read(github, 5, token=None) == ["a.py"] and github.requests[-1][1] is None
