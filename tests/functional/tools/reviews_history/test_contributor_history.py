"""get_contributor_stats over a real git history ingested by the real pipeline, on both shapes."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from rhumbline.ingest.pipeline import ingest_local


def _commit(root: Path, files: dict[str, str], author: tuple[str, str], date: str) -> None:
    for relative, text in files.items():
        (root / relative).write_text(text)
    env = {
        **os.environ, "HOME": str(root.parent), "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": author[0], "GIT_AUTHOR_EMAIL": author[1], "GIT_AUTHOR_DATE": date,
        "GIT_COMMITTER_NAME": "CI", "GIT_COMMITTER_EMAIL": "ci@example.com", "GIT_COMMITTER_DATE": date,
    }  # fmt: skip
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True, env=env)
    subprocess.run(["git", "-C", str(root), "commit", "-q", "-m", "change"], check=True, env=env)


def test_commit_counts_are_distinct_commits_not_file_touches(world, tmp_path: Path):
    root = tmp_path / "history"
    root.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    ann, bob = ("Ann", "ann@example.com"), ("Bob", "bob@example.com")
    _commit(root, {"a.py": "A = 1\n", "b.py": "B = 1\n", "c.py": "C = 1\n"}, ann, "2026-01-01T10:00:00+00:00")
    _commit(root, {"a.py": "A = 2\n"}, bob, "2026-02-01T10:00:00+00:00")
    _commit(root, {"a.py": "A = 3\n", "b.py": "B = 2\n"}, ann, "2026-03-01T10:00:00+00:00")
    ingest_local(root, world.project, store=world.graph, engine=world.engine, clear=True)

    outcome = world.call("get_contributor_stats", {"repo": world.project})
    assert outcome["ok"], outcome
    result = outcome["result"]
    assert result["commit_counts"] == "exact"
    counts = {row["login"]: (row["commit_count"], row["files_touched"]) for row in result["contributors"]}
    # Ann touched 5 files-times in 2 commits: the count is 2, not 5.
    assert counts == {"ann@example.com": (2, 3), "bob@example.com": (1, 1)}
    assert result["total"] == 2
