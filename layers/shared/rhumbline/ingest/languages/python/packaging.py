"""Where a tree's Python packaging puts its packages: setuptools' `package-dir` and `packages.find`
`where`, read from pyproject.toml (`[tool.setuptools]`) and setup.cfg (`[options]`).

`package-dir = {"" = "src"}` and `where = ["src"]` make `src/` a source root (`src/pkg/m.py` is
`pkg.m`); `package-dir = {"pkg" = "lib"}` makes `lib/m.py` the module `pkg.m`. A file that cannot
be read or parsed declares nothing (setup.py, being code, is never run).
"""

from __future__ import annotations

import configparser
import posixpath
import tomllib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

CONFIG_FILES = frozenset({"pyproject.toml", "setup.cfg"})
MAX_CONFIG_BYTES = 256 * 1024


def package_dirs(root: Path, paths: Iterable[str]) -> dict[str, str]:
    """Directory (relative to `root`, posix) → the package its files belong to ("": a source root),
    for each directory the configuration files among `paths` declare."""
    found: dict[str, str] = {}
    for path in sorted(paths):
        directory, _, name = path.rpartition("/")
        if name not in CONFIG_FILES:
            continue
        text = _read(root / path)
        if text is None:
            continue
        declared = _pyproject(text) if name == "pyproject.toml" else _setup_cfg(text)
        for where, package in declared:
            joined = posixpath.normpath(posixpath.join(directory, where.strip().replace("\\", "/")))
            joined = "" if joined == "." else joined
            if joined == ".." or joined.startswith(("../", "/")):
                continue  # outside the tree
            if joined == directory and not package:
                continue  # the config's own directory as a source root: what the layout already says
            found.setdefault(joined, package)
    return found


def _read(path: Path) -> str | None:
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_CONFIG_BYTES:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _pyproject(text: str) -> Iterator[tuple[str, str]]:
    try:
        setuptools = tomllib.loads(text).get("tool", {}).get("setuptools", {})
    except (tomllib.TOMLDecodeError, AttributeError):
        return
    if not isinstance(setuptools, dict):
        return
    package_dir = setuptools.get("package-dir")
    if isinstance(package_dir, dict):
        yield from ((where, package) for package, where in package_dir.items() if _names(package, where))
    packages = setuptools.get("packages")
    find = packages.get("find") if isinstance(packages, dict) else None
    where = find.get("where") if isinstance(find, dict) else None
    if isinstance(where, list):
        yield from ((directory, "") for directory in where if isinstance(directory, str))


def _setup_cfg(text: str) -> Iterator[tuple[str, str]]:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return
    for line in parser.get("options", "package_dir", fallback="").splitlines():
        package, equals, where = line.partition("=")
        if equals and where.strip():
            yield where.strip(), package.strip()
    for directory in parser.get("options.packages.find", "where", fallback="").split():
        yield directory, ""


def _names(package: Any, where: Any) -> bool:
    return isinstance(package, str) and isinstance(where, str) and bool(where.strip())
