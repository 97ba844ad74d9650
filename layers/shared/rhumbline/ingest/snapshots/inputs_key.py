"""What a graph version was built from, digested: equal keys give equal graphs (ingest/pipeline.py)."""

from __future__ import annotations

from collections.abc import Sequence
from hashlib import blake2b

from rhumbline.ingest.facts import SourceFile
from rhumbline.ingest.snapshots.facts_cache import extractor_fingerprint


class InputsKey:
    """Everything phase 2 reads, digested: the ingest package's code, the project slug, the
    root's name (Python module names start there), each ingested file's path, language and
    content hash, and the git history when it is read. Same key → same graph, so a re-ingest
    whose key equals the stored version's skips phase 2. Called by build_graph once phase 1 is
    done (its `unchanged` hook); `value` keeps the key for this version's snapshot."""

    def __init__(self, project: str, root_name: str, history: bool, stored: str | None) -> None:
        self.parts = (extractor_fingerprint(), project, root_name, "history" if history else "")
        self.stored = stored
        self.value: str | None = None
        # The same minus the files, as (everything but the history, the history): what a partial
        # phase 2 compares with the stored version's (ingest/partial.py). The first digest is known
        # before phase 1 (the stat index of skipped files checks it).
        context = blake2b(digest_size=16)
        for part in self.parts:
            context.update(part.encode("utf-8", "surrogatepass") + b"\0")
        self.context_digest = context.hexdigest()
        self.context: tuple[str, str] | None = None

    def __call__(self, sources: Sequence[SourceFile], log: str | None) -> bool:
        digest = blake2b(digest_size=16)
        for part in self.parts:
            digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
        for source in sorted(sources, key=lambda s: s.path):
            line = f"{source.path}\0{source.language}\0{source.content_hash}\n"
            digest.update(line.encode("utf-8", "surrogatepass"))
        log_bytes = b"\0log\0" + (log or "").encode("utf-8", "surrogatepass")
        digest.update(log_bytes)
        self.value = digest.hexdigest()
        self.context = (self.context_digest, blake2b(log_bytes, digest_size=16).hexdigest())
        return self.stored is not None and self.value == self.stored
