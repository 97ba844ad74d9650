"""gitignore matching (pathspec), for trees git does not describe: the rules of gitignore(5), and
the walker against git itself."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from rhumbline.ingest.discover.gitignore import GitignoreTree, compile_rules, verdict


@pytest.mark.parametrize(
    ("pattern", "path", "is_dir", "expected"),
    [
        ("*.log", "debug.log", False, True),
        ("*.log", "deep/down/debug.log", False, True),  # no slash: any depth
        ("*.log", "debug.log.txt", False, None),
        ("/top.txt", "top.txt", False, True),  # leading slash: anchored
        ("/top.txt", "sub/top.txt", False, None),
        ("docs/*.md", "docs/a.md", False, True),  # a middle slash anchors too
        ("docs/*.md", "x/docs/a.md", False, None),
        ("docs/*.md", "docs/sub/a.md", False, None),  # `*` never crosses a slash
        ("build/", "build", True, True),  # directory-only
        ("build/", "build", False, None),
        ("**/cache", "a/b/cache", True, True),
        ("**/cache", "cache", True, True),
        ("a/**/z", "a/z", False, True),
        ("a/**/z", "a/b/c/z", False, True),
        ("out/**", "out/x/y", False, True),
        ("out/**", "out", True, None),
        ("file?.txt", "file1.txt", False, True),
        ("file?.txt", "file10.txt", False, None),
        ("[ab].py", "a.py", False, True),
        ("[!ab].py", "a.py", False, None),
        ("[!ab].py", "c.py", False, True),
        ("\\#hash", "#hash", False, True),  # escaped comment character
        ("# comment", "# comment", False, None),
        ("trailing   ", "trailing", False, True),  # unescaped trailing spaces are trimmed
    ],
)
def test_single_pattern(pattern: str, path: str, is_dir: bool, expected: bool | None):
    assert verdict(compile_rules([pattern]), path, is_dir) is expected


def test_the_last_matching_pattern_wins_and_negation_re_includes():
    rules = compile_rules(["*.log", "!keep.log", "keep.log.bak"])
    assert verdict(rules, "debug.log", False) is True
    assert verdict(rules, "keep.log", False) is False
    assert verdict(rules, "other.txt", False) is None


def test_nested_gitignore_files_apply_below_their_directory_and_override_parents(tmp_path: Path):
    (tmp_path / "sub" / "deeper").mkdir(parents=True)
    (tmp_path / ".gitignore").write_text("*.tmp\n/rooted.txt\n")
    (tmp_path / "sub" / ".gitignore").write_text("!keep.tmp\n/local.txt\n")
    tree = GitignoreTree(tmp_path)
    assert tree.is_ignored("a.tmp", False)
    assert tree.is_ignored("sub/a.tmp", False)
    assert not tree.is_ignored("sub/keep.tmp", False)  # the deeper file re-includes
    assert tree.is_ignored("keep.tmp", False)  # but only below sub/
    assert tree.is_ignored("rooted.txt", False)
    assert not tree.is_ignored("sub/rooted.txt", False)
    assert tree.is_ignored("sub/local.txt", False)  # anchored to sub/, not to the root
    assert not tree.is_ignored("sub/deeper/local.txt", False)


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("out/**", "out", None),  # everything inside `out`, not `out` itself (git)
        ("out/**", "out/sub", True),
        ("out/**/", "out", None),
        ("out/**/", "out/sub", True),
        ("a/**/b/**", "a/b", None),
        ("a/**/b/**", "a/x/b/c", True),
    ],
)
def test_a_pattern_of_what_is_inside_a_directory_does_not_ignore_the_directory(pattern: str, path: str, expected: bool | None):
    assert verdict(compile_rules([pattern]), path, True) is expected


GITIGNORES = {
    ".gitignore": "*.tmp\n/rooted.txt\nbuild/\n!build/keep.txt\nconfig/**\n!config/defaults.yml\n"
    "out/**\n!out/sub/\n!out/sub/y.txt\ndocs/*.md\n!docs/index.md\n# comment\n\\#hash\n",
    "sub/.gitignore": "!keep.tmp\n/local.txt\n*.log\n",
}
TREE = [
    "a.tmp", "rooted.txt", "build/keep.txt", "build/x.py", "config/defaults.yml", "config/secret.yml",
    "out/keep.txt", "out/sub/y.txt", "out/sub/z.txt", "docs/index.md", "docs/guide.md", "docs/deep/a.md",
    "#hash", "sub/keep.tmp", "sub/other.tmp", "sub/local.txt", "sub/rooted.txt", "sub/deeper/local.txt",
    "sub/app.log", "src/main.py",
]  # fmt: skip


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_walker_lists_what_git_lists(tmp_path: Path):
    from rhumbline.ingest.discover.walk import discover

    for relative, text in GITIGNORES.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    for relative in TREE:
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text("x\n")
    ours = discover(tmp_path)  # not a git work tree: our walker
    assert not ours.used_git
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    listed = subprocess.run(
        ["git", "-C", str(tmp_path), "ls-files", "-co", "--exclude-standard"],
        check=True, capture_output=True, text=True,
    ).stdout.split("\n")  # fmt: skip
    assert ours.paths == sorted(path for path in listed if path)
    assert "config/defaults.yml" in ours.paths and "out/sub/y.txt" in ours.paths
