"""A full ingest into the real Neo4j, written in chunked transactions, failing midway: the version
is recorded failed and every reader keeps the previous version, whole (neo4j/staged.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from rhumbline.ingest import pipeline
from rhumbline.stores.graph.neo4j import staged as neo4j_staged
from rhumbline.stores.graph.neo4j.store import Neo4jGraphStore
from rhumbline.stores.relational import versions
from rhumbline.stores.relational.session import session_scope

pytestmark = pytest.mark.neo4j


@pytest.fixture
def stores(neo4j_server: dict[str, str], unique_project: str) -> Iterator[tuple[Neo4jGraphStore, Neo4jGraphStore]]:
    """The ingest's store (10 rows per transaction, one writer: its connection dies at a known
    point) and a reader's (another container)."""
    writer, reader = (
        Neo4jGraphStore(neo4j_server["uri"], neo4j_server["user"], neo4j_server["password"], tx_rows=rows, writers=1)
        for rows in (10, 50_000)
    )
    reader.ensure_schema()
    yield writer, reader
    reader.delete_project(unique_project)
    writer.close()
    reader.close()


def test_a_chunked_full_ingest_failing_midway_is_recorded_and_invisible(
    pyproj: Path, engine: Engine, stores: tuple[Neo4jGraphStore, Neo4jGraphStore],
    unique_project: str, monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    writer, reader = stores
    first = pipeline.ingest_local(pyproj, unique_project, store=writer, engine=engine)
    before = reader.counts(unique_project)
    assert (before.nodes, before.edges) == (first.node_count, first.edge_count)
    (pyproj / "shop" / "extra.py").write_text("def more():\n    return 1\n")
    real = neo4j_staged._run_transaction
    committed: list[int] = []

    def dying(store: Neo4jGraphStore, steps: list[Any]) -> list[Any]:
        if len(committed) == 2:
            store._driver.close()  # the ingest's connection dies between two chunk transactions
        records = real(store, steps)
        committed.append(len(steps))
        assert reader.counts(unique_project) == before  # readers meanwhile: the old version only
        return records

    monkeypatch.setattr(neo4j_staged, "_run_transaction", dying)
    with pytest.raises(Exception) as failed:
        pipeline.ingest_local(pyproj, unique_project, store=writer, engine=engine, clear=True)
    assert not isinstance(failed.value, AssertionError) and len(committed) == 2

    assert reader.counts(unique_project) == before
    assert reader.graph_version(unique_project) == 1
    assert reader.get_node(unique_project, "function:shop/extra.py:more") is None
    assert reader.get_node(unique_project, "method:shop/models.py:Product.save") is not None
    with session_scope(engine) as session:
        listed = versions.list_for(session, unique_project)
        assert [(v.version, v.status) for v in listed] == [(2, "failed"), (1, "completed")]
        assert listed[0].error
