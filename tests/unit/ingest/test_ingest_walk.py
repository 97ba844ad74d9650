"""Which files an ingest reads: .gitignore, always-skipped directories, exclude patterns, symlinks.

The same tree is walked twice, once by our own walker and once through git, and must give the same
answer.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from rhumbline.ingest.facts import SkippedFile
from rhumbline.ingest.discover.walk import discover

FIXTURE_FILES = [
    ".gitignore",
    "README.md",
    "assets/logo.png",  # binary: dropped later, by the reader
    "broken.py",
    "keep.log",
    "scripts/run.py",
    "shop/__init__.py",
    "shop/base.py",
    "shop/models.py",
    "shop/services.py",
    "shop/util/__init__.py",
    "shop/util/decorators.py",
    "shop/util/text.py",
]


def _add_clutter(root: Path) -> None:
    files = {
        ".venv/lib/site.py": "x = 1\n",
        ".rhumbline/dev-token": "secret\n",
        "env/pyvenv.cfg": "home = /usr\n",  # a virtualenv under a plain name
        "env/lib/mod.py": "x = 1\n",
        "node_modules/pkg/index.js": "module.exports = 1\n",
        "shop/__pycache__/base.cpython-311.pyc": "not really\n",
        "build/lib/out.py": "x = 1\n",
        "tools/build/__init__.py": "",  # a package called build is source, not build output
        "Shop.egg-info/PKG-INFO": "Name: shop\n",
        "docs/index.md": "# docs\n",
        "static/app.snap.js": "x\n",
    }
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    outside = root.parent / "outside.py"
    outside.write_text("secret = 1\n")
    os.symlink(outside, root / "escape.py")
    os.symlink(root / "loop_b", root / "loop_a")
    os.symlink(root / "loop_a", root / "loop_b")
    os.symlink(root / "shop", root / "shop_link")
    os.symlink("shop/base.py", root / "alias.py")
    os.symlink("missing.py", root / "dangling.py")


EXPECTED_SKIPPED = [
    SkippedFile(".rhumbline/", "tool_directory"),
    SkippedFile(".venv/", "tool_directory"),
    SkippedFile("Shop.egg-info/", "tool_directory"),
    SkippedFile("build/", "tool_directory"),
    SkippedFile("dangling.py", "symlink_broken"),
    SkippedFile("docs/", "excluded"),
    SkippedFile("env/", "tool_directory"),
    SkippedFile("escape.py", "symlink_escape"),
    SkippedFile("loop_a", "symlink_loop"),
    SkippedFile("loop_b", "symlink_loop"),
    SkippedFile("node_modules/", "tool_directory"),
    SkippedFile("shop/__pycache__/", "tool_directory"),
    SkippedFile("shop_link", "symlink_directory"),
    SkippedFile("static/app.snap.js", "excluded"),
]
EXCLUDE = ["docs/", "*.snap.js"]


def test_the_fixture_tree_without_git(pyproj: Path):
    discovery = discover(pyproj)
    assert not discovery.used_git
    assert discovery.paths == FIXTURE_FILES
    assert discovery.skipped == []


def test_clutter_is_pruned_once_per_directory_and_symlinks_are_checked(pyproj: Path):
    _add_clutter(pyproj)
    discovery = discover(pyproj, EXCLUDE)
    assert discovery.paths == sorted([*FIXTURE_FILES, "alias.py", "tools/build/__init__.py"])
    assert sorted(discovery.skipped) == EXPECTED_SKIPPED


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_listing_gives_the_same_answer(pyproj: Path):
    _add_clutter(pyproj)
    subprocess.run(["git", "init", "-q", str(pyproj)], check=True)
    discovery = discover(pyproj, EXCLUDE)
    assert discovery.used_git
    assert discovery.paths == sorted([*FIXTURE_FILES, "alias.py", "tools/build/__init__.py"])
    assert sorted(discovery.skipped) == EXPECTED_SKIPPED


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_tree_its_enclosing_repository_ignores_is_walked_by_us(tmp_path: Path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("corpus/\n")
    corpus = tmp_path / "corpus" / "pkg"
    corpus.mkdir(parents=True)
    (corpus / "mod.py").write_text("x = 1\n")
    discovery = discover(corpus)
    assert not discovery.used_git
    assert discovery.paths == ["mod.py"]


def test_a_file_name_that_is_not_utf8_is_skipped_not_fatal(tmp_path: Path):
    os.makedirs(tmp_path / "tree")
    with open(os.path.join(os.fsencode(tmp_path / "tree"), b"caf\xe9.py"), "wb") as handle:
        handle.write(b"x = 1\n")
    (tmp_path / "tree" / "ok.py").write_text("y = 2\n")
    discovery = discover(tmp_path / "tree")
    assert discovery.paths == ["ok.py"]
    assert discovery.skipped == [SkippedFile("caf\ufffd.py", "undecodable_path")]


def test_vendored_directories_and_minified_bundles_are_skipped(tmp_path: Path):
    files = {
        "app/main.js": "export const a = 1;\n",
        "static/js/vendor/jquery.js": "function $(s) {}\n",
        "third_party/lib/util.c": "int f(void) { return 1; }\n",
        "static/app.min.js": "var a=1;\n",
        "static/app.js.map": "{}\n",
        # A Python package that happens to be called `vendor` is first-party code.
        "pkg/vendor/__init__.py": "",
        "pkg/vendor/names.py": "X = 1\n",
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    discovery = discover(tmp_path)
    assert discovery.paths == ["app/main.js", "pkg/vendor/__init__.py", "pkg/vendor/names.py"]
    assert sorted(discovery.skipped) == sorted(
        [
            SkippedFile("static/app.js.map", "generated"),
            SkippedFile("static/app.min.js", "generated"),
            SkippedFile("static/js/vendor/", "vendored"),
            SkippedFile("third_party/", "vendored"),
        ]
    )


def _tree(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def test_the_dist_of_a_published_npm_package_is_its_code(tmp_path: Path) -> None:
    # A registry tarball: package.json's entry points are in dist/, and no src/ to build it from.
    manifest = '{"name": "d", "main": "./dist/index.js", "types": "dist/index.d.ts"}'
    root = _tree(tmp_path / "pkg", {"package.json": manifest, "dist/index.js": "function f() {}\n",
                                    "dist/index.d.ts": "export declare function f(): void;\n", "README.md": "d\n"})  # fmt: skip
    discovery = discover(root)
    assert discovery.paths == ["README.md", "dist/index.d.ts", "dist/index.js", "package.json"]
    assert discovery.skipped == []


_SHIPS_DIST = '{"name": "d", "main": "dist/index.js"}'


@pytest.mark.parametrize(
    "files",
    [
        # the sources are here: dist/ is their build
        {"package.json": _SHIPS_DIST, "src/index.ts": "export function f() {}\n"},
        {"package.json": '{"name": "d", "main": "lib/index.js"}'},  # its entry points are elsewhere
        {"package.json": "not json"},
        {"package.json": '["a list"]'},
        {"index.js": "x\n"},  # no package.json: not an npm package
    ],
)
def test_dist_stays_build_output_unless_a_package_ships_it(tmp_path: Path, files: dict[str, str]) -> None:
    root = _tree(tmp_path / "repo", {**files, "dist/index.js": "function f() {}\n"})
    discovery = discover(root)
    assert SkippedFile("dist/", "tool_directory") in discovery.skipped
    assert not any(path.startswith("dist/") for path in discovery.paths)
