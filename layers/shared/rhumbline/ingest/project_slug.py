"""The project a directory is ingested into when none is named: the `owner/repo` of its git remote
`origin` (so its code and the reviews its webhooks record share one project), else
`local/<directory name>`. The CLI (`ingest`, `up`, `watch`) and the `ingest` tool use it alike."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from rhumbline.vocabulary import PROJECT_PATTERN

# The owner/repo at the end of a remote URL: `git@host:owner/repo.git`, `ssh://git@host/owner/repo`,
# `https://host/owner/repo.git`. A deeper path (a GitLab subgroup) or a local path matches nothing.
_REMOTE_SLUG = re.compile(r"^(?:[a-z][a-z0-9+.-]*://[^/]+/|(?:[^/:@]+@)?[^/:]+:)(?P<slug>[^/]+/[^/]+?)(?:\.git)?/?$")
GIT_TIMEOUT_SECONDS = 5.0


def git_output(root: Path, *arguments: str) -> str:
    """What a git command prints in `root`, or "" when git is missing, fails or takes too long."""
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *arguments], capture_output=True, text=True, timeout=GIT_TIMEOUT_SECONDS
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def remote_project_slug(url: str) -> str | None:
    """The `owner/repo` a remote URL names, None when it names no valid slug."""
    found = _REMOTE_SLUG.match(url.strip())
    if found is None or not re.match(PROJECT_PATTERN, found["slug"]):
        return None
    return found["slug"]


def remote_project(root: Path) -> str | None:
    """The `owner/repo` of the `origin` remote when `root` is a repository's top directory. Not for
    a subdirectory: ingested under the repository's slug it would replace the whole repository's graph."""
    toplevel = git_output(root, "rev-parse", "--show-toplevel")
    if not toplevel or Path(toplevel).resolve() != root.resolve():
        return None
    return remote_project_slug(git_output(root, "config", "--get", "remote.origin.url"))


def directory_project_slug(root: Path) -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]", "-", root.resolve().name).lstrip("._-")[:100]
    return f"local/{name or 'project'}"


def default_project_slug(root: Path) -> str:
    """The git remote's `owner/repo`, else `local/<directory name>`."""
    return remote_project(root) or directory_project_slug(root)
