"""shortest_paths and edge_pairs, identical on SQLite and Neo4j (graph: traversal_graph.py)."""

from __future__ import annotations

import pytest
from tests.functional.stores.graph.traversal_graph import ID, N, STUB, store  # noqa: F401

from rhumbline.stores.graph.model import GraphPath, PathHop
from rhumbline.stores.graph.protocol import GraphStore

NAME = {v: k for k, v in ID.items()}


def _route(path: GraphPath) -> str:
    """`a -CALLS-> b <-INHERITS- c`: the nodes in walking order, each hop's relation and way."""
    text = NAME[path.nodes[0].id]
    for hop, node in zip(path.hops, path.nodes[1:], strict=True):
        text += f" -{hop.relation}-> " if hop.forward else f" <-{hop.relation}- "
        text += NAME[node.id]
    return text


def test_every_shortest_directed_path_in_order(store: GraphStore, project: str) -> None:
    result = store.shortest_paths(project, ID["a"], ID["d"], direction="out", max_paths=5, max_depth=6)

    assert [_route(p) for p in result.paths] == ["a -CALLS-> b -CALLS-> d", "a -CALLS-> c -CALLS-> d"]
    assert (result.length, result.total, result.limited) == (2, 2, False)
    # Every hop carries its evidence.
    assert result.paths[1].hops[1] == PathHop(
        source=ID["c"], target=ID["d"], relation="CALLS", forward=True, confidence="INFERRED",
        confidence_score=0.5, explanation=f"{ID['c']} calls {ID['d']}", file=None, line=None,
    )  # fmt: skip
    assert result.paths[0].nodes == [N["a"], N["b"], N["d"]]


def test_max_paths_caps_the_list_not_the_total(store: GraphStore, project: str) -> None:
    result = store.shortest_paths(project, ID["a"], ID["d"], direction="out", max_paths=1, max_depth=6)

    assert [_route(p) for p in result.paths] == ["a -CALLS-> b -CALLS-> d"]
    assert (result.length, result.total) == (2, 2)


def test_a_longer_directed_path_through_a_cycle(store: GraphStore, project: str) -> None:
    result = store.shortest_paths(project, ID["d"], ID["f"], direction="out", max_paths=5, max_depth=6)

    assert [_route(p) for p in result.paths] == ["d -CALLS-> a -CALLS-> c -IMPORTS-> e -INHERITS-> f"]
    assert (result.length, result.total) == (4, 1)


def test_no_directed_path_but_an_undirected_one(store: GraphStore, project: str) -> None:
    directed = store.shortest_paths(project, ID["f"], ID["a"], direction="out", max_paths=5, max_depth=6)
    assert (directed.paths, directed.length, directed.total) == ([], None, 0)

    either = store.shortest_paths(project, ID["f"], ID["a"], direction="both", max_paths=5, max_depth=6)
    assert [_route(p) for p in either.paths] == ["f <-INHERITS- e <-IMPORTS- c <-CALLS- a"]
    assert [(h.source, h.target, h.forward) for h in either.paths[0].hops] == [
        (ID["e"], ID["f"], False),
        (ID["c"], ID["e"], False),
        (ID["a"], ID["c"], False),
    ]


def test_max_depth_bounds_the_search(store: GraphStore, project: str) -> None:
    assert store.shortest_paths(project, ID["a"], ID["f"], direction="out", max_paths=1, max_depth=2).length is None
    assert store.shortest_paths(project, ID["a"], ID["f"], direction="out", max_paths=1, max_depth=3).length == 3


def test_relations_restrict_the_path(store: GraphStore, project: str) -> None:
    only_calls = store.shortest_paths(
        project, ID["x"], ID["e"], direction="out", max_paths=5, max_depth=6, relations=["CALLS"]
    )
    assert only_calls.length is None
    any_relation = store.shortest_paths(project, ID["x"], ID["e"], direction="out", max_paths=5, max_depth=6)
    assert [_route(p) for p in any_relation.paths] == ["x -CALLS-> a -CALLS-> c -IMPORTS-> e"]


def test_same_node_unknown_node_and_stub_ends(store: GraphStore, project: str) -> None:
    same = store.shortest_paths(project, ID["a"], ID["a"], direction="out", max_paths=5, max_depth=6)
    assert ([_route(p) for p in same.paths], same.length, same.total) == (["a"], 0, 1)
    for source, target in [(ID["a"], "function:nowhere"), (ID["a"], STUB), ("function:nowhere", ID["a"])]:
        found = store.shortest_paths(project, source, target, direction="both", max_paths=5, max_depth=6)
        assert (found.paths, found.length, found.total) == ([], None, 0)


@pytest.mark.parametrize(
    "arguments",
    [
        {"direction": "in", "max_paths": 1, "max_depth": 3},
        {"direction": "out", "max_paths": 0, "max_depth": 3},
        {"direction": "out", "max_paths": 51, "max_depth": 3},
        {"direction": "out", "max_paths": 1, "max_depth": 11},
    ],
)
def test_shortest_paths_rejects_bad_arguments(store: GraphStore, project: str, arguments: dict) -> None:
    with pytest.raises(ValueError):
        store.shortest_paths(project, ID["a"], ID["d"], **arguments)


def test_edge_pairs_lists_real_edges_of_the_relations_with_an_exact_total(
    store: GraphStore, project: str
) -> None:
    pairs, total = store.edge_pairs(project, relations=["CALLS", "INHERITS"], limit=100)

    # The stub end (a -> os.getcwd) is left out.
    assert sorted(pairs) == sorted([
        (ID["x"], ID["a"]), (ID["a"], ID["b"]), (ID["a"], ID["c"]), (ID["b"], ID["d"]),
        (ID["c"], ID["d"]), (ID["d"], ID["a"]), (ID["e"], ID["f"]),
    ])  # fmt: skip
    assert total == 7
    page, total = store.edge_pairs(project, relations=["CALLS"], limit=2)
    assert (len(page), total) == (2, 6)


def test_edges_among_lists_a_subgraph_with_an_exact_total(store: GraphStore, project: str) -> None:
    members = [ID["a"], ID["b"], ID["c"], ID["d"], STUB, "function:nowhere"]

    edges, total = store.edges_among(project, members, limit=100)
    assert [(NAME[e.source], e.relation, NAME[e.target]) for e in edges] == [
        ("a", "CALLS", "b"), ("a", "CALLS", "c"), ("b", "CALLS", "d"), ("c", "CALLS", "d"), ("d", "CALLS", "a"),
    ]  # fmt: skip
    assert total == 5
    assert edges[0].properties == {"weight": 2} and edges[0].line == 3
    assert edges[3].confidence == "INFERRED" and edges[3].explanation == f"{ID['c']} calls {ID['d']}"

    edges, total = store.edges_among(project, [ID["c"], ID["e"], ID["f"]], limit=1, relations=["INHERITS", "IMPORTS"])
    assert [(NAME[e.source], e.relation, NAME[e.target]) for e in edges] == [("c", "IMPORTS", "e")]
    assert total == 2
