"""A file's id without parsing it: git's index where git speaks for the tree (no file read), the
blob hash otherwise, and the two agree; a shard's key changes exactly when one of its files does."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from rhumbline.ingest.sharded import content_ids as ids_module
from rhumbline.ingest.sharded.content_ids import blob_id, content_ids, shard_key
from tests.unit.ingest.conftest import TreeWriter

FILES = {"a.py": "def a():\n    return 1\n", "pkg/b.go": "package pkg\n\nfunc B() {}\n", "pkg/c.ts": "export const c = 1;\n"}


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def hash_object(root: Path, path: str) -> str:
    return git(root, "hash-object", path).strip()


@pytest.fixture
def tree(write_tree: TreeWriter) -> Path:
    return write_tree(dict(FILES))


def committed(root: Path) -> Path:
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "first")
    return root


def test_blob_ids_are_gits_own(tree: Path) -> None:
    paths = sorted(FILES)
    assert content_ids(tree, paths) == [blob_id((tree / path).read_bytes()) for path in paths]
    committed(tree)
    assert content_ids(tree, paths) == [hash_object(tree, path) for path in paths]


def test_a_git_tree_reads_only_the_files_it_changed(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    committed(tree)
    (tree / "pkg/b.go").write_text("package pkg\n\nfunc B() { B() }\n")
    (tree / "new.py").write_text("x = 1\n")  # untracked
    read: list[str] = []
    hashed = ids_module._hashed
    monkeypatch.setattr(ids_module, "_hashed", lambda root, path: read.append(path) or hashed(root, path))

    paths = sorted([*FILES, "new.py"])
    found = content_ids(tree, paths)

    assert sorted(read) == ["new.py", "pkg/b.go"]
    assert found == [hash_object(tree, path) for path in paths]


def test_attributes_that_rewrite_bytes_make_every_file_hashed(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tree / ".gitattributes").write_text("*.py text eol=crlf\n")
    committed(tree)
    read: list[str] = []
    hashed = ids_module._hashed
    monkeypatch.setattr(ids_module, "_hashed", lambda root, path: read.append(path) or hashed(root, path))

    found = content_ids(tree, ["a.py"])

    assert read == ["a.py"] and found == [blob_id((tree / "a.py").read_bytes())]


def test_a_shard_key_follows_its_files_and_the_extractor(tree: Path) -> None:
    paths = sorted(FILES)
    ids = content_ids(tree, paths)
    key = shard_key("0" * 16, paths, ids)
    assert key == shard_key("0" * 16, paths, content_ids(tree, paths))
    assert key != shard_key("1" * 16, paths, ids)
    (tree / "a.py").write_text("def a():\n    return 2\n")
    assert key != shard_key("0" * 16, paths, content_ids(tree, paths))
    assert shard_key("0" * 16, ["gone.py"], content_ids(tree, ["gone.py"])) is None
