"""Phase 1 for one file: bytes → SourceFile, or why it is skipped. Pure: runs in workers."""

from __future__ import annotations

import codecs
import os
import re
from collections.abc import Sequence
from hashlib import sha256
from typing import Any

from rhumbline.ingest.bodies import with_bodies
from rhumbline.ingest.discover import skiprules
from rhumbline.ingest.discover.buildcopy import build_copy_of
from rhumbline.ingest.facts import CodeFacts, SkippedFile, SourceFile
from rhumbline.ingest.failures import reason_of
from rhumbline.ingest.facts_codec import decode_facts, encode_facts
from rhumbline.ingest.languages import extractor_for, has_extractor, language_in, language_of

MAX_FILE_BYTES = 1024 * 1024
BINARY_PROBE_BYTES = 8192
# PEP 263: a `coding` declaration on one of the first two lines (Ruby's magic comment is the same).
_CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
_DECLARING = frozenset({"python", "ruby"})
_UTF8_BOM = codecs.BOM_UTF8
# What a source file not in UTF-8 and declaring nothing is detected as: the legacy encodings source
# code is written in (Western, Cyrillic, Japanese, Chinese, Korean). Left open, the detector takes a
# Latin-1 Java file with a few accents for a Baltic code page.
_DETECTABLE = ["cp1252", "latin_1", "cp1251", "koi8_r", "shift_jis", "euc_jp", "gb18030", "big5", "euc_kr"]
_RANK = {name: rank for rank, name in enumerate(_DETECTABLE)}


def read_sources(root: str, paths: Sequence[str]) -> list[SourceFile | SkippedFile]:
    """A worker's unit of work: several files, so process hops are paid per batch, not per file."""
    return [read_source(root, path) for path in paths]


def read_sources_encoded(
    root: str, paths: Sequence[str]
) -> list[tuple[SourceFile | SkippedFile, bytes | None]]:
    """read_sources, each parsed file's facts encoded for the facts cache (facts_codec) *instead*
    of left in the outcome (its `code` is None then): the bytes cross the process boundary as
    one string, and the receiver decodes them (decode_encoded) rather than having them pickled
    twice here."""
    outcomes: list[tuple[SourceFile | SkippedFile, bytes | None]] = []
    for path in paths:
        outcome = read_source(root, path)
        if isinstance(outcome, SourceFile) and outcome.code is not None:
            outcomes.append((outcome._replace(code=None), encode_facts(outcome.code)))
        else:
            outcomes.append((outcome, None))
    return outcomes


def decode_encoded(outcome: SourceFile | SkippedFile, blob: bytes | None) -> SourceFile | SkippedFile:
    """The outcome read_sources_encoded stripped of its facts, with them back."""
    return outcome if blob is None else outcome._replace(code=decode_facts(blob))


def read_source(root: str, path: str) -> SourceFile | SkippedFile:
    data = read_bytes(root, path)
    if isinstance(data, SkippedFile):
        return data
    return source_from_bytes(path, data)


def read_bytes(root: str, path: str) -> bytes | SkippedFile:
    """The file's bytes, or why they are not ingested: unreadable, too large, or a build copy of
    other files of the tree (decided here, where the bytes are read anyway)."""
    try:
        with open(os.path.join(root, path), "rb") as handle:
            if os.fstat(handle.fileno()).st_size > MAX_FILE_BYTES:
                return SkippedFile(path, skiprules.TOO_LARGE)
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError:
        return SkippedFile(path, skiprules.UNREADABLE)
    if len(data) > MAX_FILE_BYTES:  # grew while we looked
        return SkippedFile(path, skiprules.TOO_LARGE)
    copied = build_copy_of(root, path, data)
    if copied is not None:
        source, where = copied
        return SkippedFile(path, skiprules.GENERATED, f"a build copy of {source}, which {where} names")
    return data


def source_from_bytes(
    path: str, data: bytes, *, content_hash: str | None = None, code: Any = None
) -> SourceFile | SkippedFile:
    """Checks and extraction of bytes read by read_bytes. `content_hash` (sha256 hex of `data`)
    and `code` (facts an earlier extraction of the same bytes produced: the incremental cache)
    spare recomputing them."""
    if b"\0" in data[:BINARY_PROBE_BYTES]:
        return SkippedFile(path, skiprules.BINARY)
    language = language_in(path, data)
    parseable = _as_utf8(data, language)
    if parseable is None:
        return SkippedFile(path, skiprules.UNDECODABLE)
    if code is None and language is not None and has_extractor(language):
        try:
            code = extractor_for(language)(parseable)
            if isinstance(code, CodeFacts):
                code = with_bodies(code, parseable)
        except Exception as error:  # noqa: BLE001 — one pathological file must not sink the repository
            # Reported, with the error, in the summary's failures (build.py).
            return SkippedFile(path, skiprules.EXTRACTION_FAILED, reason_of(error))
    return SourceFile(
        path=path,
        language=language,
        content_hash=content_hash or sha256(data).hexdigest(),
        line_count=line_count(data),
        size=len(data),
        code=code,
    )


def line_count(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def text_of(path: str, data: bytes) -> str:
    """A stored file's text, read in the encoding its ingest parsed it in (so its lines are the
    nodes' lines); bytes in no encoding with U+FFFD where they fail."""
    utf8 = _as_utf8(data, language_of(path))
    return (utf8 if utf8 is not None else data.removeprefix(_UTF8_BOM)).decode("utf-8", errors="replace")


def _as_utf8(data: bytes, language: str | None) -> bytes | None:
    """The bytes as UTF-8 without a BOM (what the parsers expect), or None if not text. Read in
    the encoding the file declares, else UTF-8, else the one detected."""
    encoding = _declared_encoding(data) if language in _DECLARING else None
    if data.startswith(_UTF8_BOM):
        data = data[len(_UTF8_BOM) :]
    if encoding is None or codecs.lookup(encoding).name == "utf-8":
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            encoding = _detected_encoding(data)
            if encoding is None:
                return None
        else:
            return data
    try:
        return data.decode(encoding).encode("utf-8")
    except (UnicodeDecodeError, LookupError):
        return None


def _detected_encoding(data: bytes) -> str | None:
    from charset_normalizer import from_bytes  # only for the rare file not in UTF-8

    candidates = list(from_bytes(data, cp_isolation=_DETECTABLE))
    if not candidates:
        return None
    # A tie (a few accents read as well in any code page) goes to the earlier in _DETECTABLE.
    best = min(candidates, key=lambda c: (c.chaos, -c.coherence, _RANK.get(c.encoding, len(_RANK))))
    return best.encoding


def _declared_encoding(data: bytes) -> str | None:
    for line in data.split(b"\n", 2)[:2]:
        match = _CODING.match(line)
        if match:
            name = match.group(1).decode("ascii", "replace")
            try:
                codecs.lookup(name)
            except LookupError:
                return None
            return name
    return None
