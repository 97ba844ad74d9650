"""Brandes' betweenness (rhumbline.centrality.betweenness) against values worked out by hand."""

from __future__ import annotations

import pytest

from rhumbline.centrality import betweenness


def test_a_chain_and_a_diamond() -> None:
    # a -> b -> c: only b lies between (a, c); normalized by (n-1)(n-2) = 2.
    assert betweenness([("a", "b"), ("b", "c")]) == ({"b": 0.5}, 3, True)
    # a -> b -> c, a -> d -> c, c -> e (n = 5, norm 12): b and d share (a,c) and (a,e); c carries
    # every path into e.
    values, sources, exact = betweenness([("a", "b"), ("b", "c"), ("a", "d"), ("d", "c"), ("c", "e")])
    assert values == pytest.approx({"b": 1 / 12, "d": 1 / 12, "c": 3 / 12})
    assert (sources, exact) == (5, True)


def test_cycles_self_loops_and_duplicates_do_not_count_twice() -> None:
    values, _, _ = betweenness([("a", "b"), ("b", "a"), ("b", "c"), ("b", "c"), ("c", "c")])
    # Pairs through b: (a, c) only.
    assert values == pytest.approx({"b": 0.5})
    assert betweenness([("a", "b")]) == ({}, 2, True)
    assert betweenness([]) == ({}, 0, True)


def test_sampled_sources_are_seeded_and_scaled() -> None:
    star = [(f"s{i}", "hub") for i in range(50)] + [("hub", f"t{i}") for i in range(50)]
    exact, _, _ = betweenness(star)
    first = betweenness(star, max_sources=20, seed="p")
    again = betweenness(star, max_sources=20, seed="p")
    assert first == again and first[1] == 20 and first[2] is False
    # Only the hub is between anything; the estimate is of the same order as the truth.
    assert set(first[0]) <= {"hub"} and set(exact) == {"hub"}


def _textbook(edges: list[tuple[str, str]]) -> dict[str, float]:
    """Brandes (2001) with a dict per BFS, as first written: the reference for the array kernel."""
    from collections import deque

    nodes = sorted({end for edge in edges for end in edge})
    successors: dict[str, list[str]] = {n: [] for n in nodes}
    for s, t in sorted(set(edges)):
        if s != t:
            successors[s].append(t)
    totals = dict.fromkeys(nodes, 0.0)
    for source in nodes:
        sigma, distance, predecessors = {source: 1}, {source: 0}, {source: []}
        visited, queue = [], deque([source])
        while queue:
            v = queue.popleft()
            visited.append(v)
            for w in successors[v]:
                if w not in distance:
                    distance[w], sigma[w], predecessors[w] = distance[v] + 1, 0, []
                    queue.append(w)
                if distance[w] == distance[v] + 1:
                    sigma[w] += sigma[v]
                    predecessors[w].append(v)
        delta = dict.fromkeys(visited, 0.0)
        for w in reversed(visited):
            for v in predecessors[w]:
                delta[v] += sigma[v] / sigma[w] * (1.0 + delta[w])
            if w != source:
                totals[w] += delta[w]
    n = len(nodes)
    return {k: v / ((n - 1) * (n - 2)) for k, v in totals.items() if v > 0}


@pytest.mark.parametrize("seed", range(5))
def test_the_array_kernel_matches_the_textbook_algorithm_on_random_graphs(seed: int) -> None:
    import random

    rng = random.Random(seed)
    names = [f"n{i}" for i in range(60)]
    # Sparse like a code graph (many leaves, a few hubs), with cycles, parallel paths and loops.
    edges = [(rng.choice(names), rng.choice(names[: 10 + seed * 10])) for _ in range(150)]
    values, sources, exact = betweenness(edges)
    assert exact and sources == len({end for edge in edges for end in edge})
    assert values == pytest.approx(_textbook(edges), rel=1e-9)


def test_the_scores_depend_on_the_set_of_edges_not_their_order() -> None:
    import random

    rng = random.Random(7)
    names = [f"n{i}" for i in range(400)]
    edges = [(rng.choice(names), rng.choice(names[:40])) for _ in range(1200)]
    shuffled = edges * 2
    rng.shuffle(shuffled)
    # Sampled: the same sources are drawn whatever the order (and duplicates) the edges come in.
    assert betweenness(edges, max_sources=50, seed="p") == betweenness(shuffled, max_sources=50, seed="p")
    assert betweenness(edges) == betweenness(list(reversed(edges)))


def test_dependency_pairs_are_the_stores_between_real_nodes_with_decorates_flipped() -> None:
    from rhumbline.centrality import dependency_pairs
    from rhumbline.stores.graph.model import Edge, Node

    def node(name: str) -> Node:
        return Node(id=name, kind="Function", name=name, qualified_name=name)

    def edge(source: str, relation: str, target: str) -> Edge:
        return Edge(source, target, relation, "EXTRACTED", 1.0, "test")

    nodes = [node("a"), node("b"), node("d")]
    edges = [
        edge("a", "CALLS", "b"), edge("a", "CONTAINS", "b"), edge("a", "CALLS", "stub"),
        edge("d", "DECORATES", "a"), edge("b", "IMPORTS", "a"),
    ]
    assert dependency_pairs(nodes, edges) == [("a", "b"), ("b", "a"), ("a", "d")]
