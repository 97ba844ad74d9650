"""Schema setup on a database an older version set up: the full-text index that version created
is dropped (Neo4j keeps every full-text index up to date on each write), the current one kept.

The retired name is a fresh one here, on its own label: the shared test database's other users
keep the indexes they rely on.
"""

from __future__ import annotations

import uuid

import neo4j
import pytest

from rhumbline.stores.graph.neo4j import cypher
from rhumbline.stores.graph.neo4j.store import Neo4jGraphStore

pytestmark = pytest.mark.neo4j


def _fulltext_names(driver: neo4j.Driver) -> set[str]:
    records, _, _ = driver.execute_query("SHOW FULLTEXT INDEXES YIELD name")
    return {record["name"] for record in records}


def test_schema_setup_drops_a_retired_full_text_index_and_keeps_the_current_one(
    neo4j_server: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    tag = uuid.uuid4().hex[:12]
    retired = f"retired_text_{tag}"
    monkeypatch.setattr(cypher, "RETIRED_FULLTEXT_INDEXES", (retired,))
    driver = neo4j.GraphDatabase.driver(neo4j_server["uri"], auth=(neo4j_server["user"], neo4j_server["password"]))
    store = Neo4jGraphStore(neo4j_server["uri"], neo4j_server["user"], neo4j_server["password"], timeout=10.0)
    try:
        driver.execute_query(f"CREATE FULLTEXT INDEX {retired} FOR (n:Retired_{tag}) ON EACH [n.text]")
        assert retired in _fulltext_names(driver)
        store.ensure_schema()
        names = _fulltext_names(driver)
        assert retired not in names
        assert cypher.FULLTEXT_INDEX in names
        store.ensure_schema()  # nothing left to drop: a second setup is a no-op
        assert cypher.FULLTEXT_INDEX in _fulltext_names(driver)
    finally:
        driver.execute_query(f"DROP INDEX {retired} IF EXISTS")
        store.close()
        driver.close()
