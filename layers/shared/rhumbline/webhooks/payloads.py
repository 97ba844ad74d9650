"""The parts of GitHub's webhook payloads Rhumbline uses, validated (the rest is ignored).

Shapes follow GitHub's webhook documentation for `pull_request`, `pull_request_review` and `push`.
A payload that fails validation is answered 400 with the offending fields named; nothing of it is
stored. Timestamps must carry a zone (GitHub's always do: `2026-11-02T09:15:00Z`).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from rhumbline.vocabulary import PROJECT_PATTERN

SHA = r"^[0-9a-fA-F]{40}([0-9a-fA-F]{24})?$"  # SHA-1, or SHA-256 repositories
SLUG = re.compile(PROJECT_PATTERN)


class Payload(BaseModel):
    # GitHub adds fields all the time: unknown ones are ignored, known ones are checked.
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)


class User(Payload):
    login: str = Field(min_length=1, max_length=100)
    type: str | None = None


class Repository(Payload):
    full_name: str = Field(min_length=3, max_length=201)
    default_branch: str | None = Field(default=None, max_length=255)

    @property
    def is_project_slug(self) -> bool:
        """GitHub allows names a project slug does not (`owner/.github`): those are acknowledged, not stored."""
        return SLUG.match(self.full_name) is not None


class Installation(Payload):
    id: int


class Envelope(Payload):
    """What every event we route on has: the repository (and the App installation, if any)."""

    action: str | None = Field(default=None, max_length=64)
    repository: Repository | None = None
    installation: Installation | None = None


class Branch(Payload):
    ref: str = Field(min_length=1, max_length=1024)
    sha: str = Field(pattern=SHA)


class PullRequest(Payload):
    number: int = Field(ge=1, le=2**31 - 1)
    title: str | None = Field(default=None, max_length=1024)
    user: User | None = None  # null for a deleted account
    state: Literal["open", "closed"]
    merged: bool | None = None  # absent from the PR object of pull_request_review events
    created_at: AwareDatetime
    updated_at: AwareDatetime
    closed_at: AwareDatetime | None = None
    merged_at: AwareDatetime | None = None
    base: Branch
    head: Branch


class PullRequestEvent(Envelope):
    action: str = Field(min_length=1, max_length=64)
    repository: Repository
    pull_request: PullRequest


class Review(Payload):
    id: int = Field(ge=1)
    user: User | None = None
    body: str | None = Field(default=None, max_length=262_144)
    state: str = Field(min_length=1, max_length=64)
    submitted_at: AwareDatetime | None = None
    commit_id: str | None = Field(default=None, pattern=SHA)


class PullRequestReviewEvent(Envelope):
    action: str = Field(min_length=1, max_length=64)
    repository: Repository
    review: Review
    pull_request: PullRequest


class GitAuthor(Payload):
    """A commit's author in a push event: `username` is the GitHub account GitHub matched the
    address to (absent when none matched)."""

    name: str | None = Field(default=None, max_length=1024)
    email: str | None = Field(default=None, max_length=1024)
    username: str | None = Field(default=None, max_length=100)


class PushCommit(Payload):
    author: GitAuthor | None = None


class PushEvent(Envelope):
    ref: str = Field(min_length=1, max_length=1024)
    before: str = Field(pattern=SHA)
    after: str = Field(pattern=SHA)
    deleted: bool = False
    repository: Repository
    commits: list[PushCommit] = Field(default_factory=list)

    def author_logins(self) -> list[tuple[str, str]]:
        """(e-mail, login) of each commit author GitHub tied to an account."""
        return [
            (c.author.email, c.author.username) for c in self.commits if c.author and c.author.email and c.author.username
        ]
