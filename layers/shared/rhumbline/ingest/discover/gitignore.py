"""gitignore matching for trees that are not git work trees (and for `exclude` patterns).

Patterns are compiled by `pathspec` (gitignore(5): comments, escapes, trailing spaces, negation,
directory-only patterns, anchoring, `*`, `?`, `[...]`, `**`); later patterns override earlier ones
and deeper .gitignore files override shallower ones. The walker asks about a directory before it
enters it, and never enters an ignored one, so a file inside an ignored directory stays ignored
whatever a negation says (as in git).
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable
from pathlib import Path

from pathspec import GitIgnoreSpec


def compile_rules(lines: Iterable[str]) -> GitIgnoreSpec:
    """Strict: a pattern pathspec refuses raises (for `exclude` patterns, which the user typed)."""
    return GitIgnoreSpec.from_lines(lines)


def compile_file(lines: list[str]) -> tuple[GitIgnoreSpec, list[tuple[int, str]]]:
    """The rules of a .gitignore, and its (line number, line) that no pattern can be made of.

    git skips such a line (`!` alone, a pattern ending in an unescaped backslash) and applies
    the others; so do we, the line reported as a warning rather than failing the walk."""
    try:
        return GitIgnoreSpec.from_lines(lines), []
    except ValueError:  # pathspec's GitIgnorePatternError; rare: only then line by line
        pass
    kept: list[str] = []
    dropped: list[tuple[int, str]] = []
    for number, line in enumerate(lines, start=1):
        try:
            GitIgnoreSpec.from_lines([line])
        except ValueError:
            dropped.append((number, line))
            kept.append("")  # keeps the other lines' numbers
        else:
            kept.append(line)
    return GitIgnoreSpec.from_lines(kept), dropped


def verdict(rules: GitIgnoreSpec, relative_path: str, is_dir: bool) -> bool | None:
    """True if ignored, False if re-included by a negation, None if no pattern matches."""
    if not is_dir:
        return rules.check_file(relative_path).include
    # pathspec matches a directory as the prefix of the paths inside it, so `out/**` (everything
    # inside `out`) would also match `out` itself; git does not, and a later `!out/keep` then
    # re-includes that file. Such a pattern counts only for directories below its own.
    query = relative_path + "/"
    for pattern in reversed(rules.patterns):
        found = pattern.include is not None and pattern.regex.match(query)
        if found and not (found.end() == len(query) and pattern.pattern.rstrip("/ ").endswith("/**")):
            return pattern.include
    return None


class GitignoreTree:
    """The .gitignore files of one tree, read lazily as directories are visited."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._rules: dict[str, GitIgnoreSpec | None] = {}
        self._chains: dict[str, list[tuple[int, GitIgnoreSpec]]] = {}
        self.warnings: list[str] = []  # lines skipped as git skips them, for the ingest summary

    def rules_of(self, directory: str) -> GitIgnoreSpec | None:
        if directory not in self._rules:
            path = os.path.join(self._root, directory, ".gitignore")
            try:
                with open(path, encoding="utf-8", errors="replace") as handle:
                    rules, dropped = compile_file(handle.read().splitlines())
            except OSError:
                rules, dropped = None, []
            shown = f"{directory}/.gitignore" if directory else ".gitignore"
            self.warnings.extend(
                f"{shown}:{number}: `{line.strip()}` is not a pattern; ignored, as git does" for number, line in dropped
            )
            self._rules[directory] = rules if rules is not None and rules.patterns else None
        return self._rules[directory]

    def listed(self, directory: str, names: Collection[str]) -> None:
        """The walker listed `directory`: without a .gitignore in it, it has no rules (spares
        trying to open one in every directory)."""
        if ".gitignore" not in names:
            self._rules.setdefault(directory, None)

    def is_ignored(self, path: str, is_dir: bool) -> bool:
        """Whether `path` (posix, relative to the root) is ignored, given its parents are not."""
        directory, _, _ = path.rpartition("/")
        ignored = False
        for offset, rules in self._chain(directory):
            found = verdict(rules, path[offset:], is_dir)
            if found is not None:
                ignored = found
        return ignored

    def _chain(self, directory: str) -> list[tuple[int, GitIgnoreSpec]]:
        """The rules that apply inside `directory`, outermost first, each with the offset at
        which a path below it becomes relative to its .gitignore (memoized: every file of a
        directory shares its ancestors' rules)."""
        chain = self._chains.get(directory)
        if chain is None:
            parent, _, _ = directory.rpartition("/")
            outer = self._chain(parent) if directory else []
            rules = self.rules_of(directory)
            offset = len(directory) + 1 if directory else 0
            chain = [*outer, (offset, rules)] if rules is not None else outer
            self._chains[directory] = chain
        return chain
