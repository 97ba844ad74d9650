"""Which files of a tree get ingested.

Inside a git work tree git itself answers (`git ls-files -co --exclude-standard`: tracked plus
untracked-but-not-ignored, honouring every .gitignore, .git/info/exclude and the global excludes).
Elsewhere (an unpacked sdist, a tree the enclosing repo ignores, a machine without git) our own
walker applies the tree's .gitignore files. Both then apply the same SkipRules and symlink checks.
Size, binary and encoding checks need the bytes and happen in the reader (phase 1).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rhumbline.ingest.discover import git, skiprules
from rhumbline.ingest.discover.gitignore import GitignoreTree
from rhumbline.ingest.discover.skiprules import SkipRules
from rhumbline.ingest.facts import SkippedFile


@dataclass
class Discovery:
    paths: list[str] = field(default_factory=list)  # posix, relative to the root, sorted
    skipped: list[SkippedFile] = field(default_factory=list)
    used_git: bool = False
    warnings: list[str] = field(default_factory=list)  # .gitignore lines skipped, as git skips them


def discover(root: Path, exclude: Sequence[str] = ()) -> Discovery:
    root = root.resolve()
    rules = SkipRules(root, exclude)
    listed = git.listed_files(root) if git.speaks_for(root) else None
    if listed is not None:
        discovery = _from_listing(root, listed, rules)
        discovery.used_git = True
    else:
        discovery = _walk(root, rules)
    discovery.paths.sort()
    return discovery


def _from_listing(root: Path, listed: list[str], rules: SkipRules) -> Discovery:
    discovery = Discovery()
    directory_verdicts: dict[str, str | None] = {"": None}
    for path in listed:
        blocked = _blocked_ancestor(path, rules, directory_verdicts)
        if blocked is None:
            _admit(discovery, root, path, rules)
        elif blocked[1]:
            discovery.skipped.append(SkippedFile(blocked[0] + "/", blocked[1]))
    return discovery


def _blocked_ancestor(
    path: str, rules: SkipRules, verdicts: dict[str, str | None]
) -> tuple[str, str] | None:
    """(pruned ancestor, reason) — reason "" once that ancestor was already counted."""
    parts = path.split("/")[:-1]
    for depth in range(1, len(parts) + 1):
        directory = "/".join(parts[:depth])
        if directory not in verdicts:
            reason = rules.directory_reason(directory)
            verdicts[directory] = reason
            if reason is not None:
                return directory, reason
        elif verdicts[directory] is not None:
            return directory, ""
    return None


def _walk(root: Path, rules: SkipRules) -> Discovery:
    discovery = Discovery()
    ignores = GitignoreTree(root)
    root_text = str(root)
    pending = [""]
    while pending:
        directory = pending.pop()
        try:
            with os.scandir(os.path.join(root_text, directory) if directory else root_text) as listing:
                entries = list(listing)
            ignores.listed(directory, {entry.name for entry in entries})
        except OSError:
            discovery.skipped.append(SkippedFile(directory + "/", skiprules.UNREADABLE))
            continue
        for entry in entries:
            path = f"{directory}/{entry.name}" if directory else entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if is_dir:
                if ignores.is_ignored(path, True):
                    continue
                reason = rules.directory_reason(path)
                if reason is None:
                    pending.append(path)
                else:
                    discovery.skipped.append(SkippedFile(path + "/", reason))
            elif not ignores.is_ignored(path, False):
                # A regular file (the entry knows, no lstat) needs no further checks.
                _admit(discovery, root, path, rules, regular=_is_regular(entry))
    discovery.warnings = ignores.warnings
    return discovery


def _is_regular(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file(follow_symlinks=False)
    except OSError:
        return False


def _admit(
    discovery: Discovery, root: Path, path: str, rules: SkipRules, *, regular: bool = False
) -> None:
    if not _is_utf8(path):
        # Node ids and every store need text; git and os.scandir hand such names over with
        # surrogate escapes, which no encoder accepts.
        shown = path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        discovery.skipped.append(SkippedFile(shown, skiprules.UNDECODABLE_PATH))
        return
    reason = rules.file_reason(path) or (None if regular else _entry_reason(root, path))
    if reason is None:
        discovery.paths.append(path)
    else:
        discovery.skipped.append(SkippedFile(path, reason))


def _is_utf8(path: str) -> bool:
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _entry_reason(root: Path, path: str) -> str | None:
    """Why a listed entry is not a readable regular file inside the root, or None."""
    full = root / path
    try:
        mode = os.lstat(full).st_mode
    except FileNotFoundError:
        return skiprules.MISSING
    except OSError:
        return skiprules.UNREADABLE
    if stat.S_ISREG(mode):
        return None
    if not stat.S_ISLNK(mode):
        return skiprules.NOT_A_FILE
    try:
        target = full.resolve(strict=True)
    except RuntimeError:  # Python < 3.13 reports a loop this way
        return skiprules.SYMLINK_LOOP
    except OSError as error:
        return skiprules.SYMLINK_LOOP if error.errno == errno.ELOOP else skiprules.SYMLINK_BROKEN
    if not target.is_relative_to(root):
        return skiprules.SYMLINK_ESCAPE
    if target.is_dir():
        return skiprules.SYMLINK_DIRECTORY
    return None if target.is_file() else skiprules.NOT_A_FILE
