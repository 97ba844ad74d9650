"""Whether a JavaScript or CSS file is a build copy of files in the same tree.

A bundle (`dist/axios.js`) repeats every function of the sources it was built from (`lib/`): kept,
each definition exists twice or more, search answers with the copy and calls resolve into it. A
build tool says what it copied: the file's last line declares a source map (`//# sourceMappingURL=`,
or `/*# ... */` in CSS; GitHub Linguist detects generated files the same way), and the map's
`sources` name the originals. When one of them is a file of the tree, the bundle is skipped; when
none is (a package that ships only its bundle) or the map cannot be read, the file is kept, being
the only copy of its code. Runs in the reader's workers on the bytes they read; opens only the map.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import posixpath
import re
import stat
from typing import Any
from urllib.parse import unquote

from rhumbline.ingest.discover.skiprules import in_tool_directory

_SUFFIXES = (".js", ".mjs", ".cjs", ".css")
# How far from the end the comment is looked for (an external map's URL is a short line); an inline
# map's line is as long as its map, and is found by its start (`data:`) within the file already read.
TAIL_BYTES = 4096
MAX_MAP_BYTES = 4 * 1024 * 1024  # a larger map is not parsed: the file is kept
MAX_SOURCES = 1000  # sources looked up per map
_COMMENT = re.compile(
    rb"[ \t]*(?://[#@][ \t]*sourceMappingURL=(?P<line>[^\s'\"`]+)"
    rb"|/\*[#@][ \t]*sourceMappingURL=(?P<block>[^\s*]+)[ \t]*\*/)[ \t]*"
)
_INLINE = re.compile(rb"data:application/json(?:;[-\w]+=[-\w.]+)*;base64,")
_BASE64_TAIL = re.compile(rb"[A-Za-z0-9+/=]*(?:[ \t]*\*/)?")
_BLANK = frozenset(b" \t\r\n\f\v")
_SCHEME = re.compile(r"^[A-Za-z][-A-Za-z0-9+.]*://[^/]*/")  # webpack://<namespace>/, ...


def build_copy_of(root: str, path: str, data: bytes) -> tuple[str, str] | None:
    """(a source in the tree, the map naming it: a path or "an inline source map") when the file at
    `path` (posix, relative to `root`), whose bytes are `data`, is a build copy; else None."""
    if not path.lower().endswith(_SUFFIXES):
        return None
    url = _map_url(data)
    if url is None:
        return None
    real_root = os.path.realpath(root)
    inline = _INLINE.match(url)
    if inline is not None:
        found = _inline_map(url[inline.end() :])
        map_path, where = path, "an inline source map"
    else:
        relative = unquote(url.decode("ascii", "replace").split("?", 1)[0].split("#", 1)[0])
        external = None if "://" in relative else _relative(posixpath.join(posixpath.dirname(path), relative))
        if external is None:  # on another host, or outside the tree
            return None
        found, map_path, where = _map_file(real_root, external), external, external
    source = None if found is None else _source_in_tree(real_root, path, map_path, found)
    return None if source is None else (source, where)


def _map_url(data: bytes) -> bytes | None:
    """The URL the file's last non-blank line declares its source map at, or None."""
    end = len(data)
    while end and data[end - 1] in _BLANK:
        end -= 1
    start = data.rfind(b"\n", max(0, end - TAIL_BYTES), end) + 1
    if start == 0 and end > TAIL_BYTES:
        # A line longer than the tail: only an inline map's comment is that long, and its tail is
        # base64 (a minified file's is not, and is looked at no further).
        if _BASE64_TAIL.fullmatch(data, end - TAIL_BYTES, end) is None:
            return None
        start = data.rfind(b"\n", 0, end) + 1
        if _INLINE.search(data, start, start + 256) is None:
            return None
    match = _COMMENT.fullmatch(data, start, end)
    if match is None:
        return None
    return match.group("line") or match.group("block")


def _inline_map(payload: bytes) -> Any:
    if len(payload) > MAX_MAP_BYTES * 4 // 3 + 4:
        return None
    try:
        return json.loads(base64.b64decode(payload, validate=True))
    except (binascii.Error, ValueError, RecursionError):  # not base64, not JSON: the file is kept
        return None


def _map_file(real_root: str, map_path: str) -> Any:
    full = _inside(real_root, map_path)
    if full is None:
        return None
    try:
        # Non-blocking: a fifo named like a map must not hang the reader; then only a regular file.
        with open(os.open(full, os.O_RDONLY | os.O_NONBLOCK), "rb") as handle:
            found = os.fstat(handle.fileno())
            if not stat.S_ISREG(found.st_mode) or found.st_size > MAX_MAP_BYTES:
                return None
            return json.loads(handle.read(MAX_MAP_BYTES + 1))
    except (OSError, ValueError, RecursionError):  # missing, unreadable, not JSON: the file is kept
        return None


def _inside(real_root: str, relative: str) -> str | None:
    """The real path of `relative` when, symlinks followed, it is still inside the tree; else None
    (what a symlink leads to outside the tree is neither read nor counted)."""
    full = os.path.realpath(os.path.join(real_root, relative))
    return full if full.startswith(real_root + os.sep) else None


def _source_in_tree(real_root: str, path: str, map_path: str, found: Any) -> str | None:
    """The first of the map's sources that is a file of the tree (not the copy, not its map)."""
    if not isinstance(found, dict) or not isinstance(found.get("sources"), list):
        return None
    source_root = found.get("sourceRoot")
    prefix = source_root.rstrip("/") + "/" if isinstance(source_root, str) and source_root else ""
    directory = posixpath.dirname(map_path)
    for source in found["sources"][:MAX_SOURCES]:
        if not isinstance(source, str) or not source:
            continue
        for candidate in _candidates(directory, prefix + source):
            if candidate not in (path, map_path) and not in_tool_directory(candidate):
                full = _inside(real_root, candidate)
                if full is not None and os.path.isfile(full):
                    return candidate
    return None


def _candidates(directory: str, source: str) -> list[str]:
    """Where in the tree a source may be: relative to the map (the format's rule); a bundler's own
    URL (`webpack://name/./lib/x.js`) is relative to its project, the map's nearest ancestor
    directory holding it."""
    scheme = _SCHEME.match(source)
    if scheme is None:
        if "://" in source or source.startswith("/"):
            return []  # another machine's absolute path or URL
        found = _relative(posixpath.join(directory, unquote(source)))
        return [] if found is None else [found]
    rest = unquote(source[scheme.end() :])
    candidates = []
    while True:
        found = _relative(posixpath.join(directory, rest))
        if found is not None:
            candidates.append(found)
        if not directory:
            return candidates
        directory = posixpath.dirname(directory)


def _relative(joined: str) -> str | None:
    """`joined` normalised, or None when it leaves the tree."""
    normal = posixpath.normpath(joined)
    if normal in (".", "..") or normal.startswith(("../", "/")):
        return None
    return normal
