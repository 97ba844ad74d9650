"""query on the embedded shape: a clear `unsupported` error saying how to run with Neo4j."""

from __future__ import annotations

import pytest

from tests.functional.tools.code_context.conftest import failed


@pytest.mark.parametrize("world", ["embedded"], indirect=True)
def test_cypher_needs_the_neo4j_backend(world) -> None:
    error = failed(world.call("query", {"cypher": "MATCH (n) RETURN n"}, scopes=("read", "cypher")), "unsupported")
    assert error["message"].startswith(
        "`query` runs Cypher, which needs the Neo4j graph backend; this server uses the embedded SQLite graph."
    )
    assert "RHUMBLINE_GRAPH_BACKEND=neo4j" in error["message"] and "RHUMBLINE_NEO4J_URI" in error["message"]
    assert error["details"] == {"backend": "sqlite"}
    # The scope is checked first: without `cypher`, the answer does not depend on the backend.
    assert failed(world.call("query", {"cypher": "MATCH (n) RETURN n"}), "forbidden")["message"] == (
        "this token lacks the 'cypher' scope"
    )
