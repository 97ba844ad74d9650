"""A parse worker: one shard's paths in, one answer out (answer.py): each file's row and facts.

The task is a JSON-able dict and the answer one `bytes`, so the worker can run in a forked
process, another machine's function or this process alike, and it touches no store:

    task   {"root": tree directory, "paths": [posix paths relative to it]}
    answer rows, one per path, in order, each with its facts blob or None:
              ["file", path, language or null, sha256, line count, size]
              ["skipped", path, reason, detail]

Whole answers, not files, are what a run reuses: a hosted run keeps each shard's answer under a
key of its files' ids (distributed/shard.py), and a local ingest's facts cache keeps each file's.
"""

from __future__ import annotations

from typing import Any

from rhumbline.ingest.discover.read import read_bytes, source_from_bytes
from rhumbline.ingest.facts import SkippedFile, SourceFile
from rhumbline.ingest.facts_codec import encode_facts
from rhumbline.ingest.sharded.answer import Row, encode_answer


def parse_shard(task: dict[str, Any]) -> bytes:
    root = task["root"]
    return encode_answer([_parse(root, path) for path in task["paths"]])


def _parse(root: str, path: str) -> tuple[Row, bytes | None]:
    data = read_bytes(root, path)
    outcome = data if isinstance(data, SkippedFile) else source_from_bytes(path, data)
    if isinstance(outcome, SkippedFile):
        return skipped_row(outcome), None
    return file_row(outcome), None if outcome.code is None else encode_facts(outcome.code)


def file_row(source: SourceFile) -> Row:
    return ["file", source.path, source.language, source.content_hash, source.line_count, source.size]


def skipped_row(skipped: SkippedFile) -> Row:
    return ["skipped", skipped.path, skipped.reason, skipped.detail]
