"""Which directories and files an ingest never looks into, whatever .gitignore says.

Both walkers (git listing and our own) ask the same two questions, so the skip counts of a tree do
not depend on whether it is a git checkout. A pruned directory counts once, not once per file in
it: the point of pruning `.venv` or `node_modules` is never to walk them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from rhumbline.ingest.discover.gitignore import compile_rules, verdict

# Skip reasons (keys of IngestSummary.skipped).
TOOL_DIRECTORY = "tool_directory"  # .git, virtualenvs, node_modules, caches, build output
VENDORED = "vendored"  # someone else's code checked in: vendor/, third_party/, ...
# Minified or bundled output (app.min.js, vendor.bundle.js, *.map), or a build copy of files in the
# tree: a script or stylesheet whose source map names them (buildcopy.py, checked by the reader).
GENERATED = "generated"
EXCLUDED = "excluded"  # matched a caller's `exclude` pattern
TOO_LARGE = "too_large"
BINARY = "binary"
UNDECODABLE = "undecodable"
UNDECODABLE_PATH = "undecodable_path"  # a file name that is not UTF-8
UNREADABLE = "unreadable"
EXTRACTION_FAILED = "extraction_failed"  # the extractor raised on this file (a bug to report)
MISSING = "missing"  # listed by git but gone from the work tree
NOT_A_FILE = "not_a_file"  # a submodule, a fifo, ...
SYMLINK_ESCAPE = "symlink_escape"
SYMLINK_LOOP = "symlink_loop"
SYMLINK_BROKEN = "symlink_broken"
SYMLINK_DIRECTORY = "symlink_directory"  # not followed (like git): its target is walked in place

_ALWAYS_SKIPPED = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        "site-packages",
        "node_modules",
        "__pycache__",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".eggs",
        ".rhumbline",  # our own stores (RHUMBLINE_HOME) when a tree is served from inside itself
    }
)
# Checked-in copies of other projects (Go/PHP/Ruby vendor dirs, jQuery under static/js/vendor):
# their calls would resolve by name into our code and bury real edges under AMBIGUOUS ones.
_VENDORED = frozenset({"vendor", "vendors", "third_party", "third-party", "thirdparty", "bower_components"})
# Machine-written files: nobody reads or edits them, and they are huge single-line blobs.
_GENERATED_SUFFIXES = (".min.js", ".min.mjs", ".min.css", ".bundle.js", ".js.map", ".css.map")
# Build output, unless it is a Python package that happens to be called `build`, or the code a
# published npm package ships (`_ships`).
_BUILD_OUTPUT = frozenset({"build", "dist"})
# package.json fields naming the files a package's users load.
_ENTRY_POINTS = ("main", "module", "browser", "types", "typings", "exports", "bin")
# Files whose contents are never stored (ingest/sources.py), whatever .gitignore says: keys,
# credentials and environment files are parsed as any file (their paths are in the graph), but
# an agent reading the source must not be handed a secret someone committed by mistake.
SECRET_PATTERNS = (
    ".env", ".env.*", "*.env", ".envrc", ".netrc", ".pgpass", ".npmrc", ".pypirc", ".git-credentials",
    "*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore", "*.kdbx", "*.ppk", "*.asc", "*.gpg",
    "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", "*_rsa", "*.tfstate", "*.tfstate.*", "*.tfvars",
    "credentials", "credentials.*", "*credentials*.json", "secrets.*", "*.secret", "*.secrets",
    "**/.aws/**", "**/.ssh/**", "**/.docker/config.json", "service-account*.json",
)
_SECRETS = compile_rules(SECRET_PATTERNS)


def in_tool_directory(path: str) -> bool:
    """Whether `path` (posix, relative) lies in a directory every ingest prunes (node_modules, ...)."""
    return any(part in _ALWAYS_SKIPPED for part in path.split("/")[:-1])


def holds_secrets(path: str) -> bool:
    """Whether the file at `path` (posix, relative to the ingest root) may hold a secret: its
    contents are then never stored."""
    return bool(verdict(_SECRETS, path, False))


class SkipRules:
    def __init__(self, root: Path, exclude: Sequence[str]) -> None:
        self._root = root
        self._exclude = compile_rules(exclude)

    def directory_reason(self, path: str) -> str | None:
        """Why directory `path` (posix, relative) is pruned, or None to enter it."""
        name = path.rsplit("/", 1)[-1]
        if name in _ALWAYS_SKIPPED or name.endswith(".egg-info"):
            return TOOL_DIRECTORY
        if name in _BUILD_OUTPUT and not self._has(path, "__init__.py") and not self._ships(path, name):
            return TOOL_DIRECTORY
        if name.lower() in _VENDORED and not self._has(path, "__init__.py"):
            return VENDORED
        if self._has(path, "pyvenv.cfg"):  # a virtualenv under any name (`env`, `.py311`)
            return TOOL_DIRECTORY
        if self._exclude.patterns and verdict(self._exclude, path, True):
            return EXCLUDED
        return None

    def file_reason(self, path: str) -> str | None:
        if path.lower().endswith(_GENERATED_SUFFIXES):
            return GENERATED
        if self._exclude.patterns and verdict(self._exclude, path, False):
            return EXCLUDED
        return None

    def _ships(self, path: str, name: str) -> bool:
        """Whether `path` is the code of an npm package as published (a registry tarball): its
        package.json's entry points are inside it and there is no `src/` beside it that it
        would be built from."""
        parent = os.path.join(self._root, path.rpartition("/")[0])
        if os.path.isdir(os.path.join(parent, "src")):
            return False
        try:
            with open(os.path.join(parent, "package.json"), encoding="utf-8") as handle:
                manifest = json.load(handle)
        except (OSError, ValueError):  # none, unreadable, or not JSON: build output as usual
            return False
        if not isinstance(manifest, dict):
            return False
        entries = json.dumps([manifest.get(field) for field in _ENTRY_POINTS])
        return f'"{name}/' in entries or f'"./{name}/' in entries

    def _has(self, directory: str, name: str) -> bool:
        return os.path.isfile(os.path.join(self._root, directory, name))  # no pathlib: per directory
