"""Stacks sharing one Neo4j database through namespaces (per-branch stacks), on the real server.

Two stores with different namespaces write the same project slug: each reads, searches, traverses
and deletes only its own graph; the read-only Cypher runner binds `$project` inside its namespace
and hides every element of another; deleting a namespace removes all of it and nothing else.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator

import pytest

from rhumbline.cypher.neo4j.runner import CypherRunner, Scope
from rhumbline.stores.graph.factory import Neo4jCredentials
from rhumbline.stores.graph.model import Around, GraphBatch, Walk
from rhumbline.stores.graph.neo4j import staged as neo4j_staged
from rhumbline.stores.graph.neo4j.keys import Namespace
from rhumbline.stores.graph.neo4j.store import Neo4jGraphStore
from rhumbline.stores.graph.protocol import GraphConflict
from tests.functional.stores.graph.graph_samples import edge, node

pytestmark = pytest.mark.neo4j

CALLER = node("Function", "pkg.app.main", "pkg/app.py")
CALLEE = node("Function", "pkg.app.helper", "pkg/app.py")


def open_store(server: dict[str, str], namespace: str) -> Neo4jGraphStore:
    store = Neo4jGraphStore(server["uri"], server["user"], server["password"], timeout=10.0, namespace=namespace)
    store.ensure_schema()
    return store


@pytest.fixture
def stores(neo4j_server: dict[str, str]) -> Iterator[tuple[Neo4jGraphStore, Neo4jGraphStore, Neo4jGraphStore]]:
    """Two namespaced stores and the unnamespaced one, all on the same database."""
    tag = uuid.uuid4().hex[:10]
    opened = (
        open_store(neo4j_server, f"br-a-{tag}"),
        open_store(neo4j_server, f"br-b-{tag}"),
        open_store(neo4j_server, ""),
    )
    yield opened
    for store in opened[:2]:
        neo4j_staged.delete_namespace(store)
    for store in opened:
        store.close()


def write(store: Neo4jGraphStore, project: str, extra: str, *, clear: bool) -> None:
    only_here = node("Function", f"pkg.app.{extra}", "pkg/app.py")
    store.apply(
        project,
        GraphBatch(
            nodes=[CALLER, CALLEE, only_here],
            edges=[edge(CALLER.id, CALLEE.id), edge(CALLER.id, only_here.id)],
            clear=clear,
        ),
    )


@pytest.mark.parametrize("clear", [True, False], ids=["staged", "in-place"])
def test_two_namespaces_never_meet(
    stores: tuple[Neo4jGraphStore, Neo4jGraphStore, Neo4jGraphStore], unique_project: str, clear: bool
) -> None:
    first, second, unnamespaced = stores
    write(first, unique_project, "only_first", clear=clear)
    write(second, unique_project, "only_second", clear=clear)

    for store, mine, theirs in ((first, "only_first", "only_second"), (second, "only_second", "only_first")):
        assert store.get_node(unique_project, f"function:pkg/app.py:pkg.app.{mine}") is not None
        assert store.get_node(unique_project, f"function:pkg/app.py:pkg.app.{theirs}") is None
        assert store.counts(unique_project).nodes == 3
        hits, total = store.search([unique_project], "only")
        assert total == 1
        assert [(hit.project, hit.node.name) for hit in hits] == [(unique_project, mine)]
        reached = store.edges_of(unique_project, CALLER.id, "out", limit=10)[1]
        assert reached == 2
        assert store.find_by_name(unique_project, theirs) == ([], 0)
        assert store.nodes_in_file(unique_project, "pkg/app.py", limit=10)[1] == 3
        walked = store.walk(unique_project, [CALLER.id], direction="out", depth=1, limit=10)
        assert sorted(step.node.name for step in walked.steps) == sorted(["main", "helper", mine])
        # The one-statement bundles bind their keys the same way.
        around, walks = [Around("out", None, 10)], [Walk("out", None, 1, 10)]
        bundle = store.node_bundle(unique_project, CALLER.id, around=around, walks=walks)
        assert bundle is not None
        assert sorted(e.edge.other_name for e in bundle.around[0]["CALLS"].edges) == sorted(["helper", mine])
        assert bundle.walks[0].total == 3
        named, total, named_bundle = store.named_bundle(unique_project, mine, kinds=None, limit=5, around=around)
        assert ([n.name for n in named], total) == ([mine], 1) and named_bundle is not None
    # The database's own (unnamespaced) stack sees neither.
    assert unnamespaced.get_node(unique_project, CALLER.id) is None
    assert unnamespaced.search([unique_project], "only") == ([], 0)

    first.delete_project(unique_project)
    assert first.get_node(unique_project, CALLER.id) is None
    assert second.counts(unique_project).nodes == 3


def test_a_conflict_names_the_project_not_its_namespaced_key(
    stores: tuple[Neo4jGraphStore, Neo4jGraphStore, Neo4jGraphStore], unique_project: str
) -> None:
    first = stores[0]
    first.apply(unique_project, GraphBatch(nodes=[CALLER], clear=True, version=1))
    said = f"^the graph of {re.escape(unique_project)} is at version 1, not 2"
    with pytest.raises(GraphConflict, match=said):  # in place
        first.apply(unique_project, GraphBatch(nodes=[CALLEE], expect_version=2))
    with pytest.raises(GraphConflict, match=said):  # staged, before writing
        first.apply(unique_project, GraphBatch(nodes=[CALLEE], clear=True, expect_version=2))
    with pytest.raises(GraphConflict, match=said):  # staged, at the flip
        neo4j_staged._flip(first, unique_project, f"{unique_project}@never", 2)


def test_deleting_a_namespace_removes_all_of_it_and_nothing_else(
    stores: tuple[Neo4jGraphStore, Neo4jGraphStore, Neo4jGraphStore], unique_project: str
) -> None:
    first, second, _ = stores
    write(first, unique_project, "one", clear=True)
    write(first, unique_project, "two", clear=True)  # a retired physical graph too
    write(first, f"{unique_project}x", "three", clear=False)
    write(second, unique_project, "kept", clear=True)

    neo4j_staged.delete_namespace(first)

    prefix = first._keys.namespace.prefix
    left = first._read_raw(
        "MATCH (n) WHERE (n:CodeNode OR n:GraphMeta OR n:GraphHead) AND n.project STARTS WITH $prefix"
        " RETURN count(n) AS c",
        prefix=prefix,
    )[0]["c"]
    assert left == 0
    assert first.get_node(unique_project, CALLER.id) is None
    assert second.counts(unique_project).nodes == 3


def test_the_unnamespaced_store_refuses_to_delete_a_namespace(
    stores: tuple[Neo4jGraphStore, Neo4jGraphStore, Neo4jGraphStore],
) -> None:
    with pytest.raises(ValueError, match="only a namespaced store"):
        neo4j_staged.delete_namespace(stores[2])


def test_read_only_cypher_stays_inside_its_namespace(
    stores: tuple[Neo4jGraphStore, Neo4jGraphStore, Neo4jGraphStore],
    neo4j_server: dict[str, str],
    unique_project: str,
) -> None:
    first, second, _ = stores
    write(first, unique_project, "only_first", clear=True)
    write(second, unique_project, "only_second", clear=True)
    namespace = first._keys.namespace
    runner = CypherRunner(
        Neo4jCredentials(neo4j_server["uri"], neo4j_server["user"], neo4j_server["password"], "neo4j"),
        dedicated=False,
        connect_timeout=10.0,
    )
    try:
        scoped = runner.run(
            "MATCH (n:CodeNode {project: $project}) WHERE n.name STARTS WITH 'only' RETURN n.name AS name",
            {},
            limit=10,
            timeout=10.0,
            visible=None,
            scope=Scope(projects=(unique_project,), project=unique_project),
            namespace=namespace,
        )
        assert scoped.rows == [{"name": "only_first"}]
        # An all-projects token naming the other namespace's nodes gets them redacted.
        everything = runner.run(
            "MATCH (n:CodeNode) WHERE n.project STARTS WITH $a OR n.project STARTS WITH $b"
            " AND n.name STARTS WITH 'only' RETURN n",
            {"a": namespace.prefix, "b": second._keys.namespace.prefix},
            limit=100,
            timeout=10.0,
            visible=None,
            namespace=namespace,
        )
        shown = [row["n"] for row in everything.rows if row["n"]["type"] == "node"]
        assert {n["properties"]["project"].split("@")[0] for n in shown} == {namespace.graph(unique_project)}
        assert everything.redacted >= 1
    finally:
        runner.close()


def test_namespace_names_are_checked() -> None:
    assert Namespace("br-x").graph("o/r") == "br-x:o/r"
    assert Namespace("br-x").project("br-x:o/r@3.ab12") == "o/r"
    assert Namespace("br-x").project("br-y:o/r") is None
    assert Namespace("").project("br-y:o/r") is None
    assert Namespace("").project("o/r@1.a") == "o/r"
    with pytest.raises(ValueError, match="lower-case letters"):
        Namespace("Bad Name")
