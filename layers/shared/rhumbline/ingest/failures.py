"""Files whose extraction or resolution raised: reported in the ingest summary, never fatal.

One pathological file (a grammar the parser chokes on, a construct a resolver mishandles) must
not cost the whole project its graph: each per-file step runs under its own `except`, the file
is recorded here with the stage and the error, and every other file is built as usual. Nothing
is lost silently: the summary carries the exact count and the first few records.
"""

from __future__ import annotations

from typing import NamedTuple

MAX_REASON_CHARS = 300


class FileFailure(NamedTuple):
    path: str  # posix, relative to the ingest root; the languages when a whole family failed
    stage: str  # extract, or what phase 2 was doing (resolve python, resolve rust, knowledge)
    reason: str  # `ExceptionType: message`, truncated


def reason_of(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"[:MAX_REASON_CHARS]


class Failures:
    """Collects the failures of one phase-2 build."""

    def __init__(self) -> None:
        self.found: list[FileFailure] = []

    def add(self, path: str, stage: str, error: BaseException) -> None:
        self.found.append(FileFailure(path, stage, reason_of(error)))

    def __bool__(self) -> bool:
        return bool(self.found)
