"""The facts cache an ingest saves before its graph write (ingest/pipeline.py): complete when
the write fails, and its own failure never fails the ingest."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine

from rhumbline.ingest.build import build_graph
from rhumbline.ingest.snapshots.facts_cache import FactCache
from rhumbline.ingest.pipeline import ingest_local
from rhumbline.stores.graph.sqlite.store import SqliteGraphStore

PROJECT = "acme/cache-save"


def test_a_failed_write_still_leaves_the_facts_cache_and_a_failed_save_is_soft(
    pyproj: Path, engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever the write does, the cache is complete when the ingest returns or raises."""
    store = SqliteGraphStore(tmp_path / "g.sqlite3")
    store.ensure_schema()
    real_apply = store.apply

    def failing_apply(*_args: object) -> None:
        raise RuntimeError("injected write failure")

    monkeypatch.setattr(store, "apply", failing_apply)
    with pytest.raises(RuntimeError, match="injected write failure"):
        ingest_local(pyproj, PROJECT, store=store, engine=engine, history=False)
    parsed = [s for s in build_graph(pyproj, PROJECT, history=False).sources if s.code is not None]
    cached = FactCache.load(engine, PROJECT)
    assert parsed and all(cached.facts(s.content_hash, s.language) is not None for s in parsed)

    def broken_save(*_args: object) -> int:
        raise OSError("injected cache failure")

    monkeypatch.setattr(store, "apply", real_apply)
    monkeypatch.setattr(FactCache, "save", broken_save)
    summary = ingest_local(pyproj, PROJECT, store=store, engine=engine, history=False, clear=True)
    assert summary.node_count > 0 and store.counts(PROJECT).nodes > 0  # the ingest completes
    store.close()
