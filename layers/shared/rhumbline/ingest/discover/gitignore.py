"""gitignore pattern matching, for trees that are not git work trees (and for `exclude` patterns).

Implements the rules of gitignore(5) that matter for choosing files: comments and blank lines,
escapes, trailing-space trimming, negation (`!`), directory-only patterns (`dir/`), anchoring (a `/`
at the start or in the middle ties a pattern to its file's directory), `*`, `?`, `[...]` and `**`.
Later patterns override earlier ones and deeper files override shallower ones. A file inside an
ignored directory stays ignored whatever a negation says: the walker never enters that directory.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import NamedTuple


class Rule(NamedTuple):
    regex: re.Pattern[str]
    negated: bool
    directory_only: bool


def compile_rules(lines: Iterable[str]) -> list[Rule]:
    rules = []
    for raw in lines:
        rule = _compile(raw)
        if rule is not None:
            rules.append(rule)
    return rules


def _compile(raw: str) -> Rule | None:
    line = raw.rstrip("\n").rstrip("\r")
    line = _trim_trailing_spaces(line)
    if not line or line.startswith("#"):
        return None
    negated = line.startswith("!")
    if negated:
        line = line[1:]
    elif line.startswith("\\!") or line.startswith("\\#"):
        line = line[1:]
    directory_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line
    line = line.lstrip("/")
    body = _translate(line)
    prefix = "" if anchored or line.startswith("**/") else "(?:.*/)?"
    return Rule(re.compile(f"{prefix}{body}", re.DOTALL), negated, directory_only)


def _trim_trailing_spaces(line: str) -> str:
    stripped = line.rstrip(" ")
    if stripped.endswith("\\") and len(stripped) < len(line):
        return stripped + " "  # `foo\ ` keeps one escaped space
    return stripped


def _translate(pattern: str) -> str:
    """Glob → regex over a relative posix path; `*` and `?` never cross a `/`."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if pattern.startswith("**/", i) and (i == 0 or pattern[i - 1] == "/"):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i) and i + 2 == n and (i == 0 or pattern[i - 1] == "/"):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            end = _class_end(pattern, i)
            if end < 0:
                out.append(re.escape(c))
                i += 1
            else:
                inner = pattern[i + 1 : end]
                if inner.startswith("!"):
                    inner = "^" + inner[1:]
                out.append("[" + inner.replace("\\", "\\\\") + "]")
                i = end + 1
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def _class_end(pattern: str, start: int) -> int:
    i = start + 1
    if i < len(pattern) and pattern[i] in "!^":
        i += 1
    if i < len(pattern) and pattern[i] == "]":
        i += 1
    end = pattern.find("]", i)
    return end


def verdict(rules: list[Rule], relative_path: str, is_dir: bool) -> bool | None:
    """True if ignored, False if re-included by a negation, None if no rule matches."""
    result = None
    for rule in rules:
        if rule.directory_only and not is_dir:
            continue
        if rule.regex.fullmatch(relative_path):
            result = not rule.negated
    return result


class GitignoreTree:
    """The .gitignore files of one tree, read lazily as directories are visited."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._rules: dict[str, list[Rule]] = {}
        self._chains: dict[str, list[tuple[int, list[Rule]]]] = {}

    def rules_of(self, directory: str) -> list[Rule]:
        rules = self._rules.get(directory)
        if rules is None:
            path = os.path.join(self._root, directory, ".gitignore")
            try:
                with open(path, encoding="utf-8", errors="replace") as handle:
                    rules = compile_rules(handle.read().splitlines())
            except OSError:
                rules = []
            self._rules[directory] = rules
        return rules

    def listed(self, directory: str, names: Collection[str]) -> None:
        """The walker listed `directory`: without a .gitignore in it, it has no rules (spares
        trying to open one in every directory)."""
        if ".gitignore" not in names:
            self._rules.setdefault(directory, [])

    def is_ignored(self, path: str, is_dir: bool) -> bool:
        """Whether `path` (posix, relative to the root) is ignored, given its parents are not."""
        directory, _, _ = path.rpartition("/")
        ignored = False
        for offset, rules in self._chain(directory):
            found = verdict(rules, path[offset:], is_dir)
            if found is not None:
                ignored = found
        return ignored

    def _chain(self, directory: str) -> list[tuple[int, list[Rule]]]:
        """The non-empty rule lists that apply inside `directory`, outermost first, each with the
        offset at which a path below it becomes relative to its .gitignore (memoized: every
        file of a directory shares its ancestors' rules)."""
        chain = self._chains.get(directory)
        if chain is None:
            parent, _, _ = directory.rpartition("/")
            outer = self._chain(parent) if directory else []
            rules = self.rules_of(directory)
            offset = len(directory) + 1 if directory else 0
            chain = [*outer, (offset, rules)] if rules else outer
            self._chains[directory] = chain
        return chain
