"""walk / reach / nodes: breadth-first traversals, identical on SQLite and Neo4j.

The graph is drawn in traversal_graph.py.
"""

from __future__ import annotations

import pytest
from tests.functional.stores.graph.graph_samples import edge
from tests.functional.stores.graph.traversal_graph import ID, N, STUB, store  # noqa: F401

from rhumbline.stores.graph.model import EdgeView, GraphBatch, WalkStep
from rhumbline.stores.graph.protocol import GraphStore


def _shape(steps: list[WalkStep]) -> list[tuple[str, int, str | None, str | None, str | None]]:
    """(name, depth, parent name, relation, direction) per step."""
    name = {v: k for k, v in ID.items()}
    return [
        (
            name[s.node.id],
            s.depth,
            name[s.parent] if s.parent else None,
            s.via.relation if s.via else None,
            s.via.direction if s.via else None,
        )
        for s in steps
    ]


def test_walk_out_reaches_each_node_once_at_its_shortest_depth(store: GraphStore, project: str) -> None:
    result = store.walk(project, [ID["a"]], direction="out", depth=2, limit=100)

    # d is reached from b and from c at depth 2: the parent is the smallest (relation, parent id).
    # The stub is never a step; the cycle d -> a does not bring a back.
    assert _shape(result.steps) == [
        ("a", 0, None, None, None),
        ("b", 1, "a", "CALLS", "out"),
        ("c", 1, "a", "CALLS", "out"),
        ("d", 2, "b", "CALLS", "out"),
        ("e", 2, "c", "IMPORTS", "out"),
    ]
    assert (result.total, result.truncated) == (5, False)
    assert result.steps[0].node == N["a"]
    assert result.steps[3].node == N["d"]
    # The edge that reached a node, seen from its parent, with every field and property.
    assert result.steps[1].via == EdgeView(
        relation="CALLS", direction="out", confidence="EXTRACTED", confidence_score=1.0,
        explanation=f"{ID['a']} calls {ID['b']}", file="pkg/m.py", line=3,
        other_id=ID["b"], other_kind="Function", other_name="b", properties={"weight": 2},
    )  # fmt: skip

    deeper = store.walk(project, [ID["a"]], direction="out", depth=3, limit=100)
    assert _shape(deeper.steps)[-1] == ("f", 3, "e", "INHERITS", "out")
    assert deeper.total == 6


def test_walk_cuts_at_limit_with_an_exact_total(store: GraphStore, project: str) -> None:
    result = store.walk(project, [ID["a"]], direction="out", depth=3, limit=3)

    assert [s.node.name for s in result.steps] == ["a", "b", "c"]
    assert (result.total, result.truncated) == (6, True)


def test_walk_follows_only_the_relations_asked_for(store: GraphStore, project: str) -> None:
    result = store.walk(project, [ID["a"]], direction="out", depth=4, limit=100, relations=["CALLS"])

    assert [(s.node.name, s.depth) for s in result.steps] == [("a", 0), ("b", 1), ("c", 1), ("d", 2)]
    assert result.total == 4
    assert store.walk(project, [ID["a"]], direction="out", depth=2, limit=10, relations=[]).total == 1


def test_walk_in_sees_edges_from_the_parent_side(store: GraphStore, project: str) -> None:
    result = store.walk(project, [ID["a"]], direction="in", depth=1, limit=100)

    assert _shape(result.steps) == [
        ("a", 0, None, None, None),
        ("d", 1, "a", "CALLS", "in"),
        ("x", 1, "a", "CALLS", "in"),
    ]
    via = result.steps[1].via
    assert via is not None and (via.other_id, via.explanation) == (ID["d"], f"{ID['d']} calls {ID['a']}")


def test_walk_both_ways_orders_by_relation_then_id(store: GraphStore, project: str) -> None:
    result = store.walk(project, [ID["b"]], direction="both", depth=1, limit=100)

    assert _shape(result.steps) == [
        ("b", 0, None, None, None),
        ("a", 1, "b", "CALLS", "in"),
        ("d", 1, "b", "CALLS", "out"),
        ("g", 1, "b", "DECORATES", "in"),
    ]
    assert result.total == 4


def test_walk_from_several_starts_ignores_unknown_ids_and_stubs(store: GraphStore, project: str) -> None:
    result = store.walk(
        project, [ID["f"], ID["e"], "function:nowhere", STUB], direction="out", depth=1, limit=100
    )

    assert _shape(result.steps) == [("e", 0, None, None, None), ("f", 0, None, None, None)]
    assert result.total == 2
    assert store.walk(project, ["function:nowhere"], direction="out", depth=2, limit=5).total == 0
    assert store.walk(project, [ID["a"]], direction="out", depth=0, limit=5).total == 1


def test_walk_stays_inside_its_project(store: GraphStore, project: str, other_project: str) -> None:
    store.apply(other_project, GraphBatch(nodes=[N["a"], N["x"]], edges=[edge(ID["a"], ID["x"])]))

    assert [s.node.name for s in store.walk(other_project, [ID["a"]], direction="out", depth=3, limit=9).steps] == ["a", "x"]
    assert store.walk(project, [ID["a"]], direction="out", depth=3, limit=100).total == 6


@pytest.mark.parametrize(
    "arguments",
    [
        {"direction": "sideways", "depth": 1, "limit": 5},
        {"direction": "out", "depth": -1, "limit": 5},
        {"direction": "out", "depth": 11, "limit": 5},
        {"direction": "out", "depth": 1, "limit": 0},
        {"direction": "out", "depth": 1, "limit": 5, "relations": ["calls; DROP"]},
        {"direction": "out", "depth": 1, "limit": 5, "relations": "CALLS"},
    ],
)
def test_walk_rejects_bad_arguments(store: GraphStore, project: str, arguments: dict) -> None:
    with pytest.raises(ValueError):
        store.walk(project, [ID["a"]], **arguments)


def test_reach_gives_every_distance_over_several_legs(store: GraphStore, project: str) -> None:
    # Dependents of b: callers (incoming CALLS) and what b decorates (outgoing DECORATES: none);
    # dependents of g's decorated functions arrive over outgoing DECORATES.
    found = store.reach(project, [ID["b"]], legs=[("in", ["CALLS"]), ("out", ["DECORATES"])], depth=3)
    assert found == {ID["b"]: 0, ID["a"]: 1, ID["d"]: 2, ID["x"]: 2, ID["c"]: 3}

    found = store.reach(project, [ID["g"]], legs=[("in", ["CALLS"]), ("out", ["DECORATES"])], depth=2)
    assert found == {ID["g"]: 0, ID["b"]: 1, ID["a"]: 2}
    assert store.reach(project, ["function:nowhere"], legs=[("in", None)], depth=2) == {}


def test_nodes_returns_the_existing_ones_by_id(store: GraphStore, project: str) -> None:
    assert store.nodes(project, [ID["a"], ID["f"], STUB, "function:nowhere"]) == {
        ID["a"]: N["a"],
        ID["f"]: N["f"],
    }
    assert store.nodes(project, []) == {}


def test_the_most_certain_edge_comes_first_and_picks_the_parent(graph_store: GraphStore, project: str) -> None:
    """s calls u (ambiguous), v (extracted), w (inferred); u (inferred) and v (ambiguous) call t.
    By (relation, id) alone s's callees would be u, v, w; by certainty they are v, w, u. Going up
    from t, s is reached through v (s -> v is certain, s -> u ambiguous), not u (the smaller id)."""
    from rhumbline.stores.graph.model import Walk
    from tests.functional.stores.graph.graph_samples import node

    s, u, v, w, t = (node("Function", f"pkg.{name}", "pkg/c.py") for name in ("s", "u", "v", "w", "t"))
    graph_store.apply(project, GraphBatch(nodes=[s, u, v, w, t], edges=[
        edge(s.id, u.id, confidence="AMBIGUOUS", confidence_score=0.2),
        edge(s.id, v.id),
        edge(s.id, w.id, confidence="INFERRED", confidence_score=0.8),
        edge(u.id, t.id, confidence="INFERRED", confidence_score=0.9),
        edge(v.id, t.id, confidence="AMBIGUOUS", confidence_score=0.2),
    ], clear=True))  # fmt: skip

    result = graph_store.walk(project, [s.id], direction="out", depth=2, limit=10)
    assert [(step.node.name, step.depth, step.parent) for step in result.steps] == [
        ("s", 0, None), ("v", 1, s.id), ("w", 1, s.id), ("u", 1, s.id), ("t", 2, u.id),
    ]  # fmt: skip
    assert [step.via.confidence_score for step in result.steps[1:] if step.via] == [1.0, 0.8, 0.2, 0.9]
    # A page cut at depth 1 keeps the most certain; the one-statement bundle agrees on both backends.
    page = graph_store.walk(project, [s.id], direction="out", depth=2, limit=3)
    assert [step.node.name for step in page.steps] == ["s", "v", "w"]
    for spec in (Walk("out", ("CALLS",), 2, 10), Walk("out", ("CALLS",), 2, 3), Walk("in", None, 2, 10)):
        for start in (s.id, t.id):
            single = graph_store.node_bundle(project, start, walks=[spec])
            assert single == GraphStore.node_bundle(graph_store, project, start, walks=[spec]), (spec, start)
    upward = graph_store.node_bundle(project, t.id, walks=[Walk("in", None, 2, 10)])
    assert upward is not None
    assert [(step.node.name, step.parent) for step in upward.walks[0].steps] == [
        ("t", None), ("u", t.id), ("v", t.id), ("s", v.id),
    ]  # fmt: skip
