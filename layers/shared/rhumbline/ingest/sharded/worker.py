"""A parse worker: one shard's paths in, its files' facts in the facts store, a plain answer out.

The task and the answer are JSON-able dicts (strings, numbers, lists), so the worker can run in a
forked process, another machine's function or this process alike:

    task   {"root": tree directory, "paths": [posix paths relative to it],
            "facts": facts store location (a directory, or s3://bucket/prefix/),
            "fingerprint": the extractor code's}
    answer {"outcomes": one per path, in order:
              ["file", path, language or null, sha256, line count, size, facts key or null]
              ["skipped", path, reason, detail]}

A file whose facts the store already holds for those bytes is read and hashed, not parsed.
"""

from __future__ import annotations

from hashlib import sha256
from typing import Any

from rhumbline.ingest.discover.read import line_count, read_bytes, source_from_bytes
from rhumbline.ingest.facts import SkippedFile, SourceFile
from rhumbline.ingest.facts_codec import encode_facts
from rhumbline.ingest.languages import has_extractor, language_in
from rhumbline.ingest.sharded.facts_bucket import open_facts
from rhumbline.ingest.sharded.facts_store import FactsStore, facts_key

Row = list[Any]


def parse_shard(task: dict[str, Any]) -> dict[str, Any]:
    store = open_facts(task["facts"])
    root, fingerprint = task["root"], task["fingerprint"]
    return {"outcomes": [_parse(root, path, store, fingerprint) for path in task["paths"]]}


def _parse(root: str, path: str, store: FactsStore, fingerprint: str) -> Row:
    data = read_bytes(root, path)
    if isinstance(data, SkippedFile):
        return skipped_row(data)
    language = language_in(path, data)
    content_hash = sha256(data).hexdigest()
    key = facts_key(fingerprint, language, content_hash) if language is not None and has_extractor(language) else None
    if key is not None and store.has(key):
        # Facts exist only for bytes that passed the reader's checks: these do again.
        return ["file", path, language, content_hash, line_count(data), len(data), key]
    outcome = source_from_bytes(path, data, content_hash=content_hash)
    if isinstance(outcome, SkippedFile):
        return skipped_row(outcome)
    if outcome.code is None or key is None:
        return file_row(outcome, None)
    store.put(key, encode_facts(outcome.code))
    return file_row(outcome, key)


def file_row(source: SourceFile, key: str | None) -> Row:
    return ["file", source.path, source.language, source.content_hash, source.line_count, source.size, key]


def skipped_row(skipped: SkippedFile) -> Row:
    return ["skipped", skipped.path, skipped.reason, skipped.detail]
